"""A column of text in one buffer (model/diagnosing/textcolumn.py): what goes in comes back, ASCII or
not, a lone surrogate, a value that is not a str, one set after its row was written."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from dsh_tui.model.diagnosing.textcolumn import CodedColumn, TextColumn

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
