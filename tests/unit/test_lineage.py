"""Parent and delegated children in one session root: child failures roll up, tool links resolve."""

from __future__ import annotations

import json
from pathlib import Path

from dsh_tui.cli import main
from dsh_tui.demo import EventBuilder
from dsh_tui.gen.builder import ToolCall
from dsh_tui.model.sessions.entry import SessionEntry
from dsh_tui.model.sessions.lineage import Relative, find_lineage, lineage_lines, session_root, tree_guides

from ..support.hostile_listings import bomb_child_root, chain_id, chain_root, chain_zip, deep_header_in_root
from ..support.session_roots import (T0, TREE_GRANDKID, TREE_KID_A, TREE_KID_B, TREE_PARENT, build_tree_family, header,
                            write_session)

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


def test_descendants_are_listed_depth_first_with_their_parents(tmp_path, capsys):
    """Regression: a grandchild of the first child was listed after the second child (level by
    level, no parent per row), so the children screen drew it under the wrong parent."""
    paths = build_tree_family(tmp_path / "sessions")
    lin = find_lineage(paths["parent"], TREE_PARENT, fill=False)
    assert [c.entry.session_id for c in lin.children] == [TREE_KID_A, TREE_GRANDKID, TREE_KID_B]
    assert [c.parent_id for c in lin.children] == [TREE_PARENT, TREE_KID_A, TREE_PARENT]
    assert [c.depth for c in lin.children] == [1, 2, 1]
    assert tree_guides(lin.children) == ["├─ ", "│  └─ ", "└─ "]
    assert lineage_lines(lin) == [f"child: {TREE_KID_A} [unknown] no failure found",
                                  f"  child: {TREE_GRANDKID} [unknown] no failure found",
                                  f"child: {TREE_KID_B} [unknown] no failure found"]
    assert main(["check", str(paths["parent"]), "--format", "json"]) == 0
    children = json.loads(capsys.readouterr().out)["lineage"]["children"]
    assert [(c["id"], c["parent"], c["depth"]) for c in children] == [
        (TREE_KID_A, TREE_PARENT, 1), (TREE_GRANDKID, TREE_KID_A, 2), (TREE_KID_B, TREE_PARENT, 1)]
    assert {"id", "path", "member", "depth", "status", "verdict_kind", "verdict_call_id",
            "verdict_message"} <= set(children[0])
    mid = find_lineage(paths["kid_a"], TREE_KID_A, fill=False)
    assert mid.parent.session_id == TREE_PARENT
    assert [(c.entry.session_id, c.parent_id, c.depth) for c in mid.children] == [(TREE_GRANDKID, TREE_KID_A, 1)]


def test_tree_guides_for_deeper_trees():
    def rel(sid, parent, depth):
        return Relative(SessionEntry(Path(sid), "", "", session_id=sid), depth, parent_id=parent)
    rows = [rel("a", "r", 1), rel("a1", "a", 2), rel("a1x", "a1", 3), rel("a2", "a", 2), rel("b", "r", 1),
            rel("b1", "b", 2), rel("b1x", "b1", 3)]
    assert tree_guides(rows) == ["├─ ", "│  ├─ ", "│  │  └─ ", "│  └─ ", "└─ ", "   └─ ", "      └─ "]
    assert tree_guides([]) == []


def test_siblings_with_equal_created_at_are_ordered_by_id(tmp_path):
    root = tmp_path / "sessions"
    parent = write_session(root, header("p", T0))
    for sid in ("k-2", "k-1", "k-3"):
        write_session(root, header(sid, T0 + 10, parentSession="p", origin="subagent", delegationDepth=1))
    lin = find_lineage(parent, "p", fill=False)
    assert [c.entry.session_id for c in lin.children] == ["k-1", "k-2", "k-3"]


def test_truncation_keeps_the_nearest_descendants_and_lists_them_as_a_tree(tmp_path, monkeypatch):
    monkeypatch.setattr("dsh_tui.model.sessions.lineage.MAX_CHILDREN", 3)
    root = tmp_path / "sessions"
    parent = write_session(root, header("p", T0))
    for sid, created, par, depth in (("a", 1, "p", 1), ("b", 2, "p", 1), ("a1", 3, "a", 2), ("a2", 4, "a", 2)):
        write_session(root, header(sid, T0 + created, parentSession=par, origin="subagent", delegationDepth=depth))
    lin = find_lineage(parent, "p", fill=False)
    assert lin.truncated  # a deep first branch does not push out the later direct child
    assert [(c.entry.session_id, c.parent_id) for c in lin.children] == [("a", "p"), ("a1", "a"), ("b", "p")]


def test_children_are_read_under_the_callers_plaintext_limit(tmp_path):
    """A child that decodes to 4 MiB from a few hundred bytes is refused under a 1 MiB limit, as the
    parent itself would be (before: read in full under the 4 GiB default, whatever the caller said)."""
    parent, _child = bomb_child_root(tmp_path / "sessions")
    (rel,) = find_lineage(parent, "bomb-parent", max_plain=1 << 20).children
    assert rel.entry.status == "unreadable" and "decompresses to more than 1,048,576 bytes" in rel.entry.error
    (rel,) = find_lineage(parent, "bomb-parent", max_plain=8 << 20).children
    assert rel.entry.status == "idle" and rel.entry.events == 1


def test_a_deep_header_beside_the_family_does_not_break_it(tmp_path):
    root = tmp_path / "sessions"
    paths = chain_root(root, 2)
    deep_header_in_root(root, key="parentSession")  # its parentSession is no string: not anyone's child
    lin = find_lineage(paths[0], chain_id(0))
    assert [(c.entry.session_id, c.entry.status) for c in lin.children] == [(chain_id(1), "empty")]
    up = find_lineage(paths[1], chain_id(1))
    assert up.parent.session_id == chain_id(0)


def test_an_export_zips_family_is_read_through_one_open(tmp_path, monkeypatch):
    import zipfile
    path = chain_zip(tmp_path / "dsh-session-chain.zip", 100)
    opened = []
    real = zipfile.ZipFile.__init__

    def counting(self, *a, **k):
        opened.append(a[0] if a else k.get("file"))
        real(self, *a, **k)
    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting)
    lin = find_lineage(path, chain_id(0))
    assert len(lin.children) == 64 and lin.truncated and {c.entry.status for c in lin.children} == {"empty"}
    assert len(opened) == 2  # is_export_zip's look, then the listing and its 64 reads
