"""A record nested deeper than orjson reads (1,024 levels) but no deeper than dsh's reader reads is
read as dsh reads it (its tool/result pairs its call), and shown folded (issue: deep but valid JSON
called corrupt). dsh's own reader, asked with write_log and dsh-facts.mjs: 3,000 levels of data read, 3,500 refused with
"Maximum call stack size exceeded"; dsh-tui still counts such a line as unreadable."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from dsh_tui.demo import write_log
from dsh_tui.gen.builder import EventBuilder, ToolCall
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.detail import _args_sections, detail_sections
from dsh_tui.model.reading.deepjson import MAX_DEPTH, loads_deep
from dsh_tui.model.reading.session import load_session

from ..support.session_roots import header


def _deep_result_log(tmp_path, depth: int):
    """A completed turn whose one tool call's tool/result carries ``meta`` nested ``depth`` deep."""
    b = EventBuilder(1_796_000_000_000, seed=3)
    b.turn_start(1)
    b.model_step(1, 1, user="q", calls=[ToolCall("call_deep", "bash", '{"cmd":"ls"}', "done", meta="DEEP")])
    b.model_step(1, 2, text="ok")
    b.turn_end(1, "completed")
    path = tmp_path / f"deep-{depth}.jsonl"
    write_log(path, header(f"deep-{depth}", 1_796_000_000_000), b.finish(), encoding="jsonl")
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"DEEP"', b"[" * depth + b"]" * depth))  # (no serialiser writes it)
    return path


@pytest.mark.parametrize("depth", [1_100, 2_900])
def test_a_deep_record_dsh_reads_is_read_and_its_result_pairs_its_call(tmp_path, depth):
    log = load_session(_deep_result_log(tmp_path, depth), parallel=False)
    diag = diagnose(log)
    assert not log.res.corruption and log.whole and log.accepted
    assert diag.pairing.tools["call_deep"].status == "paired"
    assert diag.verdict is None  # (it was a false TOOL_UNPAIRED: the result line dropped as corrupt)
    result = next(i for i in range(len(log)) if log.type_of(i) == "tool/result")
    sections = {s.title: s.lines for s in detail_sections(log.event(result), log, diag)}
    assert "payload" not in sections  # ("cannot show this payload")
    assert any("levels folded" in line for line in sections["meta"])


def test_a_record_deeper_than_dsh_reads_is_still_unreadable(tmp_path):
    log = load_session(_deep_result_log(tmp_path, 3_500), parallel=False)
    assert [c.message for c in log.res.corruption] == ["line 14 is not valid JSON"]


def test_deep_arguments_show_the_raw_string_and_the_value_folded():
    args = '{"x":' + "[" * 2_000 + "]" * 2_000 + "}"
    raw, pretty = _args_sections("arguments", args)
    assert raw.lines == [args] and "raw string exactly as emitted" in raw.title
    assert pretty.title == "arguments: pretty JSON" and any("levels folded" in line for line in pretty.lines)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(), lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(_JSON)
def test_loads_deep_reads_what_the_stdlib_reads(value):
    for text in (json.dumps(value), json.dumps(value, indent=1, ensure_ascii=False)):
        assert loads_deep(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", "[1,]", '{"a"}', '{"a":1,}', "01", "NaN", "[", '"\x01"', "1 2", "tru",
                                  "[1 2]", '{"a" 1}', "-", "1.", ".5", "1e", "'a'", "[]]"])
def test_loads_deep_refuses_what_json_parse_refuses(text):
    with pytest.raises(ValueError):
        json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    with pytest.raises(ValueError):
        loads_deep(text)


def test_loads_deep_has_no_recursion_and_a_depth_bound():
    assert loads_deep("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(ValueError, match="deeper than"):
        loads_deep("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
