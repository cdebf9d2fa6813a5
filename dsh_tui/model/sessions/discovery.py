"""The session browser's model: find every log under a dsh session root.

`list_sessions` walks ``<root>/--<project-key>--/<segment>/session.jsonl[.zstd]``
and ``<root>/_no-cwd/<segment>/...`` reading only each log's header (for zstd:
8 KiB reads until the first frame is complete, then that one frame is decoded;
event frames are never read). `fill_status` does the full load + diagnosis for
one entry and never raises. `build_tree` nests subagent/fork children under their
parents. Textual-free: stdlib, zstandard, orjson only.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from msgspec import Struct, field
import zstandard

from .entry import SessionEntry, apply_header, read_entry, zip_entries
from .rootlisting import listing_breakers
from .layout import (FLAT_TMP_RE, LOG_NAMES, NO_CWD, TMP_RE, decode_project_key, decode_segment, default_root,
                     encode_segment, is_project_dirname, project_key)

__all__ = ["SessionEntry", "Listing", "RootUnreadable", "default_root", "decode_project_key", "decode_segment",
           "encode_segment", "project_key", "list_sessions", "list_target", "read_entry", "fill_status", "build_tree",
           "group_by_project", "filter_entries", "walk_tree", "tree_marker"]


class RootUnreadable(Exception):
    """The root does not exist, is not a directory or cannot be listed."""


class Listing(Struct):
    root: Path
    entries: list[SessionEntry]  # flat, newest first
    legacy_flat: list[Path] = field(default_factory=list)
    ignored_tmp: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # sessions that break dsh's listing of this whole root (rootlisting.py): [{path, reason, advice}]
    breaks_listing: list[dict] = field(default_factory=list)
    archive: Any = None  # an export ZIP's open `ExportZip`: fill_status reads its members through it

    def close(self) -> None:
        """Close the export ZIP, if this lists one (the listing stays usable, its statuses no longer fill)."""
        if self.archive is not None:
            self.archive.close()


# -- walking the root --------------------------------------------------------------

def _scan(path: Path) -> list[os.DirEntry]:
    with os.scandir(path) as it:
        return list(it)


def _is_dir(d: os.DirEntry) -> bool:
    try:
        return d.is_dir()
    except OSError:
        return False


def _is_log_name(name: str) -> bool:
    return name.endswith(".jsonl") or name.endswith(".jsonl.zstd")


def list_sessions(root: str | os.PathLike, *, dctx: zstandard.ZstdDecompressor | None = None) -> Listing:
    """Every session under ``root`` from its header alone. Raises RootUnreadable.

    ``root`` may also be one project directory (``--key--`` or ``_no-cwd``) or one session directory.
    """
    root = Path(root)
    dctx = dctx or zstandard.ZstdDecompressor()
    try:
        top = _scan(root)
    except FileNotFoundError:
        raise RootUnreadable(f"{root}: no such directory") from None
    except NotADirectoryError:
        raise RootUnreadable(f"{root}: not a directory") from None
    except OSError as exc:
        raise RootUnreadable(f"{root}: cannot list: {exc.strerror or exc}") from None
    out = Listing(root, [])
    names = {d.name for d in top}
    if any(n in names for n in LOG_NAMES):  # a session directory itself
        pname = root.parent.name
        display = decode_project_key(pname) or pname
        out.entries = [read_entry(root / n, project_dir=pname if is_project_dirname(pname) else "",
                                  project_display=display, dctx=dctx) for n in LOG_NAMES if n in names]
        projects = []
    elif is_project_dirname(root.name):
        projects = [(root.name, root)]
    else:
        projects = []
        for d in top:
            if _is_dir(d) and is_project_dirname(d.name):
                projects.append((d.name, Path(d.path)))
            elif FLAT_TMP_RE.search(d.name):
                out.ignored_tmp.append(Path(d.path))
            elif _is_log_name(d.name) and not _is_dir(d):
                out.legacy_flat.append(Path(d.path))
    for name, pdir in sorted(projects):
        _walk_project(name, pdir, out, dctx)
    out.legacy_flat.sort()
    out.ignored_tmp.sort()
    _project_displays(out.entries)
    _root_problems(out)
    out.breaks_listing = listing_breakers(out.entries)
    out.entries.sort(key=lambda e: e.sort_time, reverse=True)
    return out


def list_target(target: str | os.PathLike, *, dctx: zstandard.ZstdDecompressor | None = None) -> Listing:
    """What `ls` and the browser list: a session root, project or session directory, or an export ZIP.

    A ZIP is opened once for the listing and the statuses after it (``listing.archive``; close it
    with `Listing.close`), and the names it skips are the listing's problems. Raises
    RootUnreadable, also for a file that starts like a ZIP but is not a readable one (truncated).
    """
    target = Path(target)
    if target.is_file():
        from ..reading.exportzip import ExportZip, ZipUnreadable, looks_like_zip
        if looks_like_zip(target):
            try:
                archive = ExportZip(target)
            except ZipUnreadable as exc:
                raise RootUnreadable(exc.message) from None
            try:
                return Listing(target, zip_entries(archive), problems=list(archive.members().problems),
                               archive=archive)
            except ZipUnreadable as exc:
                archive.close()
                raise RootUnreadable(exc.message) from None
    return list_sessions(target, dctx=dctx)


def _walk_project(name: str, pdir: Path, out: Listing, dctx) -> None:
    try:
        items = _scan(pdir)
    except OSError as exc:
        out.problems.append(f"{pdir}: cannot list: {exc.strerror or exc}")
        return
    display = decode_project_key(name) or name
    for d in items:
        if not _is_dir(d):
            if FLAT_TMP_RE.search(d.name):
                out.ignored_tmp.append(Path(d.path))
            elif _is_log_name(d.name):
                out.legacy_flat.append(Path(d.path))  # dsh: "unsupported flat-file layout"
            continue
        try:
            names = os.listdir(d.path)
        except OSError as exc:
            out.problems.append(f"{d.path}: cannot list: {exc.strerror or exc}")
            continue
        logs = [n for n in LOG_NAMES if n in names]
        out.ignored_tmp.extend(Path(d.path, n) for n in sorted(names) if TMP_RE.match(n))
        if len(logs) > 1:
            out.problems.append(f"{d.path}: holds both session.jsonl and session.jsonl.zstd "
                                "(dsh refuses a root that mixes encodings)")
        for log in logs:
            out.entries.append(read_entry(Path(d.path, log), project_dir=name, project_display=display, dctx=dctx))


def _project_displays(entries: list[SessionEntry]) -> None:
    """A project's display is the most common header cwd of its sessions (the key is lossy)."""
    cwds: dict[str, Counter] = {}
    for e in entries:
        if e.cwd:
            cwds.setdefault(e.project_dir, Counter())[e.cwd] += 1
    for e in entries:
        c = cwds.get(e.project_dir)
        if c and e.project_dir != NO_CWD:
            e.project_display = c.most_common(1)[0][0]


