"""Timing records kept as columns (model/columns/packed.py): what goes in comes out, whatever a
crafted log puts in a field, and a timing pass that packs gives the timing of one that does not."""

from __future__ import annotations

from array import array
from copy import deepcopy

import orjson
import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.columns import cells, packed
from dsh_tui.model.diagnosing import timewalk
from dsh_tui.model.columns.cells import NONE, ODD
from dsh_tui.model.columns.textcolumn import TextColumn
from dsh_tui.model.columns.packed import PackedList
from dsh_tui.model.diagnosing.timing import (CALL_INTS, PLAIN_VERSION, ModelCall, ToolTiming, Timing, call_list,
                                            tool_list)
from dsh_tui.model.presenting.timing_rows import SortOrders
from dsh_tui.model.presenting.timing_text import timing_json
from dsh_tui.model.opening.target import OpenOptions, open_target

from ..support.logs import shared_log
from ..support.plainform import values


def _calls() -> list[ModelCall]:
    odd = [2**70, -(2**63), ODD, 1.5, None, True]  # past int64, the markers themselves, not ints
    out = []
    for k in range(40):
        c = ModelCall(k % 3, "s" if k == 7 else k, k * 10, k + 1, start=None if k % 5 == 0 else 1_700_000_000_000 + k)
        c.chunks = k
        c.output_tokens = odd[k % len(odd)]
        if k % 4 == 0:
            c.missing = [f"note {k}"]
        if k % 9 == 0:
            c.retries = [[k, k, None, None, None, None]]
        out.append(c)
    return out


def _same(a, b) -> bool:
    return [repr(x) for x in a] == [repr(x) for x in b]


def test_records_come_back_as_they_went_in() -> None:
    items = _calls()
    got = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for k, c in enumerate(items):
        got.append(c)
        if k in (9, 25):
            got.pack(len(got.pending) - 1)  # the last stays an object, as the open call does
    assert got.packed == 25 and len(got) == 40
    assert _same(got, items)
    assert _same([got[k] for k in range(40)], items) and repr(got[-1]) == repr(items[-1])
    assert type(got[3].output_tokens) is float and got[0].output_tokens == 2**70 and got[1].output_tokens == -(2**63)
    assert got.column("start") == [c.start for c in items]
    assert got.column("turn") == [c.turn for c in items]
    assert got.count_none("start") == sum(c.start is None for c in items)
    with pytest.raises(IndexError):
        got[40]
    with pytest.raises(IndexError):
        got[-41]


def test_a_record_packed_while_open_is_its_object_until_settled() -> None:
    tools = [ToolTiming(f"c{k}", "read", 1, k, k, k, start=100 + k) for k in range(6)]
    got = PackedList(ToolTiming, ("index", "seq", "start", "end", "end_index", "approval_ms"), ("missing",))
    for t in tools:
        got.append(t)
    got.pack(live={id(tools[1])})
    tools[1].end, tools[1].status, tools[1].approval_ms = 2**64, "ok", 5  # its result (a crafted time) comes later
    tools[1].missing = ["a note"]
    assert got[1] is tools[1] and _same(got, tools)
    got.settle(tools[1])
    assert got[1] is not tools[1] and repr(got[1]) == repr(tools[1])
    assert got.count_none("end") == 5


def test_plain_form_round_trips_through_packed_lists() -> None:
    timing = Timing(call_list(_calls()), tool_list([ToolTiming("c", None, 1, 2, 3, 4)]))
    again = Timing.from_plain(timing.plain())
    assert _same(again.calls, timing.calls) and _same(again.tools, timing.tools)


@pytest.mark.parametrize("name", ["large/big-936k-events__session.jsonl.zstd",
                                  "large/medium-4550-events__session.jsonl.zstd"])
