"""The JSON tree (model/presenting/jsontree.py): fold and unfold without recursion, pages of children,
a string holding JSON unfolded with its raw text kept, search inside folded nodes, and copied paths that
jq (where installed) follows back to the value shown."""

from __future__ import annotations

import json
import shutil
import subprocess

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dsh_tui.model.presenting import jsontree
from dsh_tui.model.presenting.jsontree import JsonTree

JQ = shutil.which("jq")

scalars = (st.none() | st.booleans() | st.integers(-(2**53), 2**53)
           | st.floats(allow_nan=False, allow_infinity=False, width=32)
           | st.text(st.characters(blacklist_categories=("Cs",)), max_size=8))
keys = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4)
                      | inner.map(lambda v: json.dumps(v) if isinstance(v, (dict, list)) else v), max_leaves=20)


@pytest.mark.skipif(JQ is None, reason="jq is not installed")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.dictionaries(keys, values, max_size=4), data=st.data())
def test_the_copied_jq_path_returns_the_value_shown(doc, data):
    tree = JsonTree(doc)
    tree.unfold_all()
    rows = [r for r in tree.rows if not r.more]
    row = rows[data.draw(st.integers(0, len(rows) - 1))]
    done = subprocess.run([JQ, "-c", tree.jq_path(row)], input=json.dumps(doc).encode(), capture_output=True, timeout=30)
    assert done.returncode == 0, (tree.jq_path(row), done.stderr)
    assert _numbers_as_floats(json.loads(done.stdout)) == _numbers_as_floats(json.loads(tree.value_text(row)))
    if row.raw is not None:  # the raw string is one step back along the path, byte for byte
        back = tree.jq_path(row).rsplit(" | fromjson", 1)[0]
        raw = subprocess.run([JQ, back], input=json.dumps(doc).encode(), capture_output=True, timeout=30)
        assert json.loads(raw.stdout) == row.raw


@pytest.mark.parametrize("key, path", [("E0", '.["E0"]'), ("e10", '.["e10"]'), ("E", ".E"), ("e0x", ".e0x"),
                                       ("E_1", ".E_1"), ("if", ".if"),
                                       ("A\n", '.["A\\n"]')])
def test_a_key_jq_reads_as_a_number_is_quoted(key, path):
    doc = {key: {"n": 5}}
    tree = JsonTree(doc)
    tree.unfold_all()
    row = next(r for r in tree.rows if r.key == key)
    assert tree.jq_path(row) == path
    if JQ is not None:  # jq 1.6 reads .E0 as a numeric literal and fails, .A\n as .A (null here)
        done = subprocess.run([JQ, "-c", path], input=json.dumps(doc).encode(), capture_output=True, timeout=30)
        assert done.returncode == 0 and json.loads(done.stdout) == {"n": 5}


def _numbers_as_floats(v):
    """jq prints a double with 17 significant digits (4.8e16 as an integer): compare numbers as doubles."""
    if isinstance(v, dict):
        return {k: _numbers_as_floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_numbers_as_floats(x) for x in v]
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def test_json_path_names_keys_and_indices():
    tree = JsonTree({"args": {"files": [{"path": "a"}, {"path": "b"}, {"path": "c"}]}, "odd key": 1})
    tree.unfold_all()
    by = {tree.json_path(r): r for r in tree.rows}
    assert by["$.args.files[2].path"].value == "c"
    assert by['$["odd key"]'].value == 1


def test_a_json_string_unfolds_and_keeps_its_raw_text():
    raw = '{"command":  "ls",\n "n": [1, 2]}'  # spacing a re-dump would lose
    tree = JsonTree({"data": {"arguments": raw}})
    tree.unfold_all()
    row = next(r for r in tree.rows if r.key == "arguments")
    assert row.parsed and row.value == {"command": "ls", "n": [1, 2]}
    assert tree.raw_text(row) == raw
    assert tree.jq_path(row) == ".data.arguments | fromjson"


def test_an_invalid_json_string_stays_a_string():
    tree = JsonTree({"arguments": '{"command": "ls"'})
    row = tree.rows[1]
    assert not row.parsed and not row.container and row.value == '{"command": "ls"'


def test_children_come_a_page_at_a_time():
    tree = JsonTree(list(range(jsontree.PAGE * 2 + 7)), open_levels=1)
    assert len(tree.rows) == 1 + jsontree.PAGE + 1 and tree.rows[-1].more
    tree.unfold(len(tree.rows) - 1)
    assert [r.key for r in tree.rows[1:] if not r.more] == list(range(2 * jsontree.PAGE))
    tree.unfold(len(tree.rows) - 1)
    assert [r.key for r in tree.rows[1:]] == list(range(2 * jsontree.PAGE + 7))


def test_fold_closes_the_node_or_its_parent():
    tree = JsonTree({"a": {"b": {"c": 1}}, "z": 2})
    tree.unfold_all()
    c = next(k for k, r in enumerate(tree.rows) if r.key == "c")
    b = tree.fold(c)  # on a leaf: its parent closes, the cursor goes to it
    assert tree.rows[b].key == "b" and not tree.rows[b].open
    assert [r.key for r in tree.rows] == [None, "a", "b", "z"]


def deep(n: int):
    v: object = "bottom"
    for _ in range(n):
        v = {"k": [v]}
    return v


def test_a_10000_deep_value_unfolds_searches_and_copies_without_recursion():
    tree = JsonTree(deep(10_000))
    tree.unfold_all()
    assert 10_000 < len(tree.rows) <= jsontree.EXPAND_ALL_ROWS + 10  # bounded
    last = tree.rows[-1]
    assert tree.jq_path(last).startswith('.k[0].k[0]')
    assert tree.value_text(tree.rows[0]).endswith('"bottom"]}' + "]}" * 9_999)
    tree.fold_all()
    hit = tree.search("bottom", 0)
    assert hit is not None and tree.rows[hit].value == "bottom"


def test_a_1mb_argument_opens_as_a_tree():
    args = orjson.dumps({"files": [{"path": f"src/f{i}.py", "text": "x" * 100} for i in range(8_000)]}).decode()
    assert len(args) > 1_000_000
    tree = JsonTree({"data": {"arguments": args}})
    row = next(r for r in tree.rows if r.key == "arguments")
    assert row.parsed and tree.raw_text(row) == args
    assert len(tree.rows) < 2 * jsontree.PAGE


def test_search_finds_keys_and_values_inside_folded_nodes():
    tree = JsonTree({"a": {"b": {"needle_key": 1}}, "c": [0, {"d": "has NEEDLE"}]}, open_levels=1)
    k = tree.search("needle", 0)
    assert tree.rows[k].key == "needle_key"
    k2 = tree.search("needle", k)
    assert tree.rows[k2].value == "has NEEDLE"
    assert tree.search("absent", 0) is None


def test_the_first_levels_open_a_page_of_rows_at_most():
    tree = JsonTree([[0] * 500 for _ in range(500)])  # 250,000 leaves two levels down
    assert len(tree.rows) <= 2 * jsontree.PAGE + 2
