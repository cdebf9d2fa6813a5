"""The timing's turns kept as columns (model/columns/turnlist.py): a finished timing holds no turn
object, and a turn read back (by position, in order, through the cache) is the one the walk made."""

from __future__ import annotations

import gc

import orjson
import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.columns import turnlist
from dsh_tui.model.diagnosing import timewalk
from dsh_tui.model.diagnosing.timing import Timing, TurnTiming
from dsh_tui.model.columns.turnlist import TurnList
from dsh_tui.model.presenting.timing_text import slowest_lines, timing_json
from dsh_tui.model.opening.cachecodec import decode, encode
from dsh_tui.model.opening.target import OpenOptions, open_target


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    path = tmp_path_factory.mktemp("turns") / "s__session.jsonl.zstd"
    write_synthetic(path, 20_000)
    return open_target(path, OpenOptions(use_cache=False, write_cache=False, keep_facts=True))


def _reachable(root) -> set[type]:
    seen, types, stack = set(), set(), [root]
    while stack:
        x = stack.pop()
        if id(x) in seen or isinstance(x, type):
            continue
        seen.add(id(x))
        types.add(type(x))
        stack.extend(gc.get_referents(x))
    return types


def _unpacked(monkeypatch, *args) -> Timing:
    """The timing of a walk that keeps every turn the object it made."""
    with monkeypatch.context() as m:
        m.setattr(TurnList, "pack", lambda self, count=None, live=frozenset(): None)
        out = timewalk.compute_timing(*args)
    assert len(out.turns.pending) == len(out.turns) and all(type(t) is TurnTiming for t in out.turns.pending)
    return out


def _same(a, b) -> bool:
    return [repr(x) for x in a] == [repr(x) for x in b]


def _through_the_cache(timing: Timing) -> Timing:
    tree, parts = encode(timing.plain())
    return Timing.from_plain(decode(tree, b"".join(parts)))


def test_a_finished_timing_keeps_no_turn_object_once_the_walk_packed(synthetic, monkeypatch) -> None:
    log, diag = synthetic
    small = diag.timing.turns  # fewer turns than a batch: never packed (packing them would cost the pass)
    assert type(small) is TurnList and len(small) > 50 and not small.packed and len(small.pending) == len(small)
    monkeypatch.setattr(timewalk, "PACK_AT", 20)
    timing = timewalk.compute_timing(log.res.facts, log.res.usage_calls, diag.pairing, log.res.projected)
    turns = timing.turns
    assert turns.packed == len(turns) == len(small) and not turns.pending
    assert TurnTiming not in _reachable(timing)
    assert TurnTiming not in _reachable(_through_the_cache(timing))


@pytest.mark.parametrize("pack_at", [None, 3])
def test_turns_read_back_are_the_ones_the_walk_made(synthetic, monkeypatch, pack_at) -> None:
    log, diag = synthetic
    args = (log.res.facts, log.res.usage_calls, diag.pairing, log.res.projected)
    want = _unpacked(monkeypatch, *args)
    if pack_at is not None:  # packed while walking, a few at a time
        monkeypatch.setattr(timewalk, "PACK_AT", pack_at)
    got = timewalk.compute_timing(*args)
    assert got.turns.packed == (0 if pack_at is None else len(got.turns)) and _same(got.turns, want.turns)
    n = len(want.turns)
    assert [got.turns[k] for k in range(n)] == list(want.turns) and got.turns[-1] == want.turns[-1]
    assert got.turns[5:40:7] == want.turns.pending[5:40:7]
    assert _same(_through_the_cache(got).turns, want.turns)
    assert [got.turn_of(t.turn) for t in want.turns[::9]] == [want.turn_of(t.turn) for t in want.turns[::9]]
    assert timing_json(log, got) == timing_json(log, want) and slowest_lines(log, got) == slowest_lines(log, want)
    assert _turns_json_as_records(got.turns) and _turns_json_as_records(_through_the_cache(got).turns)
    assert [repr(got.lanes(t)) for t in got.turns[::11]] == [repr(want.lanes(t)) for t in want.turns[::11]]


def _turns_json_as_records(turns: TurnList) -> bool:
    """The JSON's turns read from the columns are those of each turn made from its row (values, their
    types and the keys' order alike)."""
    from dsh_tui.model.presenting import timing_text
    got = orjson.dumps(list(timing_text._turns_json(turns)), default=repr)
    return got == orjson.dumps([timing_text._turn_json(t) for t in turns], default=repr)


