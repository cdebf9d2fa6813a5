"""A closed turn's compact parts (model/columns/turnparts.py): positions as a range, approvals an
empty tuple until the first, the split an int64 array read as the dict it stands for, and their cache
form checked like any cache entry."""

from __future__ import annotations

from array import array

import pytest

from dsh_tui.model.columns.cells import NONE, ODD, widened
from dsh_tui.model.diagnosing.timewalk import compute_timing
from dsh_tui.model.diagnosing.timing import PLAIN_VERSION, Timing, TurnTiming
from dsh_tui.model.columns.turnparts import NO_POSITIONS, NO_SPLIT, SPLIT_KEYS, Split
from dsh_tui.model.opening.target import OpenOptions, open_target

from ..support.logs import shared_log
from ..support.plainform import values

NO_TIMING = ["no timing in this diagnosis"]


def _timing() -> Timing:
    """Two turns: one with a model call, two tool calls and an approval; one with nothing in it."""
    rows = [("turn/start", (1,)), ("step/start", (1, 1)), ("assistant/message", (1, 1, (), False)),
            ("tool/call", (1, 1, "a", "bash", "")), ("approval/asked", {"id": "p", "callId": "a"}),
            ("tool/call", (1, 1, "b", "read", "")), ("approval/decided", {"id": "p", "outcome": "rejected"}),
            ("tool/result", (1, 1, "a", False, None, "", False)), ("tool/result", (1, 1, "b", False, None, "", False)),
            ("turn/end", (1, {"kind": "completed"})), ("turn/start", (2,)), ("turn/end", (2, {"kind": "completed"}))]
    facts = []
    for k, (t, d) in enumerate(rows):
        time = 1000 + 10 * k
        facts.append((t, k, k, {**d, "@time": time} if isinstance(d, dict) else (*d, time)))
    return compute_timing(facts, {})


def test_a_closed_turn_keeps_ranges_a_shared_empty_and_its_approvals():
    timing = _timing()
    first, second = timing.turns
    assert first.calls == range(0, 1) and first.tools == range(0, 2) and type(first.tools) is range
    assert second.calls is NO_POSITIONS and second.tools is NO_POSITIONS
    assert first.approvals == [[1040, 1060, 4, "rejected"]] and second.approvals == ()
    assert [t.name for t in timing.lanes(first)] == ["model", "retry", "tool", "approval"]
    assert TurnTiming(1, 0, 0).approvals == () and TurnTiming(1, 0, 0).split is NO_SPLIT


def test_the_turns_of_a_big_log_are_ranges():
    path = shared_log("large/medium-4550-events__session.jsonl.zstd")
    _log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    timing = diag.timing
    assert all(type(t.calls) is range and type(t.tools) is range for t in timing.turns)
    assert sum(map(len, (t.calls for t in timing.turns))) == len(timing.calls)
    assert all(timing.calls[k].turn == t.turn for t in timing.turns for k in t.calls)


def test_the_split_reads_as_a_dict():
    split = _timing().turns[0].split
    want = {"approval_ms": 20, "tool_ms": 30, "retry_ms": 0, "model_ms": 10, "idle_ms": 30}
    assert type(split) is Split and split == want and want == split and not split != want
    assert list(split) == list(want) and split.keys() == SPLIT_KEYS and split.values() == list(want.values())
    assert split.items() == list(want.items()) and sum(split.values()) == 90 and len(split) == 5
    assert split["tool_ms"] == 30 and split.get("tool_ms") == 30 and split.get("wall_ms", 0) == 0
    assert "idle_ms" in split and "wall_ms" not in split and 0 not in split and bool(split)
    assert split.get(0) is None and repr(split) == repr(want)
    with pytest.raises(KeyError):
        split["wall_ms"]
    with pytest.raises(KeyError):
        split[0]
    assert _timing().turns[1].split == {"approval_ms": 0, "tool_ms": 0, "retry_ms": 0, "model_ms": 0, "idle_ms": 10}
    empty = Split("q")  # (no wall time)
    assert empty == {} and not empty and empty.get("idle_ms", 0) == 0 and list(empty) == [] and empty.items() == []
    with pytest.raises(KeyError):
        NO_SPLIT["idle_ms"]
    assert Split("q", split.values()) == split and Split("q") == NO_SPLIT and split != NO_SPLIT and split != [1]