def test_a_pass_that_packs_gives_the_same_timing(name: str, monkeypatch) -> None:
    path = shared_log(name)
    log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False, keep_facts=True))
    facts = log.res.facts
    whole = timewalk.compute_timing(facts, log.res.usage_calls, diag.pairing, log.res.projected)
    assert whole.calls.packed == 0  # under PACK_AT records: all kept as objects
    monkeypatch.setattr(timewalk, "PACK_AT", 7)
    monkeypatch.setattr(packed, "PACK_AT", 7)
    walk = timewalk.TimingWalk(log.res.usage_calls)
    for k in range(0, len(facts), 1013):  # fed in slices, as a split read's head is
        walk.feed(facts[:k])
    small = walk.finish(facts, diag.pairing, log.res.projected)
    assert small.calls.packed > 0 and small.tools.packed > 0
    dump = lambda t: orjson.dumps([values(t.plain()), timing_json(log, t), list(SortOrders.of(t).rows),  # noqa: E731
                                   t.activity(80)],
                                   option=orjson.OPT_NON_STR_KEYS, default=repr)
    assert dump(small) == dump(whole)
    for a, b in zip(whole.turns[::37], small.turns[::37]):
        assert repr(whole.lanes(a)) == repr(small.lanes(b))
    probes = range(0, facts[-1][1], 1009)
    assert [small.time_at(i) for i in probes] == [whole.time_at(i) for i in probes]
    assert NONE not in small.calls.column("start")


def _sparse(at: list[int], buf: bytes, ends: list[int] | None = None) -> tuple:
    """A sparse column's cache form (textcolumn.py's SparseColumn.plain): values of 5 bytes each."""
    return ("sparse", array("i", at), array("q", ends or [5 * (k + 1) for k in range(len(at))]), bytearray(buf), [], [])


def test_the_cache_carries_calls_as_columns_and_checks_them() -> None:
    from array import array

    from dsh_tui.model.opening.cachecodec import decode, encode
    timing = Timing(call_list(_calls()), tool_list([ToolTiming("c", None, 1, 2, 3, 4, start=5)]))
    plain = timing.plain()  # (its 40 calls wait to be packed: a copy of the columns takes them)
    assert not timing.calls.packed and len(timing.calls.pending) == 40 and not timing.calls.ints["start"]
    assert type(plain[1][2]["start"]) is array  # a binary part of the entry, not a JSON number a call
    assert plain[1][2]["start"].typecode == "i" and plain[1][3]["start"] == 1_700_000_000_001  # from a base
    timing.calls.pack()
    assert values(timing.plain()) == values(plain)
    assert timing.plain()[1][2]["start"] is timing.calls.ints["start"]  # its cells as they are: none made again
    assert plain[1][5]["start_from"][0] == "coded" and type(plain[1][5]["start_from"][2]) is array  # a byte a call
    tree, parts = encode(plain)
    again = Timing.from_plain(decode(tree, b"".join(parts)))
    assert _same(again.calls, timing.calls) and _same(again.tools, timing.tools)
    assert again.calls.packed == 40 and not again.calls.pending

    def broken(change) -> Timing:
        p = list(plain)
        calls = deepcopy(list(p[1]))  # (each change on its own)
        change(calls)
        p[1] = tuple(calls)
        return Timing.from_plain(tuple(p))

    for change in (lambda c: c.__setitem__(1, 41),  # a length the columns do not have
                   lambda c: c[2].__setitem__("start", array("Q", [0] * 40)),  # not a column's type
                   lambda c: c[2].pop("seq"),  # a column missing
                   lambda c: (c[2].__setitem__("seq", array("q", c[2]["seq"])),
                              c[3].__setitem__("seq", 5)),  # a base of an int64 column
                   lambda c: c[3].__setitem__("start", 1.5),  # a base not an int
                   lambda c: c[3].__setitem__("nothing", 5),  # a base of no column
                   lambda c: c.__setitem__(3, [5]),  # not bases
                   lambda c: c.__setitem__(5, {"start_from": [None] * 39}),  # a short list
                   lambda c: c.__setitem__(5, {"start_from": ("coded", [None], array("B", [0] * 39))}),  # short
                   lambda c: c.__setitem__(5, {"start_from": ("coded", [None], array("B", [1] * 40))}),  # past
                   lambda c: c.__setitem__(5, {"start_from": ("coded", [1], array("B", [0] * 40))}),  # not text
                   lambda c: c.__setitem__(5, {"start_from": ("coded", [None], array("b", [0] * 40))}),
                   lambda c: c[6].__setitem__("missing", _sparse([40], b'["x"]')),  # a note past the end
                   lambda c: c[6].__setitem__("missing", _sparse([3, 2], b'["x"]["y"]')),  # out of order
                   lambda c: c[6].__setitem__("missing", _sparse([3], b'["x"]', ends=[4])),  # a short end
                   lambda c: c[6].__setitem__("missing", {40: ["x"]}),  # (as a dict too)
                   lambda c: c[4].append(["start", 2, 7]),  # an odd value where the column holds no marker
                   lambda c: c.__setitem__(0, "rows")):
        assert broken(change).missing == ["no timing in this diagnosis"]


