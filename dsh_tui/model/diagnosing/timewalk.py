"""The timing pass: one walk over the facts the scan kept (facts.py) builds the `Timing`.

A model call opens at its step/start and is timed from its request/header when it has one; its
outputs are the CHUNKS runs (the scan's ChunkClock); its assistant/message ends it. An llm/retry
starts a new attempt: time to first token and decoding are the last attempt's, a gap between
outputs counts as a stall only inside one attempt, and the wait is llm/retry to its
llm/retry-started. Tool calls pair by callId, approvals by id (their wait goes to the call they
name), commands by commandId.
"""

from __future__ import annotations

from sys import intern
from typing import Any

from ..reading.facts import (CHUNKS, R_EVENTS, R_FIRST, R_GAP, R_GAP_AT, R_LAST, R_STEP, R_TURN, R_UNTIMED,
                             TIME_KEY)
from .packed import PACK_AT, PackedList, columns
from .timing import CommandTiming, ModelCall, Timing, ToolTiming, TurnTiming, note
from .turnparts import NO_SPLIT, Split, positions

_SAFE = 2**53 - 1
_UNPAIRED_TOOL = frozenset({"unpaired", "TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN", "result-without-call"})


def _key(value: Any) -> str:
    return value if isinstance(value, str) else "(absent)" if value is None else repr(value)


