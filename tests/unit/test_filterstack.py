"""Stacked include/exclude filter chips: parsing, the set algebra over a real log, saved-state round trips."""

from __future__ import annotations

import pytest

from dsh_tui.demo import write_demo
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.filterstack import (Chip, apply_chips, chip_from_json, chip_indices, describe,
                                                  parse_chip)
from dsh_tui.model.reading.search import find_all
from dsh_tui.model.reading.session import load_session


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory):
    log = load_session(write_demo(tmp_path_factory.mktemp("demo") / "demo.jsonl.zstd"))
    return log, diagnose(log)


def hits(log):
    return lambda needle: find_all(log, needle).indices


def types_of(log, indices):
    return {log.event(i).event["type"] for i in indices}


def test_a_chip_is_typed_as_field_value_with_a_sign():
    assert parse_chip("deploy") == Chip("text", "deploy", True)
    assert parse_chip("-type:assistant/chunk") == Chip("type", "assistant/chunk", False)
    assert parse_chip("+tool:bash") == Chip("tool", "bash", True)
    assert parse_chip("url:http://x") == Chip("text", "url:http://x")  # not a field: the whole text
    assert parse_chip("\x1b]0;x\x07a").value.isprintable()
    for bad in ("", "-", "type:", "x" * 201):
        with pytest.raises(ValueError):
            parse_chip(bad)


def test_chips_include_any_and_exclude_every(demo_log):
    log, diag = demo_log
    find = hits(log)
    chunks = Chip("type", "assistant/chunk", include=False)
    shown = apply_chips(log, diag, [chunks], find)
    assert "assistant/chunk" in types_of(log, range(len(log)))
    assert "assistant/chunk" not in types_of(log, shown) and len(shown) < len(log)
    tools = Chip("type", "tool/*")
    shown = apply_chips(log, diag, [tools], find)
    assert types_of(log, shown) <= {"tool/call", "tool/result"} and shown
    both = apply_chips(log, diag, [tools, Chip("type", "turn/*")], find)
    assert set(both) == set(shown) | set(chip_indices(log, diag, Chip("type", "turn/*"), find))
    assert apply_chips(log, diag, [tools.toggled()], find) is None  # a chip switched off shows everything
    assert list(apply_chips(log, diag, [tools, tools.toggled()], find)) == list(shown)


def test_a_tool_chip_keeps_the_calls_results_and_asks_of_that_tool(demo_log):
    log, diag = demo_log
    names = {p.name for p in diag.pairs if p.kind == "tool"}
    name = sorted(n for n in names if n)[0]
    shown = set(chip_indices(log, diag, Chip("tool", name), hits(log)))
    expected = {i for p in diag.pairs if p.kind == "tool" and p.name == name for i in (p.ask, p.open, p.close) if i is not None}
    assert shown == expected and shown
    assert not chip_indices(log, diag, Chip("tool", "no-such-tool"), hits(log))


def test_a_text_chip_uses_the_search(demo_log):
    log, diag = demo_log
    call = next(p for p in diag.pairs if p.kind == "tool")
    shown = apply_chips(log, diag, [Chip("text", call.key.upper())], hits(log))
    assert call.open in shown and len(shown) < len(log)
    minus = apply_chips(log, diag, [Chip("text", call.key, include=False)], hits(log))
    assert call.open not in minus and len(minus) == len(log) - len(shown)


def test_chips_read_back_only_when_well_formed():
    chip = Chip("tool", "bash", False, False)
    assert chip_from_json(chip.to_json()) == chip
    for bad in (None, [], {"field": "sql", "value": "x", "include": True, "on": True},
                {"field": "text", "value": "", "include": True, "on": True},
                {"field": "text", "value": 3, "include": True, "on": True},
                {"field": "text", "value": "x", "include": 1, "on": True}):
        assert chip_from_json(bad) is None
    assert describe([Chip("text", "a"), Chip("type", "b", False, False)]) == "+text:a (-type:b)"
