"""`s` saves one event as JSON that means what the log holds and holds no byte a terminal acts on."""

from __future__ import annotations

import json

from dsh_tui.model.reading.session import load_session
from dsh_tui.ui.export import event_json

from ..support.logs import ev


def test_saved_event_keeps_the_text_and_escapes_terminal_controls(write_jsonl):
    text = "deploy\u009b31m \u202eevil\u202c \x1b]52;c;eA==\x07 done"
    path = write_jsonl([ev("feedback/record", 0, {"text": text})])
    data = event_json(load_session(path), 0)
    for raw in (b"\xc2\x9b", "\u202e".encode(), b"\x1b", b"\x07"):
        assert raw not in data
    doc = json.loads(data)
    assert doc["event"]["data"]["text"] == text  # exact, as JSON
