"""Save one event, uncapped, as pretty JSON under the XDG state dir (0600, never overwrites)."""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path


from ..clipboard import report_dir
from ..model.presenting.summary import light_event


def events_dir() -> Path:
    """``$XDG_STATE_HOME/dsh-tui/events`` (next to the bug reports)."""
    return report_dir().parent / "events"


def event_json(log, index: int) -> bytes:
    ev = light_event(log, index)
    doc = {"seq": ev.seq, "index": ev.index, "record": ev.record, "storedType": ev.type,
           "packed": list(ev.packed) if ev.packed else None, "legacyShape": ev.legacy, "event": ev.event,
           "rawRecord": ev.raw.decode("utf-8", "replace")}
    from ..model.presenting.report import json_text  # C1, bidi, DEL as \uXXXX escapes; lone surrogates as ⟨U+D83D⟩
    return (json_text(doc) + "\n").encode()


def save_event_json(log, index: int, directory: Path | None = None) -> Path:
    directory = directory or events_dir()
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    sid = re.sub(r"[^A-Za-z0-9._-]+", "_", str(log.session_id or "session"))[:80].strip("._") or "session"
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    data = event_json(log, index)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for n in range(10_000):
        path = directory / f"{sid}-seq{log.seq_of(index)}-{stamp}{'' if n == 0 else f'-{n}'}.json"
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        return path
    raise FileExistsError(str(directory))
