"""The end of the timing pass (timewalk.py's `TimingWalk.finish`): what the log left open is closed
with a note of why (a tool or command never finished runs at least to the log's last time), the
calls and commands the pairing could not pair are marked, and what the times leave missing is said."""

from __future__ import annotations

from array import array
from itertools import chain
from typing import Any

from ..columns.packed import PackedList, column_values, columns
from .timing import Timing, note

_UNPAIRED_TOOL = frozenset({"unpaired", "TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN", "result-without-call"})


def finish_walk(w: Any, pairing, projected: bool) -> Timing:
    """The Timing of a walk that has read the whole log (`TimingWalk.finish`): what is still open
    closed and noted, the unpaired calls and commands marked, and what the log's times leave missing.
    ``w``: timewalk's walk (not imported: timewalk imports this module)."""
    w.close_call("the log ends inside the call")
    w.close_turn("the log ends inside the turn")
    out = w.out
    last = _last_time(out)
    for tool in w.tools.values():
        note(tool, "no tool/result: the call never finished" + _lower_bound(tool.start, last))
    w.tools, tools = {}, w.tools
    for m in w.commands.values():
        note(m, "no command/done: the command never finished" + _lower_bound(m.start, last))
    for tool in tools.values():
        w.done(tool)
    for _time_, at, _cid, _turn in w.asked.values():
        w.mark("approval", at)  # asked, never decided
    if pairing is not None:
        # (only those pairs made: a status in _UNPAIRED_TOOL, or no close; the marks are a set)
        for p in chain(pairing.tools.where("status", _UNPAIRED_TOOL.__contains__),
                       pairing.tools.where("close", _is_none)):
            at = p.open if p.open is not None else p.ask if p.ask is not None else p.close
            if at is not None:
                w.mark("unpaired", at)
        for p in pairing.commands.values():
            if p.close is None or p.open is None:
                w.mark("unpaired", p.open if p.open is not None else p.close)
    # (arrays, as the cache keeps them: a list's int objects, made at the end of the load, were
    # ~24k on the x11 file, each keeping its allocator pool from being given back)
    out.marks = {k: array("q", sorted(set(v))) for k, v in w.marks.items()}
    items = len(out.turns) + len(out.calls) + len(out.tools) + len(out.commands)
    untimed = sum(_untimed(group) for group in (out.turns, out.calls, out.tools, out.commands))
    if projected:
        out.missing.append("a projected fixture: its events carry no times")
    elif items and untimed == items:
        out.missing.append("no turn, call or command has a usable start time")
    elif untimed:
        out.missing.append(f"{untimed:,} of {items:,} turns, calls and commands have no usable start time")
    chunks, ends = (column_values(out.calls, name) for name in ("chunks", "end"))  # (a slice of rows at a time)
    if untimed < items and not any(chunks) and any(e is not None for e in ends):
        out.missing.append("no model output events were timed (time to first token, decoding and stalls "
                           "need the chunk events' times)")
    _pack_all(out)
    return out


def _pack_all(out: Timing) -> None:
    """On a log big enough that the walk packed, its last batch of calls, tool calls and turns into the
    columns too (~17k objects on a 10M-event log; a smaller log's are fewer than a batch, and packing
    them cost ~25 ms of the 936k log's ~70 ms pass). A packed tool call's callId is text there
    (timing.TOOL_TEXTS), as a finished pairing's keys are: no str a call in either."""
    for group in (out.calls, out.tools, out.turns):
        if isinstance(group, PackedList) and group.packed and not group.live:
            group.pack()


def _is_none(v: Any) -> bool:
    return v is None


def _untimed(items) -> int:
    """How many of ``items`` have no start time (a packed list's without making its records)."""
    return items.count_none("start") if isinstance(items, PackedList) else sum(x.start is None for x in items)


def _last_time(out: Timing) -> int | None:
    ends = [t for t in columns(out.turns, "end")[0] if t is not None]
    ends += [t for m in out.commands for t in (m.start, m.end) if t is not None]
    return max(ends) if ends else None


def _lower_bound(start: int | None, last: int | None) -> str:
    if start is None or last is None or last < start:
        return ""
    return f" (ran at least {last - start:,} ms, to the log's last time)"
