"""Record starts ~2 bytes each (columns/offsets.py): every value, search and append as a plain list's,
whatever the gaps (a long record turns its block wide), the batches or the order of appends."""

from __future__ import annotations

import bisect
from array import array

import pytest
from hypothesis import given, settings, strategies as st

from dsh_tui.model.columns import offsets
from dsh_tui.model.columns.offsets import Offsets

GAPS = st.one_of(st.sampled_from([1, 2, 300, 0xFFFF, 0x10000, 0x10001]), st.integers(1, 3 << 20))


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, 1 << 33), gaps=st.lists(GAPS, max_size=400),
       cuts=st.lists(st.integers(1, 140), min_size=1, max_size=8), batch=st.sampled_from([64, 128, 65536]),
       as_array=st.booleans())
def test_offsets_hold_what_was_appended_in_any_batches(start, gaps, cuts, batch, as_array, monkeypatch_module):
    monkeypatch_module.setattr(offsets, "BATCH", batch)
    values, v = [], start
    for g in gaps:
        values.append(v)
        v += g
    got, at, k = Offsets(), 0, 0
    while at < len(values):
        part = values[at:at + cuts[k % len(cuts)]]
        got.extend(array("Q", part) if as_array else part)
        at, k = at + len(part), k + 1
    assert len(got) == len(values) and list(got) == values
    assert [got[i] for i in range(len(values))] == values
    if values:
        assert got[-1] == values[-1] and got[-len(values)] == values[0]
    probes = {0, start - 1, start, v, v + 1, *values[:50], *(w + 1 for w in values[-50:])}
    for x in probes | {w - 1 for w in values[:50]}:
        assert got.bisect_right(x) == bisect.bisect_right(values, x)
    assert list(got.plain()) == values and got == values
    assert got.plain().typecode == ("I" if not values or values[-1] < 1 << 32 else "Q")
    for bad in (len(values), -len(values) - 1):
        with pytest.raises(IndexError):
            got[bad]


def test_a_block_spanning_64_kib_keeps_its_offsets_whole_the_others_two_bytes_each():
    second = [70_000 + 100 * k for k in range(6)] + [70_600 + 0x10000 + 100 * k for k in range(58)]  # a long 6th
    values = list(range(0, 64 * 100, 100)) + second + [200_000 + 100 * k for k in range(10)]
    for cut in (len(values), 64 + 6, 64 + 5):  # the long record appended at once, or after its block began
        got = Offsets(values[:cut])
        got.extend(values[cut:])
        assert list(got) == values and set(got.wide) == {1}
        assert got.low.itemsize == 2 and len(got.low) == len(values)
        assert got.bisect_right(70_600 + 0x10000) == 64 + 7 and got.bisect_right(70_599) == 64 + 6


def test_a_span_of_exactly_64_kib_turns_a_block_wide_one_less_does_not_and_searches_stay_in_their_block():
    for span, wide in ((0xFFFF, set()), (0x10000, {1})):
        second = [10_000, *range(10_000 + span - 62, 10_000 + span), 10_000 + span]  # 64, first to last: span
        values = list(range(0, 6400, 100)) + second + list(range(200_000, 206_400, 100))
        for cut in (len(values), 127, 65):  # at once, or the span's end appended to a block begun
            got = Offsets(values[:cut])
            got.extend(values[cut:])
            assert list(got) == values and set(got.wide) == wide
            for x in (6350, 9_999, 10_000, 10_000 + span - 1, 10_000 + span, 10_000 + span + 1, 206_350):
                assert got.bisect_right(x) == bisect.bisect_right(values, x), (span, cut, x)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp
