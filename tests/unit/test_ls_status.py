"""One status for `ls` (text and JSON), the browser and the family screen (issue 34 item 3): a
session whose last turn completed but that has a verdict is not shown as merely "completed"."""

from __future__ import annotations

import json

import pytest

from dsh_tui.gen.builder import EventBuilder, ToolCall
from dsh_tui.model.sessions.discovery import fill_status, list_target
from dsh_tui.sessions.ls import main_ls

from ..support.session_roots import T0, header, write_session


def _completed(kind: str) -> list[list[dict]]:
    """One turn that completed, after a failed command, a tool error or a call without a result."""
    b = EventBuilder(T0, seed=3)
    b.turn_start(1)
    if kind == "command":
        b.command("compact", None, "compaction failed: context too small", command_id="cmd-1", kind="error")
    calls = {"tool-error": [ToolCall("call_err", "bash", '{"command":"false"}', "exit 1", is_error=True,
                                     error={"code": "EXIT_NONZERO", "message": "exit 1"})],
             "unpaired": [ToolCall("call_lost", "bash", '{"command":"sleep 1"}', None)]}.get(kind, ())
    b.model_step(1, 1, user="go", text="done", calls=calls)
    b.model_step(1, 2, text="finished")
    b.turn_end(1, "completed")
    return b.finish()


CASES = {"command": "COMMAND_FAILED", "tool-error": "TOOL_ERROR", "unpaired": "TOOL_UNPAIRED"}


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "sessions"
    for k, kind in enumerate(CASES):
        write_session(root, header(f"sess-{kind}", T0 + k), _completed(kind))
    write_session(root, header("sess-fine", T0 + 9))
    return root


def test_ls_text_json_and_browser_say_failed_with_the_verdict(root, capsys):
    assert main_ls([str(root)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert main_ls([str(root), "--format", "json"]) == 0
    sessions = {s["id"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    for kind, verdict in CASES.items():
        sid = f"sess-{kind}"
        got = sessions[sid]
        assert got["status"] == "completed" and got["verdict_kind"] == verdict  # the last turn did complete
        assert got["shown_status"] == "failed"
        row = next(i for i, line in enumerate(text) if sid in line)
        assert " failed " in text[row] and " completed " not in text[row], text[row]
        assert text[row + 1].strip().startswith(f"verdict: {verdict}"), text[row + 1]
    fine = next(line for line in text if "sess-fine" in line)
    assert " completed " in fine and sessions["sess-fine"]["shown_status"] == "completed"


def test_the_browser_rows_show_the_same_status(root):
    from dsh_tui.sessions.browse import row_cells, session_status, status_of
    entries = {e.session_id: fill_status(e) for e in list_target(root).entries}
    for kind in CASES:
        entry = entries[f"sess-{kind}"]
        assert session_status(entry) == "failed" and status_of(entry) == ("failed", "bad")
        cells = "".join(t for t, _c in row_cells(entry, 0, "narrow"))
        assert "failed" in cells and "completed" not in cells
    assert status_of(entries["sess-fine"]) == ("completed", "ok")