class _Walk:
    def __init__(self, usage_calls: dict) -> None:
        self.out = Timing()
        self.usage = usage_calls
        self.turn: TurnTiming | None = None
        self.call: ModelCall | None = None
        self.run_end = -1  # the event index after the call's last output run
        self.attempt_runs = 0  # output runs in the call's current attempt
        self.tools: dict[str, ToolTiming] = {}
        self.asked: dict[str, list] = {}  # approval id -> [time, index, callId key, turn]
        self.commands: dict[str, CommandTiming] = {}
        self.marks: dict[str, list] = {}
        self.n_calls = self.n_tools = 0  # len(self.out.calls), len(self.out.tools)
        self.turn_calls: list[ModelCall] = []  # the open turn's records (its calls and tools are positions)
        self.turn_tools: list[ToolTiming] = []

    def mark(self, kind: str, index: int) -> None:
        self.marks.setdefault(kind, []).append(index)

    # -- model calls -------------------------------------------------------------------------
    def open_call(self, turn: Any, step: Any, index: int, seq: int) -> ModelCall:
        self.close_call("a new model call began without one")
        return self.add_call(ModelCall(turn, step, index, seq))

    def add_call(self, c: ModelCall) -> ModelCall:
        self.call = c
        self.run_end, self.attempt_runs = -1, 0
        if self.turn is not None:
            self.turn.calls.append(self.n_calls)
            self.turn_calls.append(c)
        self.out.calls.append(c)
        self.n_calls += 1
        return c

    def close_call(self, why: str) -> None:
        c = self.call
        if c is None:
            return
        self.call = None
        if c.end_index is None:
            note(c, f"no assistant/message: {why}" + ("; timed to its last output" if c.last_output else ""))
        if c.start is None:
            note(c, "no step/start or request/header time: no request start")
        if c.untimed:
            note(c, f"{c.untimed:,} output event(s) without a usable time")
        if c.chunks and c.first_output is None:
            note(c, "its output events carry no time")
        for r in c.retries:
            if r[4] is None:
                note(c, f"retry at seq {r[1]}: no llm/retry-started (or no time): the wait is not known"
                     + (f" (planned {r[3]:,} ms)" if type(r[3]) is int else ""))
                break

    def output(self, t: str, index: int, seq: int, run: list) -> None:
        c = self.call
        turn, step = run[R_TURN], run[R_STEP]
        if c is None or c.end is not None or c.chunks and (c.turn is not turn and c.turn != turn
                                                           or c.step is not step and c.step != step):
            c = self.open_call(turn, step, index, seq)  # (the compare of two tuples, without making them)
        if c.turn is None and c.step is None:
            c.turn, c.step = turn, step
        first, last, events = run[R_FIRST], run[R_LAST], run[R_EVENTS]
        c.chunks += events
        c.untimed += run[R_UNTIMED]
        if first is not None and not (type(first) is int and type(last) is int  # in JavaScript's safe range
                                      and -_SAFE <= first <= _SAFE and -_SAFE <= last <= _SAFE):
            c.untimed += events - run[R_UNTIMED]
            first = None
        if first is not None:
            if c.first_output is None or self.attempt_runs == 0:
                c.first_output = first
                if c.attempt_start is None:
                    c.attempt_start = c.start
            elif c.last_output is not None and first - c.last_output > c.stall_ms:
                c.stall_ms, c.stall_index = first - c.last_output, index  # a gap between runs of one attempt
            if run[R_GAP] > c.stall_ms:
                c.stall_ms, c.stall_index = run[R_GAP], index + run[R_GAP_AT]
            c.last_output = last
            self.attempt_runs += 1
        self.run_end = index + events

    def retry(self, t: str, index: int, seq: int, d: dict) -> None:
        time = d.get(TIME_KEY)
        c = self.call
        if c is None or c.end is not None:
            c = self.open_call(d.get("turn"), d.get("step"), index, seq)
        if t == "llm/retry":
            self.mark("retry", index)
            r = [index, seq, time, d.get("delayMs") if type(d.get("delayMs")) is int else None, None, None]
            c.retries = [*c.retries, r]
            c.attempt_start = time  # until its llm/retry-started says when the new attempt began
            self.attempt_runs = 0
            return
        for r in reversed(c.retries):
            if r[5] is None:
                r[5] = time
                r[4] = time - r[2] if time is not None and r[2] is not None and time >= r[2] else None
                c.attempt_start = time
                break

    def done(self, tool: ToolTiming) -> None:
        """A tool call has its result, or never will (called again by its callId, or the log ended)."""
        if tool.start is None:
            note(tool, "its tool/call has no time")
        elif tool.end is None and tool.end_index is not None:
            note(tool, "its tool/result has no time")
        elif tool.end is not None and tool.end < tool.start:
            note(tool, f"the clock ran backwards: result {tool.start - tool.end:,} ms before the call")
        if self.out.tools.live:  # it was packed while open
            self.out.tools.settle(tool)

    def pack(self) -> None:
        """Keep what is finished as columns (packed.py) once enough waits: every call but the open one,
        every tool call (those still waiting for a result stay live objects)."""
        calls, tools = self.out.calls, self.out.tools
        if len(calls.pending) > PACK_AT:
            calls.pack(len(calls.pending) - (self.call is not None))
        if len(tools.pending) > PACK_AT:
            tools.pack(live={id(t) for t in self.tools.values()})

    # -- the walk ----------------------------------------------------------------------------
    def turn_start(self, t, index, seq, d) -> None:
        self.close_turn("a new turn/start came first")
        # Every field up to its split given, by position: no default made only to be replaced at its close.
        self.turn = TurnTiming(d[0], index, seq, d[-1], None, None, True, [], [], (), NO_SPLIT)
        self.turn_calls, self.turn_tools = [], []
        self.out.turns.append(self.turn)

    def turn_end(self, t, index, seq, d) -> None:
        time = d[-1]
        self.close_call("its turn ended")
        reason = d[1].get("kind") if isinstance(d[1], dict) else None
        if type(reason) is str:
            reason = intern(reason)  # (interning.py, inlined: the diagnosis keeps the same kind)
        if reason != "completed":
            self.mark("turn-end", index)
        turn = self.turn
        if turn is None or turn.turn != d[0]:
            return
        turn.end, turn.reason, turn.open = time, reason, False
        if time is None:
            note(turn, "its turn/end has no time")
        self.turn = None
        turn.split = split_turn(self.out, turn, self.turn_calls, self.turn_tools)
        turn.calls, turn.tools = positions(turn.calls), positions(turn.tools)

    def close_turn(self, why: str) -> None:
        """An open turn is timed to the last time its calls, tools and approvals show."""
        turn = self.turn
        self.turn = None
        if turn is None or not turn.open:
            return
        times = [turn.start]
        for c in self.turn_calls:
            times += (c.start, c.last_output, c.end, *[r[5] for r in c.retries])
        for t in self.turn_tools:
            times += (t.start, t.end)
        for a in turn.approvals:
            times += a[:2]
        times = [t for t in times if t is not None]
        turn.end = max(times) if times else None
        note(turn, f"no turn/end ({why}): timed to its last event")
        turn.split = split_turn(self.out, turn, self.turn_calls, self.turn_tools)
        turn.calls, turn.tools = positions(turn.calls), positions(turn.tools)

    def step_start(self, t, index, seq, d) -> None:
        if self.call is not None:
            self.close_call("a new model call began without one")
        self.add_call(ModelCall(d[0], d[1], index, seq, d[-1], "step/start"))

    def request(self, t, index, seq, d) -> None:
        time = d[-1]
        c = self.call
        if c is None or c.end is not None:
            c = self.open_call(None, None, index, seq)
        if c.start_from != "request/header" and c.first_output is None and not c.retries:
            c.start, c.start_from, c.index, c.seq = time, "request/header", index, seq

    def message(self, t, index, seq, d) -> None:
        time = d[-1]
        c = self.call
        turn, step = d[0], d[1]
        if c is None or c.end is not None or c.chunks and (c.turn is not turn and c.turn != turn
                                                           or c.step is not step and c.step != step):
            c = self.open_call(turn, step, index, seq)
        c.end, c.end_index = time, index
        if time is None:
            note(c, "its assistant/message has no time")
        counts = self.usage.get((turn, step))
        c.output_tokens = counts[1][1] if counts is not None and len(counts[1]) > 1 else None
        self.close_call("")

    def tool_call(self, t, index, seq, d) -> None:
        name = d[3]
        if type(name) is str:
            name = intern(name)  # (interning.py, inlined: one a tool call)
        tool = ToolTiming(d[2], name, d[0], d[1], index, seq, d[-1])
        key = d[2] if type(d[2]) is str else _key(d[2])
        earlier = self.tools.get(key)
        if earlier is not None:
            note(earlier, f"no tool/result before the next tool/call of its callId (seq {seq})")
            self.done(earlier)
        self.tools[key] = tool
        if self.turn is not None:
            self.turn.tools.append(self.n_tools)
            self.turn_tools.append(tool)
        self.out.tools.append(tool)
        self.n_tools += 1

    def tool_result(self, t, index, seq, d) -> None:
        if d[6]:  # a pruning rewrite of an earlier result, not an outcome
            return
        time = d[-1]
        bad = d[3] or bool(d[4] and d[4].get("code"))
        if bad:
            self.mark("error", index)
        tool = self.tools.pop(d[2] if type(d[2]) is str else _key(d[2]), None)
        if tool is not None:
            tool.end, tool.end_index, tool.status = time, index, "error" if bad else "ok"
            self.done(tool)

    def approval(self, t, index, seq, d) -> None:
        time = d.get(TIME_KEY)
        aid = _key(d.get("id"))
        if t == "approval/asked":
            self.asked[aid] = [time, index, _key(d.get("callId")) if d.get("callId") is not None else None, self.turn]
            return
        outcome = d.get("outcome")
        if outcome != "allowed-once":
            self.mark("approval", index)
        ask = self.asked.pop(aid, None)
        if ask is None:
            return
        asked, at, cid, turn = ask
        if turn is not None:  # (its turn may be closed: an approval is decided after it ended)
            a = [asked, time, at, outcome if isinstance(outcome, str) else repr(outcome)]
            if turn.approvals:
                turn.approvals.append(a)
            else:
                turn.approvals = [a]  # an empty tuple until the first (most turns have none)
        tool = self.tools.get(cid) if cid is not None else None
        if tool is not None and asked is not None and time is not None and time >= asked:
            tool.approval_ms = (tool.approval_ms or 0) + time - asked

    def command(self, t, index, seq, d) -> None:
        time = d.get(TIME_KEY)
        cid = _key(d.get("commandId"))
        if t == "command/run":
            m = self.commands[cid] = CommandTiming(d.get("commandId"), d.get("name"), index, seq, start=time)
            self.out.commands.append(m)
            return
        m = self.commands.pop(cid, None)
        if m is not None:
            m.end = time

    def compaction(self, t, index, seq, d) -> None:
        self.mark("compaction", index)


