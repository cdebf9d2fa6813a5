"""A column of text in one buffer (model/columns/textcolumn.py): what goes in comes back, ASCII or
not, a lone surrogate, a value that is not a str, one set after its row was written. The same of a
column of a few strings, and of a sparse column's values as JSON (a tuple, a NaN, a huge int kept as
they are)."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, strategies as st

from dsh_tui.model.columns.textcolumn import CodedColumn, SharedColumn, SparseColumn, TextColumn, shared
from dsh_tui.model.opening.cachecodec import decode, encode

_VALUES = st.one_of(st.text(), st.text(alphabet=st.characters(codec="ascii")), st.none(), st.integers(),
                    st.just("\ud800x"), st.just(""))


def _filled(col, batches: list, data, values) -> list:
    """``col`` extended by ``batches``, one value then set again: the list it must read as."""
    want: list = []
    for batch in batches:
        col.extend(batch)
        want.extend(batch)
    if want:
        k = data.draw(st.integers(0, len(want) - 1))
        col[k] = want[k] = data.draw(values)
    assert len(col) == len(want) and list(col) == want and col == want
    return want


@given(st.lists(st.lists(_VALUES, max_size=20), max_size=6), st.data())
def test_values_come_back_as_they_went_in(batches, data) -> None:
    col = TextColumn()
    want = _filled(col, batches, data, _VALUES)
    assert [col[k] for k in range(len(want))] == want and [col[k] for k in range(-len(want), 0)] == want
    lo = data.draw(st.integers(0, len(want)))
    hi = data.draw(st.integers(0, len(want)))
    assert col[lo:hi] == want[lo:hi] and col[::2] == want[::2]
    assert all(type(a) is type(b) for a, b in zip(col, want))


def test_a_row_costs_its_bytes_and_an_end() -> None:
    col = TextColumn(["abc", "dé", ""] * 1000)
    assert len(col.buf) == 1000 * (3 + 3) and col.ends.itemsize == 4 and not col.other
    with pytest.raises(IndexError):
        col[3000]
    with pytest.raises(IndexError):
        col[3000] = "x"


_FEW = st.one_of(st.sampled_from(["a", "b", "ok", "error", ""]), st.none(), st.just(1), st.just(True),
                 st.just(1.0), st.just(-0.0), st.just(0.0), st.just(["x"]), st.text(max_size=3))


@given(st.lists(st.lists(_FEW, max_size=30), max_size=5), st.data())
def test_a_coded_column_gives_back_each_value_and_its_type(batches, data) -> None:
    col = CodedColumn()
    want = _filled(col, batches, data, _FEW)
    assert [(type(x), repr(x)) for x in col] == [(type(x), repr(x)) for x in want]  # (True is not 1, -0.0 not 0.0)
    assert [col[k] for k in range(len(want))] == want and col[1:4] == want[1:4]


def test_a_coded_column_is_a_byte_a_row_until_its_values_are_many() -> None:
    col = CodedColumn(["paired", "error", None] * 1000)
    assert col.plain is None and len(col.codes) == 3000 and col.table == ["paired", "error", None]
    col.extend([f"call-{k}" for k in range(300)])  # (call ids: each its own)
    assert col.plain is not None and col[2999] is None and col[3299] == "call-299" and len(col) == 3300


_NOTES = st.recursive(st.one_of(st.text(max_size=8), st.integers(), st.floats(), st.booleans(), st.none(),
                                st.just(2**70), st.just("\ud800")),
                      lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner)), max_leaves=6)


@given(st.lists(st.tuples(st.sampled_from(["next", "any", "pop"]), st.integers(0, 40), _NOTES), max_size=40),
       st.integers(0, 45), st.integers(0, 45))
def test_a_sparse_column_reads_as_the_dict_of_what_was_set(ops, lo, hi) -> None:
    """Set at the next position (the pack's way), at any (a record settled late), or removed: the
    column reads as the dict given the same, each value of its own type (a tuple stays one)."""
    col, want, top = SparseColumn(), {}, -1
    for op, k, v in ops:
        if op == "pop":
            assert repr(col.pop(k, "none")) == repr(want.pop(k, "none"))
            continue
        if op == "next":
            k = top = top + 1 + k % 3
        col[k] = want[k] = v
    same = lambda a, b: repr(a) == repr(b)  # noqa: E731  (NaN is not equal to itself; 1 == True)
    assert same(list(col.items()), sorted(want.items())) and len(col) == len(want)
    assert all(same(col.get(k, "none"), want.get(k, "none")) for k in range(45))
    assert same(col.span(lo, hi, ()), [want.get(k, ()) for k in range(lo, hi)])
    assert col == want and col == SparseColumn(sorted(want.items()))
    assert same(sorted(col.as_dict().items()), sorted(want.items()))
    plain = col.plain({})  # the cache's form, through its codec
    if plain is not None:
        tree, parts = encode(plain)
        assert same(list(SparseColumn.from_plain(decode(tree, b"".join(parts)), 46).items()), sorted(want.items()))


def test_a_sparse_column_goes_to_the_cache_as_its_parts_then_later_values(monkeypatch) -> None:
    col = SparseColumn((k * 2, [f"note {k}"]) for k in range(10))
    col[3] = ("kept", "apart")  # (a tuple: in ``other``)
    monkeypatch.setattr(SparseColumn, "_value", None)  # (its values' JSON is not decoded to be written)
    plain = col.plain({4: ["live, set"], 6: [], 30: ["pending"]})  # a live record's, one emptied, a pending one's
    monkeypatch.undo()
    back = SparseColumn.from_plain(plain, 31)
    want = {**{k * 2: [f"note {k}"] for k in range(10) if k != 3}, 3: ("kept", "apart"), 4: ["live, set"],
            30: ["pending"]}
    assert dict(back.items()) == want and back.buf.startswith(col.buf)
    assert SparseColumn.from_plain(plain, 31, as_dict=True) == want  # (a short list's: a dict at once)
    with pytest.raises(ValueError):
        SparseColumn.from_plain(plain, 30)  # a position past the records
    col.pop(2)
    assert col.plain({}) is None  # a removed value's mark: the caller writes {position: value}


def test_a_sparse_column_holds_a_note_as_its_json_and_a_value_it_cannot_as_it_is() -> None:
    col = SparseColumn((k * 7, [f"retry at seq {k}: the wait is not known"]) for k in range(1000))
    assert not col.other and len(col.at) == 1000 and len(col.buf) < 1000 * 45
    col[7007] = ((1, 2),)  # a tuple: JSON would give a list back
    col[7] = ["settled late"]  # before the last position
    assert col.other == {7007: ((1, 2),), 7: ["settled late"]} and col.get(7) == ["settled late"]
    assert col.get(14) == ["retry at seq 2: the wait is not known"] and col.get(14) is not col.get(14)


@given(st.lists(st.text(max_size=3), min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 29), st.one_of(st.none(), st.text(max_size=3))), max_size=30),
       st.integers(0, 31), st.integers(0, 31))
def test_a_text_columns_overrides_read_back_in_any_span(values, sets, lo, hi) -> None:
    """Values set after the rows were written (a record settled late) come back in every slice,
    whether the span is looked up position by position or the overrides walked (`_in_range`)."""
    col, want = TextColumn(values), list(values)
    for k, v in sets:
        if k < len(want):
            col[k] = want[k] = v
    assert col[lo:hi] == want[lo:hi] and list(col) == want


_POOL = [1, True, 1.0, None, "a", "a" * 2, ("t", 1), ("t", 1), 0, False]  # equal values, not one object


@given(st.lists(st.integers(0, len(_POOL) - 1), max_size=60), st.lists(st.integers(0, 299), max_size=300),
       st.integers(0, 80))
def test_a_shared_column_gives_back_the_very_objects_it_was_given(picks, more, cut) -> None:
    """By identity: 1, True and 1.0 (and two equal tuples) stay apart; appending on codes new objects
    until a 257th, then goes on as a list; a slice deleted goes either way."""
    values = [_POOL[k] for k in picks]
    col = shared(values)
    if not values:
        assert col == []
        return
    assert type(col) is SharedColumn and len(col.codes) == len(values)
    assert all(a is b for a, b in zip(col, values)) and len(col) == len(values)
    extra = [object() if k >= 250 else _POOL[k % len(_POOL)] for k in more]  # fresh objects past 250
    col.extend(extra)
    values += extra
    assert all(a is b for a, b in zip(col, values)) and col == values
    assert (col.plain is None) == (len({id(v) for v in values}) <= 256)
    del col[cut:]
    del values[cut:]
    assert list(col) == values and [col[k] for k in range(len(values))] == values and col[1:4] == values[1:4]


def test_a_list_of_more_than_256_objects_stays_a_list() -> None:
    many = [str(k) for k in range(300)]
    assert shared(many) is many
    assert shared(many[:256] * 3).plain is None  # 256 objects, however many rows


def test_two_equal_text_columns_share_one_buffer_until_either_writes():
    """`share_equal`: a timing's call ids and its pairs' keys, the same text in the same order, kept as
    one buffer; whichever is extended first copies it (the other reads as before), values set apart
    stay each one's own, and a column that differs in a row, a length or an end's width keeps its own."""
    ids = [f"call_{k:06d}" for k in range(50)]
    a, b = TextColumn(ids), TextColumn(ids)
    b[3] = None  # a value kept apart, b's alone
    assert a.share_equal(b) and a.buf is b.buf and a.ends is b.ends and a.shared and b.shared
    assert not a.share_equal(b)  # (already one)
    assert list(a) == ids and list(b) == ids[:3] + [None] + ids[4:]
    b.extend(["call_x"])
    assert b.buf is not a.buf and b.ends is not a.ends and not b.shared
    assert list(a) == ids and list(b) == ids[:3] + [None] + ids[4:] + ["call_x"]
    a.extend(["call_y", "é"])
    assert list(a) == ids + ["call_y", "é"] and list(b)[-1] == "call_x" and not a.shared
    c, d = TextColumn(ids), TextColumn(ids)
    assert c.share_equal(d)
    c.extend(["z"])  # the first to write copies: the other keeps the buffer it had
    assert list(d) == ids and d.buf is not c.buf and len(d) == 50
    for other in (TextColumn(ids[:-1] + ["call_99999x"]), TextColumn(ids[:-1]), TextColumn(ids + [""])):
        assert not TextColumn(ids).share_equal(other)
    wide = TextColumn(ids)
    wide.ends = array("Q", wide.ends)
    assert not TextColumn(ids).share_equal(wide)