def test_turns_round_trip_through_the_cache_form():
    from dsh_tui.model.opening.cachecodec import decode, encode
    timing = _timing()
    timing.turns.append(TurnTiming(3, 20, 20, calls=[0], tools=[1, 0], missing=["x"]))  # positions that skip
    timing.turns.append(TurnTiming(4, 21, 21, reason="".join(["comp", "leted"]), open=False))
    plain = timing.plain()
    assert plain[0] == PLAIN_VERSION and plain[4][0] == "columns"  # turns as columns (turnlist.py)
    tree, parts = encode(plain)
    back = Timing.from_plain(decode(tree, b"".join(parts)))
    assert back.missing == timing.missing != NO_TIMING and values(back.plain()) == values(plain)
    assert [repr(t) for t in back.turns] == [repr(t) for t in timing.turns]
    assert back.turns[0].tools == range(0, 2) and back.turns[1].calls is NO_POSITIONS
    assert back.turns[2].split is NO_SPLIT and back.turns[1].approvals == () and back.turns[2].tools == [1, 0]
    assert back.turns[0].reason is back.turns[3].reason  # one str, as the pass shares it


def _broken(change) -> Timing:
    plain = list(_timing().plain())
    tag, n, ints, bases, odd, objs, sparse = plain[4]
    # (its cells as int64 values, as a column that needs no base keeps them: a marker of either width fits)
    turns = {"ints": {k: array("q", widened(v, bases.get(k, 0))) for k, v in ints.items()}, "odd": list(odd),
             "objs": {k: v if type(v) is tuple else list(v) for k, v in objs.items()},  # (a coded column: a tuple)
             "sparse": {k: dict(v) for k, v in sparse.items()}}
    plain[4] = None
    change(turns, plain)
    if plain[4] is None:
        plain[4] = (tag, n, turns["ints"], {}, turns["odd"], turns["objs"], turns["sparse"])
    return Timing.from_plain(tuple(plain))


def _cell(name: str, k: int, v) -> object:
    return lambda t, p: t["ints"][name].__setitem__(k, v)


def _odd(name: str, v) -> object:
    def change(t, p) -> None:
        t["ints"][name][0] = ODD
        t["odd"].append([name, 0, v])
    return change


def _kept(name: str, v) -> object:
    return lambda t, p: t["sparse"][name].__setitem__(0, v)


@pytest.mark.parametrize("change", [
    lambda t, p: t["ints"]["calls_hi"].pop(),  # a column short
    lambda t, p: t["ints"].pop("idle_ms"),  # a column missing
    _cell("calls_hi", 0, 2),  # past the model calls
    _cell("tools_lo", 0, -1),
    lambda t, p: t["ints"]["tools_hi"].__setitem__(0, 1) or t["ints"]["tools_lo"].__setitem__(0, 2),  # past its hi
    _cell("tools_lo", 0, NONE),  # a list's, without the list
    _kept("skips", ([0, "1"], None)),
    _kept("skips", (None, [5])),
    _kept("skips", (None, range(0, 2))),  # (a cache entry may hold a range: not here)
    _kept("skips", [None, None]),
    _kept("approvals", [[1, 2, 3]]),  # an approval short
    _kept("approvals", "x"),
    _cell("idle_ms", 0, NONE),  # a split short
    _odd("idle_ms", 5),
    _odd("start", "5"),
    _odd("seq", 2.0),
    _cell("index", 0, NONE),
    _kept("missing", [1]),  # a note not text
    lambda t, p: t["objs"]["open"].__setitem__(0, 1),  # open not a bool
    lambda t, p: p.__setitem__(4, []),  # not columns
    lambda t, p: p.__setitem__(3, [("a",)]),  # a command short
    lambda t, p: p.__setitem__(3, None),
])
def test_a_turn_of_a_bad_shape_reads_as_no_timing(change):
    assert _broken(lambda t, p: None).missing != NO_TIMING
    assert _broken(change).missing == NO_TIMING
