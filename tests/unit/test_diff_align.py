"""The diff's alignment (model/diffing/align.py) and what it compares (normalized arguments)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_tui.model.diffing import align as al
from dsh_tui.model.diffing.digest import normalized_arguments


def _lcs_length(a, b) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def _check_rows(rows, a, b) -> None:
    """Every item once, in order on each side; a pair holds equal keys."""
    assert [i for i, _ in rows if i is not None] == list(range(len(a)))
    assert [j for _, j in rows if j is not None] == list(range(len(b)))
    assert all(a[i] == b[j] for i, j in rows if i is not None and j is not None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=12), st.lists(st.integers(0, 4), max_size=12))
def test_a_small_middle_gets_a_longest_common_subsequence(a, b):
    rows, method = al.align(a, b)
    _check_rows(rows, a, b)
    assert method == "exact"
    assert sum(1 for i, j in rows if i is not None and j is not None) == _lcs_length(a, b)


def test_a_long_identical_prefix_and_suffix_cost_no_middle():
    a = list(range(100_000))
    b = a[:50_000] + ["x"] + a[50_000:]
    rows, method = al.align(a, b)
    _check_rows(rows, a, b)
    assert method == "exact"  # the middle is empty on one side: nothing left to search
    assert rows[50_000] == (None, 50_000)


def test_a_large_middle_takes_a_bounded_method():
    rng = random.Random(7)
    a = [rng.randrange(1000) for _ in range(3000)]
    b = [rng.randrange(1000) for _ in range(3000)]
    rows, method = al.align(a, b)  # 9M cells: past the exact bound
    _check_rows(rows, a, b)
    assert method == "matcher"
    n = al.MATCHER_ITEMS
    big_a = [rng.randrange(10**6) for _ in range(n)]
    big_b = [rng.randrange(10**6) for _ in range(n)]
    rows, method = al.align(big_a, big_b)
    _check_rows(rows, big_a, big_b)
    assert method == "greedy"


def test_gaps_pair_in_order_where_they_belong():
    rows = [(0, 0), (1, None), (2, None), (None, 1), (None, 2), (3, 3)]
    paired = al.pair_gaps(rows, lambda i, j: (i, j) == (2, 2))
    assert paired == [(0, 0), (1, None), (None, 1), (2, 2), (3, 3)]


def test_arguments_compare_as_json_key_order_and_spacing_ignored():
    assert normalized_arguments('{"b": 1, "a": [1, 2]}') == normalized_arguments('{"a":[1,2],"b":1}')
    assert normalized_arguments('{"a": 1}') != normalized_arguments('{"a": 2}')
    assert normalized_arguments('{"a": ') == '{"a": '  # not JSON: compared as it is
    assert normalized_arguments('not json ') != normalized_arguments('not json')
    assert normalized_arguments({"b": 1, "a": 2}) == normalized_arguments('{"a":2,"b":1}')  # a parsed value


def test_similar_prompt_pairing_is_bounded(monkeypatch):
    """Two unrelated sessions of many turns: the prompt comparisons stop at a budget (each turn then
    stands on its side), so the cost does not grow with turns x window."""
    from dsh_tui.model.diffing import compare as cmp
    from dsh_tui.model.diffing.digest import RunDigest, TurnDigest

    def side(tag: str, n: int) -> RunDigest:
        turns = [TurnDigest(k + 1, k, k, prompt=f"{tag} prompt number {k} " + "x" * 40,
                            prompt_key=f"{tag}{k}".encode()) for k in range(n)]
        return RunDigest(tag, tag, None, None, 0, n, turns, [], {}, None, {}, None, 0, 0)

    calls = []
    real = cmp.SequenceMatcher
    monkeypatch.setattr(cmp, "SequenceMatcher", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(cmp, "SIMILAR_BUDGET", 500)
    result = cmp.compare(side("left", 400), side("right", 400))
    assert len(calls) <= 500
    assert len(result.rows) >= 400
