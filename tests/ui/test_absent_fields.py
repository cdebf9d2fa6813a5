"""Fields a log leaves out say "absent" on screen, never Python's None, and an absent depth claims nothing.

The log here lacks what it can: the header has no agentPreset and no delegationDepth (dsh rejects
it; --lenient opens it), the events miss their callIds, names, reasons and paths. Every place the
explorer shows them is read: the header, each row, each event's detail, the pairs pane and the checklist.
"""

from __future__ import annotations

import re

import pytest
from textual.widgets import OptionList

from dsh_tui.model.presenting.summary import field_text, labelled, shown
from dsh_tui.ui.screens.checklist import ChecklistScreen
from dsh_tui.ui.widgets.header import HeaderPanel

from ..support.logs import ev, lines_of
from ..support.app import detail_text, make_app, ready, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")

PYTHON_NONE = re.compile(r"\bNone\b")

BARE_HEADER = {"type": "session", "version": 0, "id": "sess-bare", "createdAt": 1790000000000, "cwd": "/home/u/p"}


def bare_records() -> list[dict]:
    """Events missing what they can without changing the pairing: names, reasons, kinds, paths, types."""
    return [
        ev("turn/start", 0, {"turn": 1}),
        ev("assistant/chunk", 1, {"turn": 1, "step": 1, "chunk": {"type": "block-start", "index": 0}}),
        ev("assistant/message", 2, {"turn": 1, "step": 1,
                                    "message": {"content": [{"type": "tool-call", "id": "c1"}, {"foo": 1}]}}),
        ev("tool/call", 3, {"turn": 1, "step": 1, "callId": "c1"}),
        ev("tool/result", 4, {"turn": 1, "step": 1, "message": {"source": {"callId": "c1"}},
                              "meta": {"diffs": [{"newText": "a"}]}}),
        ev("approval/decided", 5, {"id": "a1", "outcome": "denied"}),
        ev("request/header", 6, {}),
        ev("turn/end", 7, {"turn": 1, "reason": {}}),
    ]


def keyless_records() -> list[dict]:
    """Events without the ids the pairing keys on (the pairing's own text for them is the model's)."""
    return [ev("tool/call", 0, {}), ev("tool/result", 1, {"meta": {"diffs": [{"newText": "a"}]}}),
            ev("assistant/message", 2, {"message": {"content": [{"type": "tool-call"}]}}),
            ev("approval/decided", 3, {}), ev("turn/end", 4, {"reason": {}})]


def test_the_helpers_spell_absence_and_json_not_python():
    assert shown(None) == "absent" and shown(True) == "true" and shown("x") == "x" and shown(3) == "3"
    assert field_text({}, "k") == "absent" and field_text({"k": None}, "k") == "null"
    assert field_text({"k": False}, "k") == "false"
    assert field_text(None, "k") == "absent"
    assert labelled({}, "callId") == "callId absent" and labelled({"callId": None}, "callId") == "callId null"
    assert labelled({"callId": "c1"}, "callId") == "c1"


def test_rows_and_details_of_events_without_ids_say_absent(tmp_path):
    from dsh_tui.model.reading.session import load_session
    from dsh_tui.model.presenting.detail import detail_sections
    from dsh_tui.model.presenting.summary import light_event, row_summary

    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([{**BARE_HEADER, "delegationDepth": 0}, *keyless_records()])) + b"\n")
    log = load_session(path)
    rows = [row_summary(light_event(log, i)).text for i in range(len(log))]
    assert rows[0].startswith("name absent callId absent") and rows[1].startswith("callId absent ✓ [diff absent]")
    assert "name absent(id absent)" in rows[2] and rows[3] == "outcome absent (id absent)"
    assert rows[4] == "turn absent kind absent"
    details = [line for i in range(len(log)) for s in detail_sections(light_event(log, i), log)
               for line in [s.title, *s.lines] if not s.title.startswith("raw record")]
    assert "callId absent   name absent" in details and "+++ b/absent" in details
    assert not any(PYTHON_NONE.search(line) for line in rows + details), rows + details


async def test_absent_header_fields_and_event_fields_never_show_none(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([BARE_HEADER, *bare_records()])) + b"\n")
    app = make_app(path, lenient=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        header = app.query_one(HeaderPanel).plain()
        assert "preset absent" in header and "depth absent" in header
        assert "top-level" not in header  # nothing says it is top-level: dsh requires the depth
        seen = [header]
        for i in range(len(app.log_)):  # every row and its detail
            app.jump_to(i)
            await settle(app, pilot)
            seen += [app.events.row_plain(app.events.cursor), detail_text(app)]
        pane = app.pairs_pane
        seen += [pane.row_plain(r) for r in range(pane.row_count())]
        await pilot.press("t")
        await settle(app, pilot)
        assert isinstance(app.screen, ChecklistScreen)
        options = app.screen.query_one(OptionList)
        checklist = "\n".join(str(options.get_option_at_index(k).prompt) for k in range(options.option_count))
        assert "delegationDepth absent" in checklist and "agentPreset absent" in checklist
        seen.append(checklist)
        shown_text = "\n".join(seen)
        assert "name absent" in shown_text and "blockType absent" in shown_text and "kind absent" in shown_text
        assert not PYTHON_NONE.search(shown_text), [line for line in shown_text.splitlines()
                                                     if PYTHON_NONE.search(line)]


async def test_a_delegated_child_without_a_depth_says_absent(tmp_path):
    header = {**BARE_HEADER, "origin": "subagent", "parentSession": "sess-parent"}
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([header, *bare_records()[:1]])) + b"\n")
    app = make_app(path, lenient=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await settle(app, pilot)
        text = app.query_one(HeaderPanel).plain()
        assert "DELEGATED child session: depth absent, parent sess-parent" in text
        family = [line for line in text.split("\n") if line.startswith("parent ")]
        assert family and "depth absent" in family[0], text  # the family line under the verdict
        assert not PYTHON_NONE.search(text), text