def test_turn_and_step_are_int_columns_that_keep_a_crafted_value_as_it_is() -> None:
    odd = [True, False, 1.0, "3", ["x"], {"k": 1}, 2**64, -(2**63), None, 7]
    items = [ModelCall(odd[k % len(odd)], odd[(k + 3) % len(odd)], k, k) for k in range(30)]
    tools = [ToolTiming(f"c{k}", None, odd[k % len(odd)], odd[(k + 5) % len(odd)], k, k) for k in range(30)]
    calls, tool_rows = call_list(items), tool_list(tools)
    calls.pack()
    tool_rows.pack()
    assert "turn" in calls.ints and "step" in tool_rows.ints and "turn" not in calls.objs
    again = Timing.from_plain(Timing(calls, tool_rows).plain())
    for got in (list(calls), list(again.calls)):
        assert [(type(c.turn), c.turn, type(c.step), c.step) for c in got] == \
            [(type(c.turn), c.turn, type(c.step), c.step) for c in items]
    for got in (list(tool_rows), list(again.tools)):
        assert [(type(t.turn), t.turn, type(t.step), t.step) for t in got] == \
            [(type(t.turn), t.turn, type(t.step), t.step) for t in tools]
    assert calls.column("turn") == [c.turn for c in items] and type(calls.column("turn")[0]) is bool


def test_a_column_of_plain_ints_packs_a_bool_apart() -> None:
    got = call_list([ModelCall(1, 2, 3, 4)] * 5 + [ModelCall(True, 2, 3, 4)])
    got.pack()
    assert got.odd == {("turn", 5): True} and got[5].turn is True and got[0].turn == 1
    assert cells.int_cells([1, None, 3]) == cells.array("q", [1, NONE, 3])
    assert cells.int_cells([1, True]) is None and cells.int_cells([1, 2.0]) is None and cells.int_cells([2**63]) is None


def test_tool_names_are_one_object_a_name() -> None:
    names = ["read_" + str(k % 2) for k in range(6)] + [None, 1, True, ["x"]]
    tools = [ToolTiming(f"c{k}", name, 1, 1, k, k) for k, name in enumerate(names)]
    again = Timing.from_plain(Timing(call_list(), tool_list(tools)).plain())
    got = [t.name for t in again.tools]
    assert got == names and [type(n) for n in got] == [type(n) for n in names]
    assert len({id(n) for n in got[:6]}) == 2
    path = shared_log("large/medium-4550-events__session.jsonl.zstd")
    _log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    walked = [t.name for t in diag.timing.tools]
    assert len({id(n) for n in walked}) == len(set(walked))
    assert len(walked) > len(set(walked))
    pairs = diag.pairing.tools
    assert all(pairs[t.call_id].name is t.name for t in diag.timing.tools)  # the pairing's the same objects


def test_the_cache_form_of_an_older_layout_reads_as_no_timing() -> None:
    timing = Timing(call_list(_calls()), tool_list([ToolTiming("c", "read", 1, 2, 3, 4)]))
    plain = timing.plain()
    assert plain[0] == PLAIN_VERSION
    assert Timing.from_plain((PLAIN_VERSION - 1, *plain[1:])).missing == ["no timing in this diagnosis"]
    calls = list(plain[1])
    calls[2] = {k: v for k, v in calls[2].items() if k not in ("turn", "step")}  # turn and step as objects (v2)
    calls[5] = {**calls[5], "turn": [c.turn for c in _calls()], "step": [c.step for c in _calls()]}
    assert Timing.from_plain((PLAIN_VERSION, tuple(calls), *plain[2:])).missing == ["no timing in this diagnosis"]


