"""A turn's split (model/diagnosing/turnsplit.py): the one-loop way the timing pass takes for a turn
whose calls and tool calls come sorted and apart gives what the general way (spans sorted, swept
where they overlap) gives, for every turn, and the pass gives each turn positions as ranges."""

from __future__ import annotations

import random

import pytest

from dsh_tui.model.diagnosing.timewalk import compute_timing
from dsh_tui.model.diagnosing.timing import ModelCall, Timing, ToolTiming, TurnTiming
from dsh_tui.model.columns.turnparts import NO_POSITIONS, NO_SPLIT
from dsh_tui.model.diagnosing.turnsplit import split_parts, split_turn


def _turn(rng: random.Random, lo: int, hi: int | None) -> tuple[TurnTiming, list]:
    """A turn with calls and tool calls in the order made: mostly one after another, sometimes
    overlapping, out of order, past the turn's ends, without a time, with a retry or an approval."""
    turn = TurnTiming(1, 0, 0, lo, hi)
    parts, at = [], lo - rng.choice((0, 0, 0, 5))
    for k in range(rng.randrange(0, 7)):
        a = at + rng.choice((0, 1, 3, 8))
        b = a + rng.choice((0, 2, 7, 20))
        if rng.random() < 0.1:
            a -= 15  # overlaps what came before
        if rng.random() < 0.3:
            c = ModelCall(1, k, k, k, None if rng.random() < 0.05 else a)
            if rng.random() < 0.7:
                c.end = b
            else:
                c.last_output = b if rng.random() < 0.8 else None
            if rng.random() < 0.15:
                c.retries = [[k, k, a + 1, None, None, None if rng.random() < 0.5 else a + 2]]
            parts.append(c)
        else:
            parts.append(ToolTiming("c", "bash", 1, k, k, k, a, None if rng.random() < 0.05 else b))
        at = b
    if rng.random() < 0.1:
        turn.approvals = [[lo + 1, lo + 4, 0, "rejected"]]
    return turn, parts


@pytest.mark.parametrize("seed", range(4))
def test_the_one_loop_split_is_the_general_one(seed: int) -> None:
    rng = random.Random(seed)
    fast = 0
    for _ in range(3000):
        lo = rng.randrange(1000, 1010)
        turn, parts = _turn(rng, lo, rng.choice((lo + 40, lo + 80, lo - 1, None)))
        twin = TurnTiming(1, 0, 0, turn.start, turn.end, approvals=turn.approvals)
        calls = [x for x in parts if type(x) is ModelCall]
        tools = [x for x in parts if type(x) is ToolTiming]
        got = split_parts(Timing(), turn, parts)
        assert got == split_turn(Timing(), twin, calls, tools)
        assert type(got) is type(NO_SPLIT) and turn.missing == twin.missing  # (the same note, once)
        if got and not turn.approvals and len(parts) > 1:
            fast += 1
    assert fast > 500  # the turns the one loop takes are many of these


def test_a_turn_out_of_order_is_split_by_the_general_way() -> None:
    """A tool call made after a model call but running before it: apart, though not in the order made."""
    turn = TurnTiming(1, 0, 0, 0, 100)
    parts = [ModelCall(1, 1, 0, 0, 50, end=60), ToolTiming("c", "bash", 1, 1, 1, 1, 10, 20)]
    assert split_parts(Timing(), turn, parts) == {"approval_ms": 0, "tool_ms": 10, "retry_ms": 0,
                                                  "model_ms": 10, "idle_ms": 80}
    overlapping = [ModelCall(1, 1, 0, 0, 0, end=60), ToolTiming("c", "bash", 1, 1, 1, 1, 50, 70)]
    assert split_parts(Timing(), turn, overlapping) == {"approval_ms": 0, "tool_ms": 20, "retry_ms": 0,
                                                        "model_ms": 50, "idle_ms": 30}


def test_the_pass_gives_turns_their_positions_as_ranges() -> None:
    rows = [("step/start", (0, 1)), ("turn/start", (1,)), ("step/start", (1, 1)), ("assistant/message", (1, 1, (), False)),
            ("tool/call", (1, 1, "a", "bash", "")), ("tool/result", (1, 1, "a", False, None, "", False)),
            ("step/start", (1, 2)), ("assistant/message", (1, 2, (), False)), ("turn/end", (1, {"kind": "completed"})),
            ("tool/call", (1, 1, "b", "bash", "")), ("turn/start", (2,)), ("turn/start", (3,)),
            ("tool/call", (3, 1, "c", "bash", ""))]
    facts = [(t, k, k, (*d, 1000 + 10 * k)) for k, (t, d) in enumerate(rows)]
    timing = compute_timing(facts, {})
    one, two, three = timing.turns
    assert (one.calls, one.tools) == (range(1, 3), range(0, 1))
    assert two.calls is NO_POSITIONS and two.tools is NO_POSITIONS  # (no turn/end: closed by the next)
    assert (three.calls, three.tools) == (NO_POSITIONS, range(2, 3)) and three.open
    assert one.split == {"approval_ms": 0, "tool_ms": 10, "retry_ms": 0, "model_ms": 20, "idle_ms": 40}
