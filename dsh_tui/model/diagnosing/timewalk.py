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

from ..reading.facts import CHUNKS, TIME_KEY
from ..columns.calltable import CallTable
from ..columns.packed import PACK_AT, pack_due
from .timing import CommandTiming, ModelCall, Timing, ToolTiming, TurnTiming, note
from ..columns.turnparts import NO_POSITIONS, NO_SPLIT
from .timefinish import finish_walk
from .turnsplit import split_parts

_SAFE = 2**53 - 1


NEW_CALL = "a new model call began without one"


def _key(value: Any) -> str:
    return value if isinstance(value, str) else "(absent)" if value is None else repr(value)


def _close(c: ModelCall, why: str) -> None:
    """A model call is done: what is missing of it, noted."""
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


def _positions(first: int, n: int) -> range:
    """A closed turn's positions, from the first made while it was open to the last: a range."""
    return range(first, n) if n > first else NO_POSITIONS


class _Walk:
    def __init__(self, usage_calls: CallTable | dict) -> None:
        self.out = Timing()
        self.usage = usage_calls
        # A call's output tokens; a plain dict is an empty table (a caller with no usage passes {})
        self.output = usage_calls.output if isinstance(usage_calls, CallTable) else CallTable().output
        self.turn: TurnTiming | None = None
        self.call: ModelCall | None = None  # never one with an end: its assistant/message closes it
        self.attempt_runs = 0  # output runs in the call's current attempt
        self.tools: dict[str, ToolTiming] = {}
        self.asked: dict[str, list] = {}  # approval id -> [time, index, callId key, its turn's position]
        self.commands: dict[str, CommandTiming] = {}
        self.marks: dict[str, list] = {}
        # The open turn's calls and tool calls in the order made, and their first positions: every one
        # made while it is open is its, so its positions are ranges known at its close.
        self.turn_parts: list = []
        self.first_call = self.first_tool = 0

    def mark(self, kind: str, index: int) -> None:
        self.marks.setdefault(kind, []).append(index)

    # -- model calls -------------------------------------------------------------------------
    def open_call(self, turn: Any, step: Any, index: int, seq: int) -> ModelCall:
        c = self.new_call(self.call, turn, step, index, seq)
        self.call, self.attempt_runs = c, 0
        return c

    def new_call(self, old: ModelCall | None, turn: Any, step: Any, index: int, seq: int) -> ModelCall:
        """A model call not begun by a step/start (the walk's caller makes it the current one)."""
        if old is not None:
            _close(old, NEW_CALL)
        c = ModelCall(turn, step, index, seq)
        if self.turn is not None:
            self.turn_parts.append(c)
        self.out.calls.append(c)
        return c

    def close_call(self, why: str) -> None:
        c = self.call
        if c is not None:
            self.call = None
            _close(c, why)

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
        """Keep what is finished as columns (packed.py) once enough waits: every call and turn but the open
        one, every tool call (those still waiting for a result stay live objects)."""
        calls, tools, turns = self.out.calls, self.out.tools, self.out.turns
        if pack_due(calls, PACK_AT):
            calls.pack(len(calls.pending) - (self.call is not None))
        if pack_due(turns, PACK_AT):  # (the open turn is the last)
            turns.pack(len(turns.pending) - (self.turn is not None))
        if pack_due(tools, PACK_AT):
            tools.pack(live={id(t) for t in self.tools.values()})

    # -- the walk ----------------------------------------------------------------------------
    def walk(self, facts: list, lo: int, hi: int, rare: dict) -> None:
        """Walk facts[lo:hi]. The frequent types are handled here, inline, in order of frequency (no
        method call a fact: on a big log that was much of the pass); ``rare`` has the methods for the
        others. The current call and its attempt's runs live in locals, handed to those methods and
        taken back."""
        call, runs = self.call, self.attempt_runs
        out, tools, output_of, live = self.out, self.tools, self.output, self.out.tools.live
        calls, tool_list = out.calls, out.tools
        add_call, add_tool = calls.pending.append, tool_list.pending.append
        for t, index, seq, d in facts[lo:hi]:  # (a copy of the slice is cheaper than indexing each)
            if t == "step/start":
                if call is not None:
                    _close(call, NEW_CALL)
                call, runs = ModelCall(d[0], d[1], index, seq, d[-1], "step/start"), 0
                if self.turn is not None:
                    self.turn_parts.append(call)
                add_call(call)
            elif t == "request/header":
                if call is None:  # (the current call never has an end: its assistant/message closed it)
                    call, runs = self.new_call(None, None, None, index, seq), 0
                if call.start_from != "request/header" and call.first_output is None and not call.retries:
                    call.start, call.start_from, call.index, call.seq = d[-1], "request/header", index, seq
            elif t == CHUNKS:  # a run of output events (the scan's ChunkClock)
                turn, step, events, first, last, gap, gap_at, untimed, _first_at = d  # (facts.py's R_* layout)
                if call is None or call.chunks and (call.turn is not turn and call.turn != turn
                                                    or call.step is not step and call.step != step):
                    call, runs = self.new_call(call, turn, step, index, seq), 0  # (compares, no tuples made)
                if call.turn is None and call.step is None:
                    call.turn, call.step = turn, step
                call.chunks += events
                if untimed:
                    call.untimed += untimed
                if first is None:
                    continue
                if not (type(first) is int and type(last) is int  # in JavaScript's safe range
                        and -_SAFE <= first <= _SAFE and -_SAFE <= last <= _SAFE):
                    call.untimed += events - untimed
                    continue
                if runs == 0 or call.first_output is None:
                    call.first_output = first
                    if call.attempt_start is None:
                        call.attempt_start = call.start
                elif call.last_output is not None and first - call.last_output > call.stall_ms:
                    call.stall_ms, call.stall_index = first - call.last_output, index  # a gap between runs
                if gap > call.stall_ms:
                    call.stall_ms, call.stall_index = gap, index + gap_at
                call.last_output = last
                runs += 1
            elif t == "assistant/message":
                turn, step = d[0], d[1]
                if call is None or call.chunks and (call.turn is not turn and call.turn != turn
                                                    or call.step is not step and call.step != step):
                    call = self.new_call(call, turn, step, index, seq)
                time = call.end = d[-1]
                call.end_index = index
                if time is None:
                    note(call, "its assistant/message has no time")
                output = output_of(turn, step)
                if output is not None:  # (else output_tokens stays None)
                    call.output_tokens = output
                if call.start is None or call.untimed or call.retries or call.chunks and call.first_output is None:
                    _close(call, "")  # (a note to add: the usual call has none)
                call, runs = None, 0
            elif t == "step/end":
                continue
            elif t == "tool/call":
                name = d[3]
                if type(name) is str:
                    name = intern(name)  # (interning.py, inlined: one a tool call)
                tool = ToolTiming(d[2], name, d[0], d[1], index, seq, d[-1])
                key = d[2] if type(d[2]) is str else _key(d[2])
                earlier = tools.get(key)
                if earlier is not None:
                    note(earlier, f"no tool/result before the next tool/call of its callId (seq {seq})")
                    self.done(earlier)
                tools[key] = tool
                if self.turn is not None:
                    self.turn_parts.append(tool)
                add_tool(tool)
            elif t == "tool/result":
                if d[6]:  # a pruning rewrite of an earlier result, not an outcome
                    continue
                bad = d[3] or bool(d[4] and d[4].get("code"))
                if bad:
                    self.mark("error", index)
                tool = tools.pop(d[2] if type(d[2]) is str else _key(d[2]), None)
                if tool is not None:
                    time = tool.end = d[-1]
                    tool.end_index, tool.status = index, "error" if bad else "ok"
                    if time is None or tool.start is None or time < tool.start or live:
                        self.done(tool)  # (a note to add, or a packed row to settle: else nothing to do)
            elif t == "turn/start":
                if self.turn is not None:
                    self.close_turn("a new turn/start came first")
                # Every field up to its split given, by position: none made only to be replaced at its close.
                self.turn = turn = TurnTiming(d[0], index, seq, d[-1], None, None, True, NO_POSITIONS, NO_POSITIONS,
                                              (), NO_SPLIT)
                self.turn_parts = []
                self.first_call = calls.packed + len(calls.pending)  # (len(), without its method call)
                self.first_tool = tool_list.packed + len(tool_list.pending)
                out.turns.append(turn)
            elif t == "turn/end":
                if call is not None:
                    _close(call, "its turn ended")
                    call = None
                reason = d[1].get("kind") if isinstance(d[1], dict) else None
                if type(reason) is str:
                    reason = intern(reason)  # (interning.py, inlined: the diagnosis keeps the same kind)
                if reason != "completed":
                    self.mark("turn-end", index)
                turn = self.turn
                if turn is None or turn.turn != d[0]:
                    continue
                time = turn.end = d[-1]
                turn.reason, turn.open = reason, False
                if time is None:
                    note(turn, "its turn/end has no time")
                self.end_turn(turn)
            else:
                h = rare.get(t)
                if h is not None:
                    self.call, self.attempt_runs = call, runs
                    h(t, index, seq, d)
                    call, runs = self.call, self.attempt_runs
        self.call, self.attempt_runs = call, runs

    def retry(self, t: str, index: int, seq: int, d: dict) -> None:
        time = d.get(TIME_KEY)
        c = self.call
        if c is None:
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

    def close_turn(self, why: str) -> None:
        """An open turn is timed to the last time its calls, tools and approvals show."""
        turn = self.turn
        if turn is None:
            return
        times = [turn.start]
        for x in self.turn_parts:
            if type(x) is ModelCall:
                times += (x.start, x.last_output, x.end, *[r[5] for r in x.retries])
            else:
                times += (x.start, x.end)
        for a in turn.approvals:
            times += a[:2]
        times = [t for t in times if t is not None]
        turn.end = max(times) if times else None
        note(turn, f"no turn/end ({why}): timed to its last event")
        self.end_turn(turn)

    def end_turn(self, turn: TurnTiming) -> None:
        """Its split, and its positions (`turn_parts`)."""
        self.turn = None
        turn.split = split_parts(self.out, turn, self.turn_parts)
        calls, tools = self.out.calls, self.out.tools
        turn.calls = _positions(self.first_call, calls.packed + len(calls.pending))
        turn.tools = _positions(self.first_tool, tools.packed + len(tools.pending))

    def approval(self, t, index, seq, d) -> None:
        time = d.get(TIME_KEY)
        aid = _key(d.get("id"))
        if t == "approval/asked":
            self.asked[aid] = [time, index, _key(d.get("callId")) if d.get("callId") is not None else None,
                               len(self.out.turns) - 1 if self.turn is not None else None]
            return
        outcome = d.get("outcome")
        if outcome != "allowed-once":
            self.mark("approval", index)
        ask = self.asked.pop(aid, None)
        if ask is None:
            return
        asked, at, cid, turn = ask
        if turn is not None:  # (its turn may be closed, even packed: an approval is decided after it ended)
            self.out.turns.add_approval(turn, [asked, time, at, outcome if isinstance(outcome, str) else repr(outcome)])
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


