"""Where a command-line target points: a session directory's log, a permalink (`<session-id>@<seq>`) found
under the sessions root, and what a $DSH_HOME that names the wrong folder probably meant.

A permalink is what the explorer copies (`p`) and the bug report prints; pasting it back opens the same
event. The id is looked up the way dsh lays sessions out (`ROOT/<project key>/<encoded id>/session.jsonl[.zstd]`),
so an id can never name a path outside the root: it is encoded as dsh encodes it, never joined raw.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from msgspec import Struct

from ..model.sessions.layout import LOG_NAMES, default_root, encode_segment, is_project_dirname
from ..safety import one_line

# An id is whatever dsh allows in a session id, minus what cannot be typed on one line; the seq is a count.
_PERMALINK = re.compile(r"(?P<id>[^@\s]{1,512})@(?P<seq>[0-9]{1,18})")
MAX_PROJECTS = 100_000  # a root is walked once, one stat per project: bounded for a hostile root


class LocateError(Exception):
    """A target that names nothing openable; the message is one line, safe to print. ``exit_code``: 3 when
    nothing is there to read (as for a missing file), 2 when the command was asked the wrong thing."""

    def __init__(self, message: str, exit_code: int = 3) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Permalink(Struct, frozen=True):
    session_id: str
    seq: int

    def __str__(self) -> str:
        return f"{self.session_id}@{self.seq}"


def parse_permalink(text: str) -> Permalink | None:
    """``<id>@<seq>`` as the explorer copies it, or None when ``text`` is not one."""
    m = _PERMALINK.fullmatch(text)
    return Permalink(m.group("id"), int(m.group("seq"))) if m else None


def parse_at(text: str) -> tuple[str | None, int]:
    """``--at``'s value: a seq (``1234``) or a permalink (``<id>@1234``): (session id or None, seq).

    Raises ValueError with a one-line message for anything else (argparse shows it as a usage error)."""
    text = text.strip()
    if text.isdigit() and len(text) <= 18:
        return None, int(text)
    link = parse_permalink(text)
    if link is None:
        raise ValueError(f"--at takes SEQ or SESSION-ID@SEQ, not {one_line(text, 80)!r}")
    return link.session_id, link.seq


def session_dir_log(path: Path) -> Path | None:
    """The log inside a session directory (``session.jsonl.zstd``, else ``session.jsonl``), or None."""
    for name in LOG_NAMES:
        candidate = path / name
        try:  # Path.is_file() raises on a name too long or a folder we may not enter
            if stat.S_ISREG(os.stat(candidate).st_mode):
                return candidate
        except (OSError, ValueError):
            continue
    return None


def find_session(root: Path, session_id: str) -> list[Path]:
    """Every log of the session ``session_id`` under ``root`` (one per project it appears in; normally one)."""
    try:
        segment = encode_segment(session_id)
    except ValueError:
        return []
    if is_project_dirname(root.name):  # a project folder given as the root (see sessions_root)
        log = session_dir_log(root / segment)
        return [] if log is None else [log]
    found: list[Path] = []
    try:
        with os.scandir(root) as it:
            for n, entry in enumerate(it):
                if n >= MAX_PROJECTS:
                    break
                if is_project_dirname(entry.name) and entry.is_dir(follow_symlinks=False):
                    log = session_dir_log(Path(entry.path) / segment)
                    if log is not None:
                        found.append(log)
    except OSError:
        return []
    return sorted(found)


def resolve_permalink(link: Permalink, root: Path | None = None) -> Path:
    """The log a permalink names, under ``root`` (default: the sessions root); LocateError when none or several."""
    root = sessions_root()[0] if root is None else root
    problem = root_error(root)
    if problem is not None:
        raise LocateError(f"cannot look up {one_line(str(link), 100)}: {problem}")
    found = find_session(root, link.session_id)
    shown_id = one_line(link.session_id, 80)
    if not found:
        raise LocateError(f"no session {shown_id} under {one_line(str(root), 200)} "
                          f"(set DSH_HOME, or give the session's file or directory)")
    if len(found) > 1:
        raise LocateError(f"session {shown_id} is in {len(found)} projects under {one_line(str(root), 200)}; "
                          f"give its file: {one_line(str(found[0]), 200)}")
    away = _outside(found[0], root)
    if away is not None:  # `ls` shows the link where it stands; a permalink never leaves the root unasked
        raise LocateError(f"session {shown_id} under {one_line(str(root), 200)} is a link out of the sessions root "
                          f"(to {one_line(away, 200)}); not followed: give the file to open it")
    return found[0]


def _outside(log: Path, root: Path) -> str | None:
    """Where ``log`` really is when a symlink (its session folder or the log itself) takes it out of
    ``root``; None when it stays inside."""
    try:
        real, base = os.path.realpath(log), os.path.realpath(root)
        return None if os.path.commonpath([real, base]) == base else real
    except (OSError, ValueError):
        return str(log)


def root_error(root: Path) -> str | None:
    """One line when the sessions root is there but cannot be read (a name too long, a folder on the way
    we may not enter, a file where a folder should be); None when it can be listed or is simply missing."""
    try:
        with os.scandir(root):
            pass
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return f"{one_line(str(root), 200)}: not a directory"
    except (OSError, ValueError) as exc:
        return f"{one_line(str(root), 200)}: cannot read: {getattr(exc, 'strerror', None) or exc}"
    return None


def missing_seq(log, seq: int) -> str | None:
    """Why a permalink's seq names no event of ``log`` (past its end, before its start, in a gap) with the
    range it has, in one line; None when an event carries it."""
    if log.index_of_seq(seq) is not None:
        return None
    n = len(log)
    if not n:
        return f"no event has seq {seq}: the log has no events"
    first, last = log.seq_of(0), log.seq_of(n - 1)
    where = "before the first" if seq < first else "after the last" if seq > last else "in a gap"
    return f"no event has seq {seq} ({where}; seqs run {first}–{last})"


def sessions_root() -> tuple[Path, str | None]:
    """The sessions root, and a one-line note when $DSH_HOME was read as something else than dsh's home.

    dsh keeps sessions in ``$DSH_HOME/sessions``. A DSH_HOME that names the sessions folder itself, or a
    project folder inside it, is a common slip: it is understood (that folder is read) and the note says
    what DSH_HOME should be.
    """
    root = default_root()
    home = os.environ.get("DSH_HOME", "")
    if not home.strip() or path_kind(root) in ("dir", "unreadable"):  # the reader says why it cannot read it
        return root, None
    given = Path(home)
    if path_kind(given) != "dir":
        return root, None
    if is_project_dirname(given.name):
        return given, (f"DSH_HOME names a project folder ({one_line(given.name, 80)}); reading it. dsh's home "
                       f"is the folder above its sessions{_did_you_mean(given.parent)}")
    if _holds_projects(given):
        return given, f"DSH_HOME names a sessions folder; reading it. dsh looks for $DSH_HOME/sessions{_did_you_mean(given)}"
    return root, None


def _did_you_mean(sessions: Path) -> str:
    """``: did you mean DSH_HOME=<parent>?`` when that home's sessions folder is ``sessions`` (so it exists);
    else no guess: a folder named otherwise is not what dsh would find under any home."""
    if sessions.name != "sessions" or path_kind(sessions) != "dir":
        return f"; no DSH_HOME finds {one_line(str(sessions), 200)}: dsh's folder is named `sessions`"
    return f": did you mean DSH_HOME={one_line(str(sessions.parent), 200)}?"


def _holds_projects(path: Path) -> bool:
    try:
        with os.scandir(path) as it:
            for n, entry in enumerate(it):
                if n >= MAX_PROJECTS:
                    return False
                if is_project_dirname(entry.name) and entry.is_dir(follow_symlinks=False):
                    return True
    except OSError:
        return False
    return False


def check_target(text: str) -> tuple[str, str | None, int | None]:
    """What `dsh-tui check ARG` reads, a note, and a permalink's seq (else None): a session directory means
    its log, a permalink the session it names under the sessions root; a file (or an export ZIP, or what is
    not there) as given. A directory holding several sessions (a root or a project) is a usage error naming `ls`."""
    path = Path(text)
    kind = path_kind(path)
    if kind == "unreadable":  # e.g. a folder on the way is not ours to enter: the read says why, exit 3
        return text, None, None
    if kind == "dir":
        log = session_dir_log(path)
        if log is not None:
            return str(log), None, None
        count = len(_sessions_in(path))
        where = one_line(text, 200)
        if count:
            raise LocateError(f"{where} holds {count:,} sessions: `dsh-tui ls {where}` lists them, "
                              f"`dsh-tui check {where}/<id>` checks one", exit_code=2)
        raise LocateError(f"{where} is a directory with no session log in it", exit_code=3)
    if kind == "missing":
        link = parse_permalink(text)
        if link is not None:
            root, note = sessions_root()
            return str(resolve_permalink(link, root)), note, link.seq
    return text, None, None


def path_kind(path: Path) -> str:
    """"dir", "file" (anything else that is there), "missing", or "unreadable" (stat refused: a folder on
    the way we may not enter). Path.is_dir() and .exists() raise on EACCES; this never does."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return "unreadable"
    return "dir" if stat.S_ISDIR(st.st_mode) else "file"


def _sessions_in(path: Path) -> list[Path]:
    """Session logs one or two levels under ``path`` (a project, or a root of projects); bounded."""
    found: list[Path] = []
    try:
        with os.scandir(path) as it:
            for n, entry in enumerate(it):
                if n >= MAX_PROJECTS or len(found) >= MAX_PROJECTS:
                    break
                if not entry.is_dir(follow_symlinks=False):
                    continue
                log = session_dir_log(Path(entry.path))
                if log is not None:
                    found.append(log)
                elif is_project_dirname(entry.name):
                    found.extend(find_in_project(Path(entry.path)))
    except OSError:
        pass
    return found


def find_in_project(project: Path) -> list[Path]:
    out: list[Path] = []
    try:
        with os.scandir(project) as it:
            for n, entry in enumerate(it):
                if n >= MAX_PROJECTS:
                    break
                if entry.is_dir(follow_symlinks=False):
                    log = session_dir_log(Path(entry.path))
                    if log is not None:
                        out.append(log)
    except OSError:
        pass
    return out