def test_the_finished_timing_is_all_columns_its_call_ids_text(tmp_path, monkeypatch) -> None:
    """Once the walk has packed (a big log: here its batch made small), the last batch is packed too,
    and the callIds are text (timing.TOOL_TEXTS): no str a call, each its pair's key."""
    monkeypatch.setattr(timewalk, "PACK_AT", 50)
    path = tmp_path / "s__session.jsonl.zstd"
    write_synthetic(path, 20_000)
    _log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    t, pairs = diag.timing, diag.pairing.tools
    assert not t.calls.pending and not t.tools.pending and t.tools.packed > 100  # no record left an object
    ids = t.tools.objs["call_id"]
    assert type(ids) is TextColumn and all(cid == pairs[cid].key for cid in ids)
    assert [x.call_id for x in t.tools] == list(ids) and len(set(ids)) == len(ids) == t.tools.packed


@pytest.mark.parametrize("edge", [2**31 - 1, 2**31, -(2**31), -(2**31) + 1, -(2**31) + 2, -(2**63), 2**63 - 1])
def test_a_column_is_as_narrow_as_its_values_until_one_needs_more(edge, monkeypatch) -> None:
    monkeypatch.setattr(packed, "PACK_AT", 4)  # (the cache form is compacted only for a list the pass packs)
    items = [ModelCall(k, 1, k, k, start=None if k % 3 == 0 else k) for k in range(10)]
    got = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for c in items[:5]:
        got.append(c)
    got.pack(live={id(items[4])})
    assert all(col.typecode == "b" for col in got.ints.values())  # (small ints, None: a byte)
    items[4].start = edge  # set while live: its row is written when it is settled
    got.settle(items[4])
    for c in items[5:]:
        got.append(c)
    items[7].end = edge
    got.pack()
    # (int32's own markers do not fit as values; int64's NONE is kept apart as an odd value, a byte's marker)
    wide = edge != -(2**63) and not -(2**31) + 2 <= edge < 2**31
    narrow = "b" if edge == -(2**63) else "i"
    assert got.ints["start"].typecode == ("q" if wide else narrow) and got.ints["seq"].typecode == "b"
    assert _same(got, items) and got.column("start") == [c.start for c in items]
    assert got.count_none("start") == sum(c.start is None for c in items)
    assert got.count_none("end") == sum(c.end is None for c in items)
    again = Timing.from_plain(Timing(got, tool_list([])).plain()).calls
    # ("end" holds one value among None: one too wide for int32 is counted from a base of its own)
    assert _same(again, items) and again.ints["end"].typecode == narrow and ("end" in again.bases) == wide
    monkeypatch.setattr(packed, "PACK_AT", 16384)
    small = Timing.from_plain(Timing(got, tool_list([])).plain()).calls  # (a common log's: its cells as they were)
    assert _same(small, items) and {n: c.typecode for n, c in small.ints.items()} == {
        n: c.typecode for n, c in got.ints.items()} and small.bases == got.bases


@pytest.mark.parametrize("value, width", [(127, "b"), (128, "h"), (-126, "b"), (-127, "h"), (2**15 - 1, "h"),
                                          (2**15, "i"), (-(2**15) + 2, "h"), (-(2**15) + 1, "i"), (2**31 - 1, "i"),
                                          (2**31, "q"), (-(2**31) + 2, "i"), (-(2**31) + 1, "q")])
def test_a_column_takes_the_narrowest_width_its_values_fit(value, width, monkeypatch) -> None:
    """An int column is a byte, two, four or eight a cell, the narrowest that holds its values but each
    width's two markers (None, kept apart), whether the value comes in a packed batch or is set on a
    live record's row; its values, Nones and the cache's form come back the same."""
    monkeypatch.setattr(packed, "PACK_AT", 2)
    batch = [ModelCall(k, k, k, k, start=None) for k in range(3)]
    batch[1].step = value
    got = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for c in batch:
        got.append(c)
    got.pack()
    assert got.ints["step"].typecode == width and got.ints["turn"].typecode == "b" and _same(got, batch)
    assert got.column("step") == [0, value, 2] and got.count_none("start") == 3
    live = [ModelCall(k, 1, k, k, start=None) for k in range(3)]
    settled = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for c in live:
        settled.append(c)
    settled.pack(live={id(live[2])})
    live[2].step, live[2].start = value, None
    settled.settle(live[2])
    assert settled.ints["step"].typecode == width and settled.column("step") == [1, 1, value]
    assert settled.count_none("start") == 3 and _same(settled, live)
    for lst, items in ((got, batch), (settled, live)):
        back = PackedList.from_plain(ModelCall, CALL_INTS, ("retries", "missing"), lst.plain())
        assert back.ints["step"].typecode == width and _same(back, items)


