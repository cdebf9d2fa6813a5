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
    assert list(table.codes) == [3 << 32 | 1, 1 << 32 | 1, -1] and table.keyed == {2: ("x", None)}
    assert table.index == {3 << 32 | 1: 0, 1 << 32 | 1: 1, ("x", None): 2}  # (out of order: the dict)
    assert table.odd == {1 << 32 | 1: (True, 1.0)}
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


_CALLS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=12, unique=True).map(sorted)


def _counted(puts: list, seq0: int = 0) -> CallTable:
    table = CallTable()
    for seq, (key, chunk) in enumerate(puts, seq0):
        table.put(key, seq, (seq, 100 + seq, 0, 0, 0), chunk)  # (an output of its own: a position's)
    return table


@given(_CALLS, st.integers(1, 3), st.integers(0, 3), st.lists(st.booleans(), min_size=40, max_size=40),
       st.integers(0, 60), st.one_of(st.none(), st.tuples(st.integers(0, 4), st.integers(0, 4))))
def test_calls_in_order_and_a_body_read_again_cost_no_dict(calls, times, more, chunks, cut, stray) -> None:
    """A log's calls in (turn, step) order, its body repeated (the benchmark's x11 file) and new calls
    after it, a sample twice in a row, maybe a stray call out of order: the table answers as dsh's
    meter folds them (a call's output is its first run's), keeps no dict of keys until a first run
    comes out of order, and two parts merge into the whole."""
    keys = [call for _ in range(times) for call in calls] + [(9, step) for step in range(more)]
    puts = [(key, chunks[k % 40]) for k, key in enumerate(key for call in keys for key in (call, call)[:1 + call[1] % 2])]
    if stray is not None:
        puts.insert(len(puts) // 2, (stray, True))
    whole = _counted(puts)
    runs: list = []  # dsh's meter: [key, value] a run of samples of one call
    for seq, (key, chunk) in enumerate(puts):
        value = (seq, (seq, 100 + seq, 0, 0, 0), chunk)
        if runs and runs[-1][0] == key:
            runs[-1][1] = value
        else:
            runs.append([key, value])
    assert list(whole.items()) == [tuple(run) for run in runs] and len(whole) == len(runs)
    firsts: dict = {}
    for key, value in runs:
        firsts.setdefault(key, value)
    # In table order (the timing walk's), then each by its key.
    assert [whole.output(*key) for key in firsts] == [value[1][1] for value in firsts.values()]
    assert all(whole[key] == value for key, value in firsts.items())
    assert whole.output(8, 9) is None and whole.find(8 << 32 | 9) is None
    assert (whole.index is None) == (list(firsts) == sorted(firsts))  # (a dict only for a first run out of order)
    assert list(whole.keys(len(runs) // 2)) == [key for key, _ in runs[len(runs) // 2:]]
    cut = min(cut, len(puts))
    head = _counted(puts[:cut])
    head.merge(marshal.loads(marshal.dumps(_counted(puts[cut:], cut).pack())))
    assert list(head.items()) == list(whole.items())
    assert [head.output(*key) for key in firsts] == [value[1][1] for value in firsts.values()]


def test_new_calls_after_a_body_read_again_merge_at_once() -> None:
    """The tail helper's slice of new calls merged after a head whose body came back (so its first
    runs are held apart from its entries): each new call found at its own position."""
    body = [((1, 1), True), ((1, 2), False)]
    head, tail = _counted(body * 2), _counted([((2, 1), True), ((2, 2), False)], 4)
    head.merge(marshal.loads(marshal.dumps(tail.pack())))
    assert head.index is None and head.firsts is not head.codes  # (merged at once, not put one by one)
    assert [head.output(*key) for key in [(1, 1), (1, 2), (2, 1), (2, 2)]] == [100, 101, 104, 105]
    assert head[(2, 2)] == (5, (5, 105, 0, 0, 0), False) and list(head.keys(3)) == [(1, 2), (2, 1), (2, 2)]