def _root_problems(out: Listing) -> None:
    encodings = {e.encoding for e in out.entries if e.encoding}
    if len(encodings) > 1:
        out.problems.append("the root mixes .jsonl and .jsonl.zstd logs (dsh refuses to run on such a root)")
    seen: dict[str, SessionEntry] = {}
    for e in out.entries:
        if e.session_id is None:
            continue
        if e.session_id in seen:
            out.problems.append(f"duplicate session id {e.session_id}: {seen[e.session_id].path} and {e.path}")
        else:
            seen[e.session_id] = e
    if out.legacy_flat:
        out.problems.append(f"{len(out.legacy_flat)} legacy flat log file(s) <project>/<id>.jsonl[.zstd]: "
                            "dsh rejects this layout")


# -- status, tree, grouping, filter ----------------------------------------------------------

def fill_status(entry: SessionEntry, *, cancel=None, max_plain: int | None = None, archive=None) -> SessionEntry:
    """Load and diagnose the whole log; set the status fields. Never raises.

    Leaves the entry unchanged when ``cancel`` is set during the load. ``max_plain`` bounds what
    the log decodes to, as for `check`. ``archive``: the open `ExportZip` of the entry's ZIP
    (``listing.archive``), so a listing's members are read without re-opening it for each.
    """
    from ..diagnosing.diagnosis import diagnose
    from ..reading.session import LogRejected
    from ..reading.source import Cancelled, LogUnreadable
    from ..opening.target import OpenOptions, Target, load_log
    try:
        if entry.member is not None and archive is not None and archive.path == entry.path:
            log = archive.load(entry.member, max_plain=max_plain, cancel=cancel)  # the listing's open ZIP
        else:
            log = load_log(Target(Path(entry.path), entry.member), OpenOptions(max_plain=max_plain, cancel=cancel))
    except Cancelled:
        return entry
    except LogRejected as exc:
        entry.status = "torn" if exc.code == "torn-header" else "corrupt"
        entry.error = exc.message
        return entry
    except LogUnreadable as exc:
        entry.status = "corrupt" if exc.code == "not-a-session-log" else "unreadable"
        entry.error = exc.message
        return entry
    except MemoryError:
        entry.status, entry.error = "unreadable", "out of memory while decoding"
        return entry
    except Exception as exc:  # a reader bug must not take the browser down
        entry.status, entry.error = "unreadable", f"internal error: {type(exc).__name__}: {exc}"
        return entry
    apply_header(entry, log.header)
    entry.events, entry.torn = len(log), log.raw.torn is not None
    entry.error = None
    if not log.accepted:
        entry.status, entry.error = "rejected", log.rejection.message
        return entry
    try:
        diag = diagnose(log)
    except Exception as exc:
        entry.status, entry.error = "unreadable", f"internal error: {type(exc).__name__}: {exc}"
        return entry
    preset = diag.effective_preset
    entry.effective_preset = preset if isinstance(preset, str) else entry.agent_preset
    v = diag.verdict
    entry.verdict_kind = v.kind if v else None
    entry.verdict_call_id = v.call_id if v else None
    entry.verdict_message = v.message if v else None
    entry.last_turn_outcome = _last_outcome(log, diag)
    entry.tools_called = frozenset(p.name for p in diag.pairing.tools.values() if p.open is not None and p.name)
    if diag.corrupt:
        entry.status = "corrupt"
    elif not len(log):
        entry.status = "empty"
    elif entry.torn:
        entry.status = "torn"
    elif entry.last_turn_outcome is None:
        entry.status = "idle"  # events, but no turn ever started
    else:
        entry.status = "open-turn" if entry.last_turn_outcome == "open" else entry.last_turn_outcome
    return entry


