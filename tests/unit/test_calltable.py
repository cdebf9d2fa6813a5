"""The per-call usage table (model/columns/calltable.py) reads as the dict of (turn, step) it
stands for, whatever a log holds there: the usual two small ints (held as one int), a crafted true,
1.0, -0.0, NaN, a string, None, a negative or huge number; and two parts of a log merged, through
the pipe's form, equal one table of the whole."""

from __future__ import annotations

import pytest

import marshal

from hypothesis import given, strategies as st

from dsh_tui.model.columns.calltable import CallTable

_PART = st.one_of(st.integers(0, 4), st.integers(0, 4), st.sampled_from([True, False, 1.0, -0.0, 1.5, 2**31, -1, 2**70]),
                  st.just(float("nan")), st.sampled_from(["x", "[1]"]), st.none())
_PUT = st.tuples(st.tuples(_PART, _PART), st.booleans())


def _table(puts: list, seq0: int = 0) -> CallTable:
    table = CallTable()
    for seq, (key, chunk) in enumerate(puts, seq0):
        table.put(key, seq, (seq, 1, 0, 0, 0), chunk)
    return table


def _shown(items) -> list:
    return [repr(x) for x in items]  # (True is not 1, 1.0 not 1; a NaN's repr equals another's)


@given(st.lists(_PUT, max_size=30), st.integers(0, 30))
def test_the_table_folds_as_dshs_meter_and_two_parts_merge_into_the_whole(puts, cut) -> None:
    """dsh's meter: a sample replaces the previous one only when that is the same call's; else it adds
    (a call whose sample comes back after another's is counted again, under its first-seen key)."""
    first: dict = {}  # a call -> the key it was first seen as (a dict keeps that)
    runs: list = []  # [key, value] per run of samples of one call
    for seq, (key, chunk) in enumerate(puts):
        shown = first.setdefault(key, key)
        value = (seq, (seq, 1, 0, 0, 0), chunk)
        if runs and runs[-1][2] == key:
            runs[-1][1] = value
        else:
            runs.append([shown, value, key])
    whole = _table(puts)
    assert _shown(whole.items()) == _shown((k, v) for k, v, _ in runs) and len(whole) == len(runs)
    for key, value, _ in runs:
        if key == key and key not in [r[0] for r in runs[:runs.index([key, value, _])]]:
            assert whole[key] == value and whole.output(*key) == 1  # a call's first run, by its key
    head = _table(puts[:cut])
    head.merge(marshal.loads(marshal.dumps(_table(puts[cut:], cut).pack())))
    assert _shown(head.items()) == _shown(whole.items()) or any(k != k for key, _ in puts for k in key)


def test_a_usual_key_is_one_int_and_a_crafted_one_keeps_its_first_form() -> None:
    table = CallTable()
    table.put((3, 1), 0, (1, 0, 0, 0, 0), True)
    table.put((True, 1.0), 1, (2, 0, 0, 0, 0), False)  # the same call as (1, 1), first seen so
    table.put((1, 1), 2, (3, 0, 0, 0, 0), False)
    table.put(("x", None), 3, (4, 0, 0, 0, 0), True)
    assert list(table.pos) == [3 << 32 | 1, 1 << 32 | 1, ("x", None)] and table.odd == {1 << 32 | 1: (True, 1.0)}
    assert [k for k, _ in table.items()] == [(3, 1), (True, 1.0), ("x", None)] and table[(1, 1)][0] == 2


@given(st.lists(st.tuples(st.tuples(_PART, _PART), st.booleans(), st.sampled_from([1, 7, 2**62, 2**70])), max_size=25),
       st.integers(0, 25), st.integers(0, 25), st.sampled_from([0, 3, 10]))
def test_the_tally_of_a_growing_table_sums_each_turn_as_a_dict_of_its_calls_does(puts, cut, again, seed) -> None:
    """Per-turn sums kept up as the table grows, a call rewritten after it was counted (a message
    after its chunk), a seed, counts past int64: the plain sums of the table's calls, turn by turn."""
    from dsh_tui.model.diagnosing.usage import UsageTally
    table, tally = CallTable(), UsageTally(seed)
    for seq, (key, chunk, count) in enumerate(puts):
        if seq in (cut, again):
            tally.add(table)
        table.put(key, seq, (count, seq, 0, 0, 1), chunk)
    usage = tally.usage(table)
    turns: dict = {}
    for (turn, _step), (seq, counts, _chunk) in table.items():
        if seq >= seed:
            turns[turn] = tuple(map(sum, zip(turns.get(turn, (0,) * 5), counts)))
    assert _shown(usage.turns.items()) == _shown(turns.items())
    assert list(usage.session.values()) == [sum(v[i] for v in turns.values()) for i in range(5)]
    assert usage.calls == sum(1 for _k, (s, _c, _f) in table.items() if s >= seed)


@pytest.mark.parametrize("usage", [
    {"inputTokens": 5, "outputTokens": 2}, {"inputTokens": 5, "outputTokens": 2, "cacheReadTokens": 1,
                                            "cacheWriteTokens": 0, "reasoningTokens": 9},
    {"outputTokens": 2, "reasoningTokens": 3}, {}, {"inputTokens": True, "outputTokens": 2},
    {"inputTokens": 5.0, "outputTokens": 2.5}, {"inputTokens": "5", "outputTokens": None},
    {"inputTokens": 1 << 70}, {"cacheWriteTokens": -3}, None, [1, 2], "x",
])
def test_the_scan_s_token_counts_are_the_meter_s(usage):
    """The scan's unrolled reading of a usage object gives what `tokens` gives, key for key."""
    from dsh_tui.model.reading.facts import _tokens
    from dsh_tui.model.reading.tokens import tokens
    got, want = _tokens(usage), tokens(usage)
    assert got == want and (got is None or list(map(type, got)) == list(map(type, want)))
