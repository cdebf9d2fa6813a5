"""What the explorer remembers of a log between runs: marks, filter chips and the cursor's position.

Kept per log in ``$XDG_STATE_HOME/dsh-tui/views/`` (default ``~/.local/state/dsh-tui/views``), one small
JSON file named by a hash of the log's resolved path (and ZIP member), so neither a path nor a session
id reaches a file name. The folder is opened the way the index cache's is (private, 0700, never through
a symlink; files 0600, written under a fresh name and renamed). A saved file is read as hostile: too big,
not JSON, or any field of the wrong shape, and that field is dropped (the rest is kept); nothing in it
can run code or grow memory (at most ``MAX_MARKS`` marks and ``MAX_CHIPS`` chips).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from msgspec import Struct, field
import orjson

from ..model.presenting.filterstack import MAX_CHIPS, Chip, chip_from_json
from ..model.opening import privatedir

VERSION = 1
MAX_MARKS = 10_000
MAX_BYTES = 1 << 20
KEEP = 500  # views remembered; the oldest are pruned
SUFFIX = ".json"


class ViewState(Struct):
    marks: list[int] = field(default_factory=list)  # event seqs, sorted, distinct
    chips: list[Chip] = field(default_factory=list)
    position: int | None = None  # the cursor's event seq

    def to_json(self) -> dict:
        return {"version": VERSION, "marks": self.marks[:MAX_MARKS], "chips": [c.to_json() for c in self.chips[:MAX_CHIPS]],
                "position": self.position}


def state_dir() -> Path:
    """``$XDG_STATE_HOME/dsh-tui/views`` (a relative XDG_STATE_HOME is ignored, as the XDG spec says)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    home = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return home / "dsh-tui" / "views"


def view_key(target: str | os.PathLike, member: str | None = None) -> str:
    """The file name a log's state is kept under: a hash of its resolved path and ZIP member."""
    try:
        path = os.path.realpath(target)
    except (OSError, ValueError):
        path = os.fspath(target)
    raw = os.fsencode(path) + b"\0" + (member or "").encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:40] + SUFFIX


def parse_state(data: bytes | bytearray) -> ViewState:
    """A ViewState from saved bytes; anything malformed is left out, never an exception."""
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ViewState()
    if not isinstance(obj, dict) or obj.get("version") != VERSION:
        return ViewState()
    marks = obj.get("marks")
    seqs = sorted({m for m in marks[:MAX_MARKS] if _seq(m)}) if isinstance(marks, list) else []
    chips_raw = obj.get("chips")
    chips = [c for c in map(chip_from_json, chips_raw[:MAX_CHIPS]) if c is not None] if isinstance(chips_raw, list) else []
    position = obj.get("position")
    return ViewState(seqs, chips, position if _seq(position) else None)


def load(target: str | os.PathLike, member: str | None = None) -> ViewState:
    """The saved state of a log, or an empty one (none saved, or the folder is not private)."""
    try:
        directory = privatedir.open_dir(state_dir(), 2, create=False)
    except privatedir.Untrusted:
        return ViewState()
    if directory is None:
        return ViewState()
    try:
        data = privatedir.read_file(directory, view_key(target, member), MAX_BYTES)
    finally:
        os.close(directory)
    return ViewState() if data is None else parse_state(data)


def save(target: str | os.PathLike, state: ViewState, member: str | None = None) -> str | None:
    """Keep ``state`` for the log; None when saved, else one line saying why not (shown as a notice)."""
    try:
        directory = privatedir.open_dir(state_dir(), 2, create=True)
    except privatedir.Untrusted as exc:
        return f"marks and filters not saved: {exc}"
    if directory is None:
        return f"marks and filters not saved: cannot make {state_dir()}"
    try:
        privatedir.write_new(directory, view_key(target, member), [orjson.dumps(state.to_json())])
        privatedir.prune(directory, SUFFIX, KEEP, tmp_age=3600)
    except OSError as exc:
        return f"marks and filters not saved: {exc.strerror or exc}"
    finally:
        os.close(directory)
    return None


def _seq(value) -> bool:
    return type(value) is int and 0 <= value < 1 << 53