def _last_outcome(log, diag) -> str | None:
    if diag.pairing.state.open_turn_index is not None:
        return "open"
    for t, _index, _seq, data in reversed(log.res.facts):
        if t == "turn/end":
            reason = data[1]  # (turn, reason): facts.py
            kind = reason.get("kind") if isinstance(reason, dict) else reason
            return kind if isinstance(kind, str) and kind else "ended"
    return None


def build_tree(entries: list[SessionEntry]) -> list[SessionEntry]:
    """Nest subagent children under their parents by header ``parentSession``; return the roots,
    newest first.

    As dsh's own tree does (origin "subagent"), only subagent children nest; a user fork names a
    parent too but is a top-level session of its own, listed with a note saying where it was
    forked from. Parents are looked up across all project directories. A child whose parent is
    not listed (or that would close a cycle) stays top-level with ``orphan`` and a note.
    Linear in the number of entries, never recursive: a chain of 20,000 sessions is one pass.
    """
    by_id: dict[str, SessionEntry] = {}
    for e in entries:
        e.children = []
        if e.session_id is not None:
            by_id.setdefault(e.session_id, e)
    looped = _on_cycles(entries, by_id)
    roots: list[SessionEntry] = []
    for e in entries:
        parent = by_id.get(e.parent_session) if e.parent_session else None
        if e.parent_session and not e.subagent:
            seed = f" at seq {e.seed_length}" if e.seed_length is not None else ""
            note = (f"fork of {e.parent_session}{seed}" if e.forked
                    else f"names {e.parent_session} as parent but has no origin: not a subagent child")
            if note not in e.notes:
                e.notes.append(note)
            roots.append(e)
            continue
        e.orphan = bool(e.parent_session) and (parent is None or id(e) in looped)
        if e.orphan:
            note = (f"parent session {e.parent_session} not found" if parent is None
                    else f"parent chain through {e.parent_session} loops back to this session")
            if note not in e.notes:
                e.notes.append(note)
            roots.append(e)
        elif parent is not None:
            parent.children.append(e)
        else:
            roots.append(e)
    _sort_tree(roots)
    return roots


