"""A turn's wall time by activity (timing.py's docstring): the split the timing pass gives each turn it
closes (timewalk.py)."""

from __future__ import annotations

from .timing import ModelCall, Timing, TurnTiming, note
from ..columns.turnparts import NO_SPLIT, Split

# What a moment counts as when several are going on (a Split's figures are these, then idle: SPLIT_KEYS).
_ORDER = ("approval", "tool", "retry", "model")


def split_turn(timing: Timing, turn: TurnTiming, calls: list | None = None, tools: list | None = None) -> Split:
    """The turn's wall time by activity (module docstring); empty when it has no wall time.
    ``calls``, ``tools``: the turn's records, when the caller holds them (else read from ``timing``)."""
    lo, hi = turn.start, turn.end
    if lo is None or hi is None or hi < lo:
        if lo is not None and hi is not None:
            note(turn, f"the clock ran backwards: turn/end {lo - hi:,} ms before turn/start")
        return NO_SPLIT
    if calls is None:
        calls = [timing.calls[k] for k in turn.calls]
    if tools is None:
        tools = [timing.tools[k] for k in turn.tools]
    spans = []  # (start, end, activity rank), clipped to the turn; those with no time left out

    def add(a: int | None, b: int | None, rank: int) -> None:
        if a is not None and b is not None:
            if a < lo:
                a = lo
            if b > hi:
                b = hi
            if b > a:
                spans.append((a, b, rank))

    for c in calls:
        a, b = c.start, c.end if c.end is not None else c.last_output
        if a is not None and b is not None:  # add(), inlined for the many
            a, b = a if a > lo else lo, b if b < hi else hi
            if b > a:
                spans.append((a, b, 3))
        for r in c.retries:
            add(r[2], r[5], 2)
    for t in tools:
        a, b = t.start, t.end
        if a is not None and b is not None:
            a, b = a if a > lo else lo, b if b < hi else hi
            if b > a:
                spans.append((a, b, 1))
    for asked, decided, _index, _outcome in turn.approvals:
        add(asked, decided, 0)
    spent = [0, 0, 0, 0]
    spans.sort()
    reach = lo
    for a, b, rank in spans:  # the common turn: one thing at a time, each span after the last
        if a < reach:
            spent = _sweep(spans, lo)
            break
        spent[rank] += b - a
        reach = b
    spent.append((hi - lo) - sum(spent))  # idle
    return Split("q", spent)


def _sweep(spans: list, lo: int) -> list[int]:
    """Time per activity rank where spans overlap: each moment goes to the lowest rank going on."""
    edges = sorted([e for a, b, rank in spans for e in ((a, 1, rank), (b, -1, rank))])
    spent = [0, 0, 0, 0]
    active = [0, 0, 0, 0]
    prev = lo
    for at, delta, rank in edges:
        if at > prev:
            for r in range(4):
                if active[r]:
                    spent[r] += at - prev
                    break
            prev = at
        active[rank] += delta
    return spent


def split_parts(timing: Timing, turn: TurnTiming, parts: list) -> Split:
    """`split_turn` of a turn whose calls and tool calls are ``parts``, in the order they were made. The
    common turn does one thing at a time, and in that order: then its spans are sorted and apart as
    they come, and one loop over the records gives the split (no spans made, no sort). Any other turn
    (an overlap, an out of order span, a retry or approval wait) goes the general way."""
    lo, hi = turn.start, turn.end
    if lo is not None and hi is not None and hi >= lo and not turn.approvals:
        model = tool = 0
        reach = lo
        for x in parts:
            a = x.start
            if type(x) is ModelCall:
                if x.retries and any(r[2] is not None and r[5] is not None for r in x.retries):
                    break  # a retry wait: a span of its own, inside the call's
                b = x.end if x.end is not None else x.last_output
            else:
                b = x.end
            if a is None or b is None:
                continue
            if a < lo:
                a = lo
            if b > hi:
                b = hi
            if b <= a:
                continue
            if a < reach:
                break
            if type(x) is ModelCall:
                model += b - a
            else:
                tool += b - a
            reach = b
        else:
            return Split("q", (0, tool, 0, model, (hi - lo) - tool - model))
    return split_turn(timing, turn, [x for x in parts if type(x) is ModelCall],
                      [x for x in parts if type(x) is not ModelCall])
