"""The model stream's clock (the scan's CHUNKS facts): one fact per run of consecutive chunk events,
loose or packed, grown in place as the scan reads them, and rejoined where a tail slice cut a run."""

from __future__ import annotations

from typing import Any

from .facts import CHUNKS, key_value

# The model stream's clock. Most events of a big log are chunk events, so they get no fact each: a
# run of consecutive ones (loose or packed) is one CHUNKS fact whose data is a list the scan grows
# in place, laid out as below. Offsets count events from the run's first; a gap is a timed event's
# time less the previous timed event's (a packed member's: its dt), so a clock stepping back makes
# no gap and the step forward after it counts whole. A run cut where a tail slice ends is joined
# again by the merge (join_tail_runs): the facts are the ones a linear read makes.
R_TURN, R_STEP, R_EVENTS, R_FIRST, R_LAST, R_GAP, R_GAP_AT, R_UNTIMED, R_FIRST_AT = range(9)


class ChunkClock:
    """Per scanner: the run being grown. ``tick`` for a loose chunk event, ``row`` for a packed row."""

    __slots__ = ("run", "next")

    def __init__(self) -> None:
        self.run: list | None = None
        self.next = -1  # the event index that would continue the run

    def _start(self, append, obj: dict, seq: Any, index: int, n: int, first: Any, last: Any, gap: int,
               gap_at: int, untimed: int) -> None:
        d = obj.get("data")
        t, s = (d.get("turn"), d.get("step")) if type(d) is dict else (None, None)
        self.run = run = [key_value(t), key_value(s), n, first, last, gap, gap_at, untimed, 0]
        self.next = index + n
        append((CHUNKS, index, seq, run))

    def tick(self, append, time: Any, obj: dict, seq: Any, index: int) -> None:
        """A loose assistant/chunk event ``obj`` (``time`` its envelope time) at ``index``. Runs once
        per chunk event: the range of a time is left to the timing model."""
        run = self.run
        if type(time) is not int:
            time = None
        if run is None or index != self.next:
            self._start(append, obj, seq, index, 1, time, time, 0, 0, time is None)
            return
        self.next = index + 1
        if time is None:
            run[R_UNTIMED] += 1
        elif run[R_LAST] is None:
            run[R_FIRST] = run[R_LAST] = time
            run[R_FIRST_AT] = run[R_EVENTS]
        else:
            if time - run[R_LAST] > run[R_GAP]:
                run[R_GAP], run[R_GAP_AT] = time - run[R_LAST], run[R_EVENTS]
            run[R_LAST] = time
        run[R_EVENTS] += 1

    def row(self, append, obj: dict, seq: Any, index: int, m: int, top: int | None = None) -> None:
        """A packed row ``obj`` standing for ``m`` chunk events from ``index``: member k's time is
        time0 + dt[0] + ... + dt[k-1]. A projected fixture's rows (no seq0, no time0) have no times.
        ``top``: max(dt) when the scan has found its 'dt' a non-empty list of ints (one pass less)."""
        time0 = obj.get("time0")
        if time0 is None and "seq0" not in obj:
            return
        d = obj.get("data")
        dt = d.get("dt") if type(d) is dict else None
        first = last = None
        gap = gap_at = 0
        untimed = m
        if type(time0) is int and type(dt) is list and len(dt) == m - 1:
            try:
                last = time0 + sum(dt)  # a str or None in dt: TypeError; a float: a float
                gap = top if top is not None else max(dt) if dt else 0
            except TypeError:
                last = None
            if type(last) is int and type(gap) is int:
                first, untimed = time0, 0
                gap_at = dt.index(gap) + 1 if gap > 0 else 0
                gap = max(gap, 0)
            else:
                last, gap = None, 0
        run = self.run
        if run is None or index != self.next:
            self._start(append, obj, seq, index, m, first, last, gap, gap_at, untimed)
            return
        self.next = index + m
        # _join(run, [None, None, m, first, last, gap, gap_at, untimed, 0]) inlined: once a packed row
        k = run[R_EVENTS]
        run[R_EVENTS] = k + m
        if first is None:
            run[R_UNTIMED] += untimed
            return
        prev = run[R_LAST]
        if prev is None:
            run[R_FIRST], run[R_FIRST_AT] = first, k
        elif first - prev > run[R_GAP]:
            run[R_GAP], run[R_GAP_AT] = first - prev, k
        if gap > run[R_GAP]:
            run[R_GAP], run[R_GAP_AT] = gap, k + gap_at
        run[R_LAST] = last


def _join(run: list, more: list) -> None:
    """Grow ``run`` by the run ``more`` that follows on from it, as event-by-event ticks would have."""
    k = run[R_EVENTS]
    run[R_EVENTS] = k + more[R_EVENTS]
    run[R_UNTIMED] += more[R_UNTIMED]
    first = more[R_FIRST]
    if first is None:
        return
    prev = run[R_LAST]
    if prev is None:
        run[R_FIRST], run[R_FIRST_AT] = first, k + more[R_FIRST_AT]
    elif first - prev > run[R_GAP]:
        run[R_GAP], run[R_GAP_AT] = first - prev, k + more[R_FIRST_AT]
    if more[R_GAP] > run[R_GAP]:
        run[R_GAP], run[R_GAP_AT] = more[R_GAP], k + more[R_GAP_AT]
    run[R_LAST] = more[R_LAST]


def join_tail_runs(facts: list, start: int, clock: ChunkClock, tail_clock: ChunkClock | None, shift: int) -> None:
    """After a tail slice's facts were appended to ``facts`` from ``start`` (split/merge.py), with its
    event indexes shifted by ``shift``: its first run joins the run the parent's ``clock`` was growing
    if it follows on from it, and ``clock`` goes on from where the slice's (``tail_clock``) stopped.
    The facts are then the ones a linear read makes."""
    run = clock.run
    if run is not None and start < len(facts) and facts[start][0] == CHUNKS and facts[start][1] == clock.next:
        _join(run, facts[start][3])
        del facts[start]
    if tail_clock is None or tail_clock.run is None:
        return
    nxt = tail_clock.next + shift
    for k in range(len(facts) - 1, start - 1, -1):
        f = facts[k]
        if f[0] == CHUNKS:
            if f[1] + f[3][R_EVENTS] == nxt:
                run = f[3]
            break
    clock.run, clock.next = run, nxt