_HANDLERS = {
    CHUNKS: _Walk.output, "turn/start": _Walk.turn_start, "turn/end": _Walk.turn_end, "step/start": _Walk.step_start,
"request/header": _Walk.request, "assistant/message": _Walk.message,
    "llm/retry": _Walk.retry, "llm/retry-started": _Walk.retry,
    "tool/call": _Walk.tool_call, "tool/result": _Walk.tool_result,
    "approval/asked": _Walk.approval, "approval/decided": _Walk.approval,
    "command/run": _Walk.command, "command/done": _Walk.command, "compaction/start": _Walk.compaction,
}


class TimingWalk:
    """The timing pass, resumable: `feed` the facts indexed so far (a big log's head is walked
    while its tail is still being read), `finish` once the log is whole."""

    def __init__(self, usage_calls: dict) -> None:
        self.w = _Walk(usage_calls)
        self.fed = 0
        self.handlers = {t: h.__get__(self.w) for t, h in _HANDLERS.items()}

    def feed(self, facts: list, final: bool = False) -> None:
        """Walk ``facts`` from where the last feed stopped. Short of the end, a trailing CHUNKS run is
        left for later: the scan may still be growing it."""
        end = len(facts)
        if not final:
            while end > self.fed and facts[end - 1][0] == CHUNKS:
                end -= 1
        get = self.handlers.get
        for k in range(self.fed, end):
            t, index, seq, d = facts[k]
            h = get(t)
            if h is not None:
                h(t, index, seq, d)
        self.fed = end
        self.w.pack()

    def finish(self, facts: list, pairing=None, projected: bool = False) -> Timing:
        """The Timing of the whole log; ``pairing`` (pairing.py, closed) adds the unpaired calls and
        commands to the anomalies."""
        self.feed(facts, final=True)
        return _finish(self.w, pairing, projected)