def test_the_cache_takes_the_cells_as_they_are_and_a_save_changes_nothing(monkeypatch):
    """`plain` gives the int columns' cells, int32 from their bases where the pass made them so, with a
    live record's values and the pending ones' written into copies; `from_plain` takes them as they are
    (no column narrowed again: that was most of a big log's re-open)."""
    items = [ModelCall(k, 1, k, k, start=1_700_000_000_000 + k, end=None if k % 4 else 1_700_000_000_000 + 2 * k)
             for k in range(12)]
    got = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for c in items[:8]:
        got.append(c)
    got.pack(live={id(items[3])})
    for c in items[8:]:
        got.append(c)  # (pending)
    items[3].end = 2**40  # its row is stale, its object wins; too far from the column's base for int32
    items[9].start = "odd"
    before = ({n: (c.typecode, c.tobytes()) for n, c in got.ints.items()}, dict(got.bases), dict(got.odd),
              dict(got.live), list(got.pending))
    plain = got.plain()
    assert ({n: (c.typecode, c.tobytes()) for n, c in got.ints.items()}, dict(got.bases), dict(got.odd),
            dict(got.live), list(got.pending)) == before  # the list as it was
    monkeypatch.setattr(packed, "narrowed", None)  # (a call would raise)
    back = PackedList.from_plain(ModelCall, CALL_INTS, ("retries", "missing"), plain)
    assert _same(back, items) and back.packed == 12 and not back.pending and not back.live
    assert back.ints["start"].typecode == "i" and back.bases["start"] == 1_700_000_000_000
    assert back.ints["end"].typecode == "q" and back.odd == {("start", 9): "odd"}
    monkeypatch.undo()
    got.settle(items[3])
    got.pack()
    assert {n: c.tobytes() for n, c in back.ints.items()} == {n: c.tobytes() for n, c in got.ints.items()}
    assert got.plain()[2]["seq"] is got.ints["seq"]  # all packed: the columns themselves


def test_times_are_int32_counted_from_a_base_until_one_is_too_far(monkeypatch):
    """A time column (ms since 1970: past int32) holds int32 cells counted from its first time, while
    the column holds no other value and the times lie within int32 of it; a time set on a live
    record's row (`settle`), its None and a crafted odd value keep their meaning, in the cache too."""
    t0 = 1_796_218_466_437
    items = [ModelCall(k, 1, k, k, start=None if k % 4 == 1 else t0 + 1000 * k, end=t0 + 1000 * k + 7)
             for k in range(12)]
    got = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for c in items[:6]:
        got.append(c)
    got.pack(live={id(items[5])})
    assert got.ints["start"].typecode == "i" and got.bases["start"] == t0
    items[5].end = t0 - 5  # before the base: an offset below zero
    got.settle(items[5])
    for c in items[6:]:
        got.append(c)
    items[9].start = "crafted"  # (kept apart as an odd value)
    got.pack()
    assert got.ints["start"].typecode == "i" and got.ints["end"].typecode == "i"
    assert _same(got, items) and got.column("start") == [c.start for c in items]
    assert list(got.iter_column("end", step=5)) == [c.end for c in items]
    assert got.count_none("start") == sum(c.start is None for c in items)
    monkeypatch.setattr(packed, "PACK_AT", 4)  # (the cache form is compacted only for a list the pass packs)
    again = Timing.from_plain(Timing(got, tool_list([])).plain()).calls
    assert _same(again, items) and again.ints["start"].typecode == "i" and again.bases["start"] == t0
    far = ModelCall(12, 1, 12, 12, start=t0 + 2**31, end=t0 + 2**31 + 1)  # past int32 of the base: int64
    items.append(far)
    got.append(far)
    got.pack()
    assert got.ints["start"].typecode == "q" and "start" not in got.bases and _same(got, items)
    items[2].end = t0 + 2**32  # a settled time too far for the end column's base: it widens
    got.keep_live(2, items[2])
    got.settle(items[2])
    assert got.ints["end"].typecode == "q" and _same(got, items)


