"""The per-turn tables the report reads (model/columns/perturn.py): a turn's ends and token counts as
columns read as the list and dict they were made from, in order and by type, a crafted turn or count
(a string, past 64 bits, None) included, and come back from the index cache's form."""

from __future__ import annotations

from hypothesis import given, strategies as st

from dsh_tui.model.columns.perturn import TurnCounts, TurnEnds
from dsh_tui.model.opening.cachecodec import decode, encode

_TURNS = st.one_of(st.integers(0, 10**6), st.integers(), st.none(), st.just("x"), st.just(True), st.just(2**70))
_KINDS = st.one_of(st.sampled_from(["completed", "error", "interrupted"]), st.none(), st.text(max_size=3))
_COUNTS = st.tuples(*[st.one_of(st.integers(0, 10**9), st.integers(-5, 5), st.just(2**64))] * 3)


def _same(a, b) -> bool:
    return repr(a) == repr(b)  # (True is not 1)


def _cached(value):
    tree, parts = encode(value)
    return decode(tree, b"".join(parts))


@given(st.lists(st.tuples(_TURNS, _KINDS), max_size=30), st.integers(1, 8))
def test_turn_ends_read_as_their_list_and_come_back_from_the_cache(ends, batch) -> None:
    col = TurnEnds(ends)
    assert _same(list(col), ends) and len(col) == len(ends) and col == ends
    assert _same(list(TurnEnds.from_plain(_cached(col.plain()))), ends)
    grown = TurnEnds()  # appended one by one, packed every `batch` (the diagnosis's way)
    for k, end in enumerate(ends, 1):
        grown.append(end)
        if k % batch == 0:
            grown.pack()
        assert len(grown) == k
    assert _same(list(grown), ends) and _same(list(TurnEnds.from_plain(_cached(grown.plain()))), ends)


@given(st.dictionaries(_TURNS, _COUNTS, max_size=20), st.data())
def test_turn_counts_read_as_their_dict_and_come_back_from_the_cache(counts, data) -> None:
    col = TurnCounts(dict(counts), 3)
    assert _same(list(col.items()), list(counts.items())) and _same(list(col), list(counts))
    assert _same(list(col.values()), list(counts.values())) and len(col) == len(counts) and col == counts
    if counts:
        turn = data.draw(st.sampled_from(list(counts)))
        assert _same(col[turn], counts[turn]) and turn in col
    assert col.get("absent") is None and "absent" not in col and col.get(-7, 0) == counts.get(-7, 0)
    back = TurnCounts.from_plain(_cached(col.plain()), 3)
    assert _same(list(back.items()), list(counts.items()))


def test_a_common_logs_tables_are_columns_and_a_crafted_one_keeps_its_plain_form() -> None:
    ends = TurnEnds([(k, "completed" if k % 9 else "error") for k in range(40_000)])
    assert ends.as_list is None and ends.turns.itemsize == 8 and ends.kinds.plain is None
    assert TurnEnds([(1, "completed"), ("x", None)]).as_list == [(1, "completed"), ("x", None)]
    counts = TurnCounts({k: (k, 2 * k, 0, 0, 7) for k in range(40_000)}, 5)
    assert counts.as_dict is None and len(counts.counts) == 200_000 and counts[39_999] == (39_999, 79_998, 0, 0, 7)
    assert TurnCounts({1: (2**64, 0, 0, 0, 0)}, 5).as_dict == {1: (2**64, 0, 0, 0, 0)}