def _facts(rows: list) -> list:
    out = []
    for k, (t, d, *time) in enumerate(rows):
        time = time[0] if time else 1000 + 10 * k
        out.append((t, k, k, {**d, "@time": time} if isinstance(d, dict) else (*d, time)))
    return out


def _odd_log() -> list:
    """An approval decided three turns after its own; turn numbers not ints; times past int64."""
    big = 2**70
    return _facts([
        ("turn/start", (1,)), ("tool/call", (1, 1, "a", "bash", "")),
        ("approval/asked", {"id": "p", "callId": "a"}), ("turn/end", (1, {"kind": "completed"})),
        ("turn/start", ("x",)), ("turn/end", ("x", {"kind": "interrupted"})),
        ("turn/start", (1.5,), big), ("turn/end", (1.5, {"kind": "completed"}), big + 7),
        ("turn/start", (True,)), ("step/start", (True, 1)), ("turn/end", (True, {"kind": 5})),
        ("approval/decided", {"id": "p", "outcome": "rejected"}), ("turn/start", (None,)),
    ])


@pytest.mark.parametrize("pack_at", [None, 1])
def test_odd_turns_and_a_late_approval_come_back_exactly(monkeypatch, pack_at) -> None:
    facts = _odd_log()
    want = _unpacked(monkeypatch, facts, {})
    if pack_at is not None:
        monkeypatch.setattr(timewalk, "PACK_AT", pack_at)
    got = timewalk.compute_timing(facts, {})
    if pack_at is not None:
        assert got.turns.odd and got.turns.sparse["approvals"]  # (the odd values, the approval, as columns)
    assert [t.turn for t in got.turns] == [1, "x", 1.5, True, None] and type(got.turns[3].turn) is bool
    assert got.turns[0].approvals == [[1020, 1110, 2, "rejected"]] and got.turns[2].start == 2**70
    assert got.turns[2].wall_ms == 7 and got.turns[3].calls == range(0, 1) and got.turns[0].tools == range(0, 1)
    for back in (got, _through_the_cache(got)):
        assert _same(back.turns, want.turns)
        dump = orjson.dumps(timing_json(None, back), default=repr)
        assert dump == orjson.dumps(timing_json(None, want), default=repr)
        assert _turns_json_as_records(back.turns)
    assert got.turn_of("x") == want.turns[1] and got.turn_of(1) == want.turns[3]  # (True == 1: the last such)


def test_a_hand_made_timing_of_turn_objects_still_reads() -> None:
    turns = [TurnTiming(1, 0, 0, 10, 20, "completed", False, range(0, 0), [1, 0], split={"idle_ms": 10})]
    timing = Timing(turns=turns)
    assert timing.turn_at(3) is turns[0] and timing.turn_of(1) is turns[0]
    assert timing_json(None, timing)["totals"]["idle_ms"] == 10
    assert isinstance(turnlist.turn_list(turns), TurnList)


def test_the_turn_totals_and_each_turns_json_read_the_splits_as_their_dicts_would(synthetic):
    """A common log's turns are objects: their totals are summed over one array of every split and a
    turn's JSON takes its split's figures at once, in the JSON's own key order; a list of turns (and a
    split that is a dict) are read key by key. All three agree."""
    from dsh_tui.model.presenting import timing_text
    _log, diag = synthetic
    turns = diag.timing.turns
    assert isinstance(turns, TurnList) and not turns.packed and any(t.split for t in turns)
    keys = timing_text.SPLIT_KEYS
    plain = [TurnTiming(t.turn, t.index, t.seq, t.start, t.end, t.reason, t.open, split=dict(t.split.items()),
                        missing=t.missing) for t in turns]
    want = ({k: sum(t.split.get(k, 0) for t in plain) for k in keys}, turnlist.turn_totals(plain, keys)[1])
    assert turnlist.turn_totals(turns, keys) == want and turnlist.turn_totals(plain, keys) == want
    assert [timing_text._turn_json(t) for t in turns] == [timing_text._turn_json(t) for t in plain]
    assert list(timing_text._turn_json(turns[0])) == ["turn", "seq", "reason", "open", "wall_ms", *keys, "missing"]