def test_cell_values_read_none_wherever_its_bytes_stand():
    """An int column's cells as values: None for its NONE cell, and a value whose bytes hold NONE's
    across two cells (a match off a cell's boundary) read as what it is, in every width."""
    from array import array
    for code, none in cells.NONE_CELL.items():
        plain = array(code, [0, 5, -1, 100])
        assert cells.cell_values(plain) == [0, 5, -1, 100]
        assert cells.cell_values(array(code, [7, none, 9])) == [7, None, 9]
        size = plain.itemsize
        if size == 1:
            continue  # (a byte's None cannot straddle two cells)
        straddle = array(code)
        straddle.frombytes(bytes(size // 2) + array(code, [none]).tobytes() + bytes(size - size // 2))
        assert none not in straddle and array(code, [none]).tobytes() in straddle.tobytes()
        assert cells.cell_values(straddle) == straddle.tolist()
        assert cells.cell_values(array(code)) == []


def test_a_seq_the_same_as_its_index_is_one_array_until_a_write():
    """`share_equal` keeps a seq column that holds its event index's cells as that one array; a pack, a
    settle or a field set after makes them two again first (neither column gains the other's rows),
    and a cache entry that keeps the one array comes back so too."""
    from dsh_tui.model.opening.cachecodec import decode, encode
    items = [ModelCall(1, 1, k, k, start=None) for k in range(6)]
    got = PackedList(ModelCall, CALL_INTS, ("retries", "missing"))
    for c in items[:4]:
        got.append(c)
    got.pack()
    got.share_equal((("seq", "index"), ("end", "start"), ("turn", "nothing")))
    assert got.ints["seq"] is got.ints["index"] and got.ints["end"] is got.ints["start"] and got.shared
    tree, parts = encode(got.plain())
    back = PackedList.from_plain(ModelCall, CALL_INTS, ("retries", "missing"), decode(tree, b"".join(parts)))
    assert back.ints["seq"] is back.ints["index"] and back.shared and _same(back, items[:4])
    live = got.revive(3)
    live.seq = 30  # (its row is written when it settles)
    got.settle(live)
    assert got.ints["seq"] is not got.ints["index"] and not got.shared
    assert got.column("seq") == [0, 1, 2, 30] and got.column("index") == [0, 1, 2, 3]
    for c in items[4:]:
        back.append(c)
    back.pack()
    assert back.ints["seq"] is not back.ints["index"] and len(back.ints["seq"]) == len(back.ints["index"]) == 6
    assert _same(back, items[:3] + [ModelCall(1, 1, 3, 3, start=None)] + items[4:])


def test_columns_differing_in_a_cell_a_width_or_a_base_stay_two():
    t0 = 1_796_218_466_437
    items = [ModelCall(1, 1, k, k + (k == 2), start=t0 + k, end=k) for k in range(4)]
    got = PackedList.of(ModelCall, CALL_INTS, ("retries", "missing"), items)
    got.pack()
    got.ints["attempt_start"] = array(got.ints["start"].typecode, got.ints["start"])  # the same cells, no base
    for c in items:
        c.attempt_start = c.start - t0
    got.share_equal((("seq", "index"), ("end", "start"), ("turn", "step"), ("attempt_start", "start")))
    assert got.ints["turn"] is got.ints["step"]  # (the same cells: shared)
    assert got.ints["seq"] is not got.ints["index"] and got.ints["end"] is not got.ints["start"]  # a cell, a width
    assert got.ints["attempt_start"] is not got.ints["start"]  # a base
    assert "start" in got.bases and "attempt_start" not in got.bases and _same(got, items)


def test_a_timings_call_ids_share_the_pairs_keys_buffer_when_they_are_the_same():
    from dsh_tui.model.diagnosing.timing import Timing, ToolTiming, tool_list
    ids = [f"call_{k:06d}" for k in range(40)]
    for keys, shared in ((ids, True), (ids[::-1], False)):
        tools = tool_list([ToolTiming(c, "bash", 1, 1, k, k) for k, c in enumerate(ids)])
        tools.pack()
        pairs = PackedList(ModelCall, ("turn",), (), ("key",))  # (a list whose key column is text, as the pairs')
        pairs.objs["key"] = TextColumn(keys)
        timing = Timing(tools=tools)
        timing.share_call_ids(pairs)
        assert (tools.objs["call_id"].buf is pairs.objs["key"].buf) is shared
        assert list(tools.objs["call_id"]) == ids and list(pairs.objs["key"]) == keys