def _on_cycles(entries: list[SessionEntry], by_id: dict[str, SessionEntry]) -> set[int]:
    """The ids (``id()``) of the entries whose parentSession chain comes back to themselves.

    One walk up from each entry not seen yet, marking as it goes: a walk that meets its own
    path has found a loop (the path from there on); one that meets an earlier walk stops.
    Each entry is walked once over the whole forest.
    """
    done: set[int] = set()
    looped: set[int] = set()
    for start in entries:
        path: dict[int, int] = {}  # id(entry) -> position on this walk
        order: list[SessionEntry] = []
        cur: SessionEntry | None = start
        while cur is not None and id(cur) not in done and id(cur) not in path:
            path[id(cur)] = len(order)
            order.append(cur)
            cur = by_id.get(cur.parent_session) if cur.parent_session else None
        if cur is not None and id(cur) in path:
            looped.update(id(e) for e in order[path[id(cur)]:])
        done.update(path)
    return looped


def _sort_tree(nodes: list[SessionEntry]) -> None:
    """Every sibling list newest first (an explicit stack: chains can be any length)."""
    stack = [nodes]
    while stack:
        level = stack.pop()
        level.sort(key=lambda e: e.sort_time, reverse=True)
        stack.extend(n.children for n in level if n.children)


def walk_tree(roots: list[SessionEntry], depth: int = 0):
    """Pre-order (entry, depth) over a tree from build_tree (an explicit stack, not recursion)."""
    stack = [iter(roots)]  # one iterator per level: the level is the stack's height
    while stack:
        e = next(stack[-1], None)
        if e is None:
            stack.pop()
            continue
        yield e, depth + len(stack) - 1
        if e.children:
            stack.append(iter(e.children))


MAX_TREE_INDENT = 16  # tree levels drawn as indentation; a deeper row says its depth instead


def tree_marker(depth: int, step: str = "  ") -> str:
    """A row's tree prefix: ``↳ `` under ``depth - 1`` steps of indentation (nothing at depth 0).
    Past MAX_TREE_INDENT the indentation stops growing and the arrow names the depth, so a
    chain of 20,000 sessions prints rows of bounded width (not 40,000 spaces at the end)."""
    if depth <= 0:
        return ""
    if depth <= MAX_TREE_INDENT:
        return step * (depth - 1) + "↳ "
    return step * (MAX_TREE_INDENT - 1) + f"↳{depth} "


def group_by_project(entries: list[SessionEntry]) -> dict[str, list[SessionEntry]]:
    """Entries keyed by project directory name, groups ordered by their newest entry."""
    groups: dict[str, list[SessionEntry]] = {}
    for e in sorted(entries, key=lambda e: e.sort_time, reverse=True):
        groups.setdefault(e.project_dir, []).append(e)
    return groups


def filter_entries(entries: list[SessionEntry], text: str) -> list[SessionEntry]:
    """Entries matching every whitespace-separated term (case-insensitive) in id, cwd, project, preset, status."""
    terms = text.casefold().split()
    if not terms:
        return list(entries)
    out = []
    for e in entries:
        hay = "\n".join(str(x) for x in (e.session_id, e.dir_name, e.cwd, e.project_display, e.project_dir,
                                         e.agent_preset, e.effective_preset, e.status) if x).casefold()
        if all(t in hay for t in terms):
            out.append(e)
    return out