def compute_timing(facts: list, usage_calls: dict, pairing=None, projected: bool = False) -> Timing:
    """The log's timing from its facts (in log order) and per-call usage (facts.py) at once."""
    return TimingWalk(usage_calls).finish(facts, pairing, projected)


def _finish(w: _Walk, pairing, projected: bool) -> Timing:
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
        for p in pairing.tools.values():
            if p.status in _UNPAIRED_TOOL or p.close is None:
                at = p.open if p.open is not None else p.ask if p.ask is not None else p.close
                if at is not None:
                    w.mark("unpaired", at)
        for p in pairing.commands.values():
            if p.close is None or p.open is None:
                w.mark("unpaired", p.open if p.open is not None else p.close)
    out.marks = {k: sorted(set(v)) for k, v in w.marks.items()}
    items = len(out.turns) + len(out.calls) + len(out.tools) + len(out.commands)
    untimed = sum(_untimed(group) for group in (out.turns, out.calls, out.tools, out.commands))
    if projected:
        out.missing.append("a projected fixture: its events carry no times")
    elif items and untimed == items:
        out.missing.append("no turn, call or command has a usable start time")
    elif untimed:
        out.missing.append(f"{untimed:,} of {items:,} turns, calls and commands have no usable start time")
    chunks, ends = columns(out.calls, "chunks", "end")
    if untimed < items and not any(chunks) and any(e is not None for e in ends):
        out.missing.append("no model output events were timed (time to first token, decoding and stalls "
                           "need the chunk events' times)")
    return out


def _untimed(items) -> int:
    """How many of ``items`` have no start time (a packed list's without making its records)."""
    return items.count_none("start") if isinstance(items, PackedList) else sum(x.start is None for x in items)


def _last_time(out: Timing) -> int | None:
    ends = [t.end for t in out.turns if t.end is not None]
    ends += [t for m in out.commands for t in (m.start, m.end) if t is not None]
    return max(ends) if ends else None


def _lower_bound(start: int | None, last: int | None) -> str:
    if start is None or last is None or last < start:
        return ""
    return f" (ran at least {last - start:,} ms, to the log's last time)"


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
