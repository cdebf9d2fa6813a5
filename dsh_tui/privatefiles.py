"""New files in dsh-tui's own state folders (``$XDG_STATE_HOME/dsh-tui/reports``, ``events``, ...),
made the way the index cache and the saved views are (model/opening/privatedir.py).

The folder is opened by descriptor, component by component, never through a symlink, and used only
when it is this user's own and not writable by group or others; each file is created in it with
``O_CREAT|O_EXCL|O_NOFOLLOW`` (mode 0600), so nothing is written through a planted link, a swapped
folder or over an existing file. A refusal is an OSError (`Refused`) whose message is one line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from .model.opening import privatedir

_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_BINARY", 0))
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class Refused(OSError):
    """The folder may not be written to (a symlink, another user's, group-writable...); one line why."""


def state_home() -> Path:
    """``$XDG_STATE_HOME/dsh-tui`` (default ``~/.local/state/dsh-tui``; a relative XDG_STATE_HOME is
    ignored, as the XDG spec says)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    home = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return home / "dsh-tui"


def safe_name(text: object, default: str, limit: int = 80) -> str:
    """A file-name part from untrusted text (a session id): letters, digits, ``.``, ``_`` and ``-`` only,
    at most ``limit`` characters, never empty, never starting with ``.`` or ``-``."""
    name = _UNSAFE_NAME.sub("_", str(text))[:limit].strip("._-")
    return name or default


def create_new(directory: Path, names: Iterable[str], data: bytes, *, levels: int = 2) -> Path:
    """Write ``data`` to the first of ``names`` not yet in ``directory`` and return its path.

    The last ``levels`` components of ``directory`` are checked (made 0700 when missing): 2 for
    ``.../dsh-tui/reports``. Raises Refused when the folder is not ours to write, FileExistsError when
    every name is taken, OSError on I/O failure (a partly written file is removed)."""
    directory = Path(directory)
    try:
        fd = privatedir.open_dir(directory, levels, create=True)
    except privatedir.Untrusted as exc:
        raise Refused(str(exc)) from None
    if fd is None:
        raise Refused(f"cannot make {directory}")
    try:
        for name in names:
            if not name or name in (".", "..") or "/" in name or "\0" in name:
                raise ValueError(f"not a file name: {name!r}")
            try:
                out = os.open(name, _CREATE, 0o600, dir_fd=fd)
            except FileExistsError:
                continue  # a file or a link of that name: never followed, never replaced
            try:
                try:
                    os.fchmod(out, 0o600)  # whatever the umask
                    privatedir.write_all(out, [data])
                finally:
                    os.close(out)
            except BaseException:
                privatedir.unlink(fd, name)
                raise
            return directory / name
        raise FileExistsError(f"{directory}: every name is taken")
    finally:
        os.close(fd)
