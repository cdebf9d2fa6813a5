"""Parent and delegated children in one session root: child failures roll up, tool links resolve."""

from __future__ import annotations

import json

from dsh_tui.cli import main
from dsh_tui.demo import EventBuilder
from dsh_tui.gen.builder import ToolCall
from dsh_tui.model.lineage import find_lineage, session_root

from .session_roots import T0, header, write_session

TOOLS = [{"name": "read", "description": "", "parameters": {}}]


def _parent_batches():
    b = EventBuilder(T0, seed=1)
    b.turn_start(1)
    b.model_step(1, 1, user="go", header={"tools": TOOLS},
                 calls=[ToolCall("call_sub", "subagent_deploy", '{"task":"deploy"}', "child finished")])
    b.turn_end(1, "completed")
    return b.finish()


def _child_batches():
    b = EventBuilder(T0 + 1000, seed=2)
    b.turn_start(1)
    b.model_step(1, 1, user="deploy", header={"tools": [{"name": "subagent_deploy", "description": "",
                                                        "parameters": {}}]},
                 calls=[ToolCall("call_child", "subagent_deploy", '{"x":1}', None)], end=False)
    return b.finish()  # crash: the call started, no result, turn open


def build(tmp_path):
    root = tmp_path / "sessions"
    parent = write_session(root, header("parent-1", T0), _parent_batches())
    child = write_session(root, header("child-1", T0 + 1000, parentSession="parent-1", origin="subagent",
                                       delegationDepth=1), _child_batches())
    write_session(root, header("other", T0 + 5))
    return root, parent, child


def test_session_root_from_layout(tmp_path):
    root, parent, _ = build(tmp_path)
    assert session_root(parent) == root
    assert session_root(tmp_path / "loose.jsonl") is None


def test_lineage_finds_children_and_their_verdicts(tmp_path):
    root, parent, child = build(tmp_path)
    lin = find_lineage(parent, "parent-1")
    assert [c.entry.session_id for c in lin.children] == ["child-1"]
    assert lin.children[0].entry.verdict_kind == "TOOL_OUTCOME_UNKNOWN"
    assert "subagent_deploy" in lin.children[0].tools_called
    up = find_lineage(child, "child-1", fill=False)
    assert up.parent.session_id == "parent-1" and up.children == []


def test_check_rolls_up_child_failure_and_links_the_tool(tmp_path, capsys):
    _, parent, _ = build(tmp_path)
    rc = main(["check", str(parent), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1  # the parent itself completed, but its child crashed
    assert data["lineage"]["child_failures"] == ["child-1"]
    flagged = [f for f in data["findings"] if f["kind"] == "NOT_IN_TOOL_SET"]
    assert flagged and flagged[0]["child_session"] == "child-1" and "child-1 calls it" in flagged[0]["message"]
    main(["check", str(parent)])
    text = capsys.readouterr().out
    assert "CHILD FAILURE: child-1 [open-turn] TOOL_OUTCOME_UNKNOWN call_child" in text
    assert main(["check", str(parent), "--no-lineage", "--format", "json"]) == 1  # NOT_IN_TOOL_SET warning
    assert json.loads(capsys.readouterr().out)["lineage"] is None
