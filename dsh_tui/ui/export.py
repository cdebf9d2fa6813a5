"""Save one event, uncapped, as pretty JSON under the XDG state dir (0600, never overwrites)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..privatefiles import create_new, safe_name, state_home
from ..model.presenting.summary import light_event


def events_dir() -> Path:
    """``$XDG_STATE_HOME/dsh-tui/events`` (next to the bug reports)."""
    return state_home() / "events"


def event_json(log, index: int) -> bytes:
    ev = light_event(log, index)
    doc = {"seq": ev.seq, "index": ev.index, "record": ev.record, "storedType": ev.type,
           "packed": list(ev.packed) if ev.packed else None, "legacyShape": ev.legacy, "event": ev.event,
           "rawRecord": ev.raw.decode("utf-8", "replace")}
    # C1, bidi, DEL as \uXXXX escapes; lone surrogates as ⟨U+D83D⟩
    from ..model.presenting.checkjson import json_text
    return (json_text(doc) + "\n").encode()


def save_event_json(log, index: int, directory: Path | None = None) -> Path:
    """Write the event to ``<session id>-seq<N>-<stamp>[-n].json`` in the events folder, checked as the
    bug reports' is (privatefiles.py); raises OSError (``Refused`` with the reason) when it cannot."""
    default = directory is None
    directory = directory or events_dir()
    sid = safe_name(log.session_id or "session", "session")  # the log chooses it: no path, no dot-file
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    names = (f"{sid}-seq{log.seq_of(index)}-{stamp}{'' if n == 0 else f'-{n}'}.json" for n in range(10_000))
    return create_new(directory, names, event_json(log, index), levels=2 if default else 1)
