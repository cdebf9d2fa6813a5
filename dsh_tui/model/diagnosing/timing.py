"""Where the time went: model calls, tool calls, commands and turns, timed by the log's own clocks.

Every time here is an event's envelope ``time`` (epoch ms, dsh's ``Date.now()``; 1 ms resolution),
or for a chunk inside a packed row ``time0`` plus its ``dt``s. Nothing is estimated: where a time is
absent (a projected fixture has none), not an integer, or runs backwards, the duration is None and
the item says why in ``missing``. Built by `timewalk.compute_timing` in the diagnosis's pass; the
UI only renders what this module returns (rows with typed columns, waterfall lanes in ms from the
turn's start, an activity histogram, anomaly positions).

A turn's wall time is split by what was going on at each moment, the first of: an approval wait,
a tool running, a retry wait, a model call (request to its last output), else idle. The parts add
up to the wall time exactly, however calls overlap.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from heapq import nlargest, nsmallest
from itertools import chain, compress, islice
from operator import attrgetter, itemgetter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from msgspec import Struct, field

from ..columns.interning import shared_name
from ..columns.cells import int_array
from ..columns.packed import PackedList, column_values, columns
from ..columns.textcolumn import TextColumn
from .timerows import Row, call_row, command_row, display_name, tool_row
from ..columns.turnlist import TurnList, TurnTiming, turn_list
from ..columns.turnparts import commands_from_plain

STALL_MS = 30_000  # default threshold of the "stall" anomaly: a gap between a call's outputs longer than this

# The anomaly kinds, in the order a UI cycles through them, with their names for people.
ANOMALY_KINDS = {
    "error": "error result", "retry": "retry", "turn-end": "turn end other than completed",
    "unpaired": "unpaired call or command", "approval": "approval denied or undecided",
    "compaction": "compaction", "stall": "stall",
}


class ModelCall(Struct):
    """One model call: a (turn, step). Times are epoch ms; durations ms."""
    turn: Any
    step: Any
    index: int  # its request/header, else step/start, else first output event
    seq: int
    start: int | None = None  # the request start
    start_from: str | None = None  # "request/header" | "step/start" (None: neither was seen)
    attempt_start: int | None = None  # the last attempt's start (the request, else its llm/retry-started / llm/retry)
    first_output: int | None = None  # the last attempt's first chunk event
    last_output: int | None = None
    end: int | None = None  # its assistant/message
    end_index: int | None = None
    chunks: int = 0
    untimed: int = 0  # chunk events without a usable time
    output_tokens: int | None = None
    stall_ms: int = 0  # the longest gap between two outputs of one attempt
    stall_index: int | None = None  # the event after that gap
    retries: list | tuple = ()  # [index, seq, time, delayMs, wait ms, resumed at] (a list once there is one)
    missing: list | tuple = ()  # why a figure is unknown (`note`)

    @property
    def ttft_ms(self) -> int | None:
        return _span(self.attempt_start, self.first_output)

    @property
    def decode_ms(self) -> int | None:
        return _span(self.first_output, self.last_output)

    @property
    def duration_ms(self) -> int | None:
        return _span(self.start, self.end if self.end is not None else self.last_output)

    @property
    def retry_wait_ms(self) -> int | None:
        waits = [r[4] for r in self.retries if r[4] is not None]
        return sum(waits) if waits else None

    @property
    def tokens_per_s(self) -> float | None:
        d = self.decode_ms
        if self.output_tokens is None or not d:
            return None
        return round(self.output_tokens * 1000 / d, 1)


class ToolTiming(Struct):
    call_id: Any
    name: Any
    turn: Any
    step: Any
    index: int  # its tool/call
    seq: int
    start: int | None = None
    end: int | None = None  # its tool/result
    end_index: int | None = None
    approval_ms: int | None = None  # time spent waiting on approvals that name this call
    status: str = "open"  # "ok" | "error" | "open"
    missing: list | tuple = ()

    @property
    def duration_ms(self) -> int | None:
        return _span(self.start, self.end)


class CommandTiming(Struct):
    command_id: Any
    name: Any
    index: int  # its command/run
    seq: int
    start: int | None = None
    end: int | None = None
    missing: list | tuple = ()

    @property
    def duration_ms(self) -> int | None:
        return _span(self.start, self.end)


class Stall(Struct):
    turn: Any
    step: Any
    index: int  # the event after the gap
    duration_ms: int


class Span(Struct):
    kind: str  # "ttft" | "decode" | "model" | "retry" | "tool" | "approval"
    start_ms: int  # from the turn's start
    end_ms: int
    label: str
    index: int  # the event to jump to


class Lane(Struct):
    name: str  # "model" | "retry" | "tool" | "approval"
    spans: list


def note(item: Any, why: str) -> None:
    """Add to an item's ``missing``: an empty tuple until the first note (most items have none, and
    a big log has hundreds of thousands of items)."""
    if item.missing:
        item.missing.append(why)
    else:
        item.missing = [why]


def _span(a: int | None, b: int | None) -> int | None:
    """b - a, or None when either is unknown or the clock ran backwards."""
    if a is None or b is None or b < a:
        return None
    return b - a


# A turn and step are ints but for a crafted log's (kept in the list's ``odd``, as they are).
CALL_INTS = ("turn", "step", "index", "seq", "start", "attempt_start", "first_output", "last_output", "end",
             "end_index", "chunks", "untimed", "output_tokens", "stall_ms", "stall_index")
TOOL_INTS = ("turn", "step", "index", "seq", "start", "end", "end_index", "approval_ms")


CALL_SPARSE, TOOL_SPARSE = ("retries", "missing"), ("missing",)
# A packed tool call's callId in a text column, not a str object: made as the pass read on, 98k of
# them on the x11 file kept the allocator's pools they sat in from being given back.
TOOL_TEXTS = ("call_id",)


def call_list(items: Iterable = ()) -> PackedList:
    """Model calls, the finished ones kept as columns (packed.py)."""
    return PackedList.of(ModelCall, CALL_INTS, CALL_SPARSE, items)


def tool_list(items: Iterable = ()) -> PackedList:
    return PackedList.of(ToolTiming, TOOL_INTS, TOOL_SPARSE, items, TOOL_TEXTS)


class Timing(Struct, dict=True):  # (its caches live in a __dict__)
    calls: Sequence[ModelCall] = field(default_factory=call_list)  # a PackedList, or any sequence (tests)
    tools: Sequence[ToolTiming] = field(default_factory=tool_list)
    commands: list[CommandTiming] = field(default_factory=list)
    turns: Sequence[TurnTiming] = field(default_factory=turn_list)  # a TurnList, or any sequence (tests)
    marks: dict = field(default_factory=dict)  # anomaly kind (but stall) -> sorted event indexes
    missing: list = field(default_factory=list)  # why the log as a whole has no (or only some) times

    # -- the table (its rows: presenting/timing_rows.py) ------------------------------------------
    def slowest(self, n: int = 20, kinds: tuple = ("model", "tool")) -> list[Row]:
        """The ``n`` slowest of ``kinds`` ("model", "tool", "command"), slowest first, ties by position."""
        make = {"model": (call_row, self.calls), "tool": (tool_row, self.tools),
                "command": (command_row, self.commands)}
        spans = [(kind, self._spans(kind)) for kind in make if kind in kinds]
        # Only the items as slow as the n-th slowest are ranked (a tuple each): ~20 of a big log's
        # tens of thousands, found by C loops over their durations.
        cut = nlargest(n, chain.from_iterable(d for _kind, d in spans))
        if not cut:
            return []
        at_least = max(cut[-1], 0)  # (untimed items are -1)
        ranked: list[tuple] = []
        for kind, d in spans:
            mask = list(map(at_least.__le__, d))
            ranked += [(d[k], -i, kind, k) for k, i in zip(compress(range(len(d)), mask),
                                                           compress(column_values(make[kind][1], "index"), mask))]
        top = nlargest(n, ranked, key=_RANK)
        return [make[kind][0](make[kind][1][k]) for _d, _i, kind, k in top]

    def _spans(self, kind: str) -> list[int]:
        """The duration of each item of ``kind``, -1 where it is not timed: made from a slice of rows
        at a time (no record made for this, and no whole column of starts or ends held)."""
        group = {"model": self.calls, "tool": self.tools, "command": self.commands}[kind]
        starts, ends = column_values(group, "start"), column_values(group, "end")
        if kind == "model":  # a call without its message is timed to its last output
            return [e - a if a is not None and (e := b if b is not None else o) is not None and e >= a else -1
                    for a, b, o in zip(starts, ends, column_values(group, "last_output"))]
        return [b - a if a is not None and b is not None and b >= a else -1 for a, b in zip(starts, ends)]

    def stalls(self, n: int | None = 20, threshold_ms: int = 0) -> list[Stall]:
        """Each call's longest gap between outputs, longest first, ties by position: the ``n`` longest
        (None: all) of those over ``threshold_ms``. The few asked for are found without ordering every
        call's: for the 936k log's 13k calls, the top 20 and the stall count (check's JSON) took 10-16 ms
        with the sort (and kept three columns for it), 5-9 ms now."""
        keys = self._stall_keys(threshold_ms)
        top = sorted(keys) if n is None else nsmallest(n, keys)  # (nsmallest is sorted()[:n], ties alike)
        calls = self.calls
        return [Stall((c := calls[k]).turn, c.step, at, -neg) for neg, at, k in top]

    def _stall_keys(self, threshold_ms: int) -> Iterator[tuple]:
        """(-ms, event index after it, position) of each call that stalled over ``threshold_ms`` (and 0):
        the longest first when sorted, ties by position."""
        ats, mss = columns(self.calls, "stall_index", "stall_ms")
        over = max(threshold_ms, 0)
        return ((-ms, at, k) for k, (at, ms) in enumerate(zip(ats, mss)) if at is not None and ms > over)

    # -- one turn ------------------------------------------------------------------------------
    def turn_of(self, turn: Any) -> TurnTiming | None:
        """The last turn numbered ``turn`` (a resumed log may repeat a number)."""
        numbers = columns(self.turns, "turn")[0]  # (no turn made but the one found)
        return next((self.turns[k] for k in range(len(numbers) - 1, -1, -1) if numbers[k] == turn), None)

    def turn_at(self, index: int) -> TurnTiming | None:
        """The turn holding event ``index`` (the last one begun at or before it)."""
        indexes = self._indexed()[2][0]
        k = bisect_right(indexes, index) - 1
        return self.turns[k] if k >= 0 else None

    def lanes(self, turn: TurnTiming) -> list[Lane]:
        """The turn's waterfall: spans in ms from its start (clipped to it), one lane per activity."""
        lanes = {name: Lane(name, []) for name in ("model", "retry", "tool", "approval")}
        if turn.start is None or turn.end is None or turn.end < turn.start:
            return list(lanes.values())

        def add(lane: str, kind: str, a: int | None, b: int | None, label: str, index: int) -> None:
            if a is None or b is None or b < a:
                return
            a, b = max(a, turn.start), min(b, turn.end)
            if b >= a:
                lanes[lane].spans.append(Span(kind, a - turn.start, b - turn.start, label, index))

        for k in turn.calls:
            c = self.calls[k]
            label = f"step {c.step}"
            if c.first_output is None:
                add("model", "model", c.start, c.end, label, c.index)
            else:
                add("model", "ttft", c.attempt_start, c.first_output, label, c.index)
                add("model", "decode", c.first_output, c.last_output, label, c.index)
            for r in c.retries:
                add("retry", "retry", r[2], r[5], f"retry {label}", r[0])
        for k in turn.tools:
            t = self.tools[k]
            add("tool", "tool", t.start, t.end, display_name(t.name), t.index)
        for asked, decided, index, outcome in turn.approvals:
            add("approval", "approval", asked, decided, display_name(outcome), index)
        return list(lanes.values())

    # -- the session's time --------------------------------------------------------------------
    def _indexed(self) -> list[tuple[list, list]]:
        """(event indexes, items) per kind of item, each in log order (made on first use)."""
        got = self.__dict__.get("_indexed_cache")
        if got is None:
            # (an int64 array each where they are ints, not a list of int objects: ~10 MiB at 10M events)
            got = self.__dict__["_indexed_cache"] = [(int_array(column_values(items, "index")), items)
                                               for items in (self.calls, self.tools, self.turns, self.commands)]
        return got

    def _times(self) -> list[Iterator]:
        """Every timed start and end (and a call's outputs), an iterator a field, None where unknown (a
        slice of rows at a time: as lists, a big log's were ~30 MiB made and freed at once)."""
        out = [column_values(items, name) for items in (self.turns, self.commands, self.tools)
               for name in ("start", "end")]
        return out + [column_values(self.calls, name) for name in ("start", "first_output", "last_output", "end")]

    @property
    def span(self) -> tuple[int, int] | None:
        """(first, last) time of the session's timed starts, ends and outputs, or None without times."""
        got = self.__dict__.get("_span", False)
        if got is False:
            lows, highs = [], []
            times = chain.from_iterable(self._times())
            while block := list(islice(times, 8192)):
                known = [t for t in block if t is not None]
                if known:
                    lows.append(min(known))
                    highs.append(max(known))
            got = self.__dict__["_span"] = (min(lows), max(highs)) if lows else None
        return got

    def activity(self, n: int) -> list[int]:
        """Events per bucket, ``n`` equal buckets over the session's time (for a sparkline): each
        timed start and end of a turn, call, tool and command, and a model call's output events
        spread evenly over its output's span (the log keeps their run, not each)."""
        span = self.span
        out = [0] * max(0, n)
        if span is None or n <= 0:
            return out
        lo, hi = span
        width = hi - lo + 1
        times = self._times()
        for col in times[:-3] + times[-1:]:  # starts and ends (not a call's outputs: spread below)
            for t in col:
                if t is not None:
                    out[(t - lo) * n // width] += 1
        outputs = (column_values(self.calls, name) for name in ("chunks", "first_output", "last_output"))
        for chunks, first, last in zip(*outputs):
            if chunks and first is not None and last is not None:
                a = (first - lo) * n // width
                b = max(a, (last - lo) * n // width)
                if a == b:
                    out[a] += chunks
                    continue
                share, rest = divmod(chunks, b - a + 1)
                for k in range(a, b + 1):
                    out[k] += share + (k - a < rest)
        return out

    def time_at(self, index: int) -> int | None:
        """The time of event ``index`` if it starts or ends a turn, call, tool or command, else of
        the last one of those before it (chunk events are not stamped one by one)."""
        best_at, best = -1, None
        for indexes, items in self._indexed():
            k = bisect_right(indexes, index) - 1
            if k < 0:
                continue
            x = items[k]
            end_at = getattr(x, "end_index", None)
            for at, t in ((x.index, x.start), (end_at, x.end)):
                if t is not None and at is not None and best_at < at <= index:
                    best_at, best = at, t
        return best

    def position(self, index: int, n: int) -> int | None:
        """Which of ``n`` activity buckets event ``index`` falls in (the sparkline's cursor mark)."""
        span, t = self.span, self.time_at(index)
        if span is None or t is None or n <= 0:
            return None
        lo, hi = span
        return min(n - 1, max(0, (t - lo) * n // (hi - lo + 1)))

    # -- anomalies -----------------------------------------------------------------------------
    def anomalies(self, kind: str, stall_ms: int = STALL_MS) -> list[int]:
        """Sorted event indexes of one anomaly kind (ANOMALY_KINDS); ``stall_ms`` is the stall threshold."""
        if kind == "stall":
            return sorted({at for _neg, at, _k in self._stall_keys(stall_ms)})
        return list(self.marks.get(kind, ()))

    def anomaly_counts(self, stall_ms: int = STALL_MS) -> dict[str, int]:
        return {k: len(self.anomalies(k, stall_ms)) for k in ANOMALY_KINDS}

    # -- the cache's plain form ----------------------------------------------------------------
    def share_seqs(self) -> None:
        """Each list's seq column one array with its event index where they are the same (a log with no
        gap: PackedList.share_equal), for a timing kept while its log is explored."""
        for items in (self.calls, self.tools, self.turns):
            if isinstance(items, PackedList):
                items.share_equal((("seq", "index"),))

    def share_call_ids(self, pairs: Any) -> None:
        """The tools' call ids one buffer with the pairs' keys (``pairs``, the pair table's list) where
        they are the same text in the same order (TextColumn.share_equal)."""
        if isinstance(self.tools, PackedList) and isinstance(pairs, PackedList):
            ids, keys = self.tools.objs.get("call_id"), pairs.objs.get("key")
            if isinstance(ids, TextColumn) and isinstance(keys, TextColumn):
                ids.share_equal(keys)

    def plain(self) -> tuple:
        """Only tuples, lists, dicts, arrays and scalars: what the index cache holds (cachecodec).
        Model and tool calls and turns go as columns (packed.py): a big log has hundreds of thousands."""
        calls, tools, turns = (x if isinstance(x, kind) else make(x) for x, kind, make in (
            (self.calls, PackedList, call_list), (self.tools, PackedList, tool_list),
            (self.turns, TurnList, turn_list)))
        return (PLAIN_VERSION, calls.plain(), tools.plain(), list(map(_FIELDS[CommandTiming], self.commands)),
                turns.plain(), {k: array("q", v) for k, v in self.marks.items()}, self.missing)

    @classmethod
    def from_plain(cls, plain: Any) -> Timing:
        if not (type(plain) is tuple and len(plain) == 7 and plain[0] == PLAIN_VERSION):
            return cls(missing=["no timing in this diagnosis"])
        _v, calls, tools_plain, commands, turns, marks, missing = plain
        try:
            calls = PackedList.from_plain(ModelCall, CALL_INTS, CALL_SPARSE, calls)
            tools = PackedList.from_plain(ToolTiming, TOOL_INTS, TOOL_SPARSE, tools_plain, TOOL_TEXTS)
            commands = commands_from_plain(CommandTiming, commands)
            turns = TurnList.from_plain(TurnTiming, (), (), turns, len(calls), len(tools))
        except ValueError:
            return cls(missing=["no timing in this diagnosis"])
        if not (type(marks) is dict and all(type(v) is array and v.typecode == "q" for v in marks.values())):
            return cls(missing=["no timing in this diagnosis"])
        if type(tools_plain[5]["name"]) is list:  # (its objs, PackedList.plain's; a coded column's are shared already)
            tools.objs["name"] = list(map(shared_name, tools.objs["name"]))  # one str a name, as the pass keeps them
        return cls(calls, tools, commands, turns, marks, missing)  # (marks as arrays: `anomalies` lists them)


# 2: model and tool calls as columns; 3: their turn and step as int columns; 4: turns' parts;
# 5: turns as columns, repeated strings coded, anomaly marks as arrays; 6: turns as the walk packs them;
# 7: int columns as their cells (int32 from a base where they fit), not as int64 values
PLAIN_VERSION = 7
_FIELDS = {cls: attrgetter(*cls.__struct_fields__) for cls in (ModelCall, ToolTiming, CommandTiming)}


_RANK = itemgetter(0, 1)