# The types `_Walk.walk` does not handle inline.
_RARE = {
    "llm/retry": _Walk.retry, "llm/retry-started": _Walk.retry,
    "approval/asked": _Walk.approval, "approval/decided": _Walk.approval,
    "command/run": _Walk.command, "command/done": _Walk.command, "compaction/start": _Walk.compaction,
}


class TimingWalk:
    """The timing pass, resumable: `feed` the facts indexed so far (a big log's head is walked
    while its tail is still being read), `finish` once the log is whole."""

    def __init__(self, usage_calls: dict) -> None:
        self.w = _Walk(usage_calls)
        self.fed = 0
        self.rare = {t: h.__get__(self.w) for t, h in _RARE.items()}

    def feed(self, facts: list, final: bool = False) -> None:
        """Walk ``facts`` from where the last feed stopped. Short of the end, a trailing CHUNKS run is
        left for later: the scan may still be growing it."""
        end = len(facts)
        if not final:
            while end > self.fed and facts[end - 1][0] == CHUNKS:
                end -= 1
        self.w.walk(facts, self.fed, end, self.rare)
        self.fed = end
        self.w.pack()

    def finish(self, facts: list, pairing=None, projected: bool = False) -> Timing:
        """The Timing of the whole log; ``pairing`` (pairing.py, closed) adds the unpaired calls and
        commands to the anomalies."""
        self.feed(facts, final=True)
        return finish_walk(self.w, pairing, projected)


def compute_timing(facts: list, usage_calls: dict, pairing=None, projected: bool = False) -> Timing:
    """The log's timing from its facts (in log order) and per-call usage (facts.py) at once."""
    return TimingWalk(usage_calls).finish(facts, pairing, projected)
