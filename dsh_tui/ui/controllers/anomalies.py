"""AnomalyController: ``e`` / ``E`` step to the next / previous anomaly of the active kind, ``a`` picks the kind.

The kinds are the timing model's (model/diagnosing/timing.py: ANOMALY_KINDS; the stall threshold is the
settings' ``stall_seconds``), plus "any": every kind merged. Each kind's sorted event indexes are taken
from the model once per session and kind, so a key is a bisect. The active kind and where the cursor
stands among its anomalies ("2 of 5") show in the events pane's title (its top rule: the list draws no
bottom rule) once e, E or a was used (before, nothing: the kinds are a tool to reach for, not a
permanent readout).
"""

from __future__ import annotations

import bisect
from heapq import merge

from textual.worker import WorkerState

from ...model.diagnosing.timing import ANOMALY_KINDS
from ...model.presenting.timing_view import ANY, KIND_NAMES, LOOP, SHORT
from .base import Controller
from .ports import AnomalyPort


class AnomalyController(Controller):
    port: AnomalyPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("loops",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self.kind = ANY
        self.active = False  # shown in the events pane once e, E or a was used
        self._lists: dict[str, list[int]] = {}
        self._diag = None  # the diagnosis the lists were taken from (live follow makes a new one)
        self.note = ""  # "e/E error 2 of 5": in the events pane's title (the screen's set_events_title)

    def reset(self) -> None:
        self._lists, self._diag = {}, None
        self.note = ""  # the new session's place is shown on its first cursor move

    @property
    def stall_ms(self) -> int:
        return int(self.port.settings.stall_seconds * 1000)

    def indexes(self, kind: str) -> list[int]:
        """The sorted event indexes of ``kind`` (made once per session and kind)."""
        diag = self.port.diag
        if diag is None:
            return []
        if diag is not self._diag:
            self._lists, self._diag = {}, diag
        got = self._lists.get(kind)
        if got is None:
            if kind == LOOP:
                return self._loops(diag)
            if kind == ANY:
                got = []
                for i in merge(*(self.indexes(k) for k in ANOMALY_KINDS)):
                    if not got or got[-1] != i:  # an event of two kinds is one stop
                        got.append(i)
            else:
                got = diag.timing.anomalies(kind, self.stall_ms)
            self._lists[kind] = got
        return got

    def _loops(self, diag) -> list[int]:
        """The events of the loop findings (each finding's calls or writes); read in a worker the first
        time (a pass over the tool calls and results: ~1.5 s on a 936k-event log), [] until then."""
        ins = self.port.session_insight()
        if ins is None:
            return []
        if "loops" in ins.__dict__:
            got = sorted({i for f in ins.loops for i in (f.index, *f.related) if i is not None})
            self._lists[LOOP] = got
            return got
        if not self.port.busy("loops"):
            self.run(lambda: (diag, ins.loops), "loops", exclusive=True)
        return []

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.SUCCESS:
            diag, found = event.worker.result
            if diag is self.port.diag:
                self._lists.pop(LOOP, None)
                self.port.notify(f"{len(found):,} loop or churn finding(s) read", markup=False)
                self.show(self.port.current_index)
        elif event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)

    def counts(self) -> dict[str, int]:
        """Each kind's count, "any" first (for the picker)."""
        return {k: len(self.indexes(k)) for k in KIND_NAMES}

    # -- keys -------------------------------------------------------------------------------------
    def step(self, direction: int) -> None:
        port = self.port
        cur = port.current_index
        if cur is None or port.diag is None:
            return
        self.active = True
        idx = self.indexes(self.kind)
        name = KIND_NAMES[self.kind]
        if not idx:
            port.notify(f"no {name} in this log" + self._stall_note(), markup=False)
            return
        k = bisect.bisect_right(idx, cur) if direction > 0 else bisect.bisect_left(idx, cur) - 1
        if not 0 <= k < len(idx):
            k = 0 if direction > 0 else len(idx) - 1
            port.notify(f"wrapped around to the {'first' if direction > 0 else 'last'} {SHORT[self.kind]}",
                        markup=False)  # not "{kind}s": "anomalys", "retrys"
        port.jump_to(idx[k])
        self.show(idx[k])

    def pick(self) -> None:
        port = self.port
        if port.diag is None:
            return
        from ..screens.anomaly_kind import AnomalyKindScreen

        def done(kind: str | None) -> None:
            if kind in KIND_NAMES:
                self.kind, self.active = kind, True
                self.show(port.current_index)
        port.push_screen(AnomalyKindScreen(self.counts(), self.kind, self.stall_ms), done)

    # -- where the user sees it ---------------------------------------------------------------------
    def place(self, index: int | None) -> str:
        """``error 2 of 5`` on the kind's second anomaly, ``error 2–3 of 5`` between two, ``error 0 of 0``."""
        idx = self.indexes(self.kind)
        short, n = SHORT[self.kind], len(idx)
        if index is None or not n:
            return f"{short} {n:,}"
        k = bisect.bisect_left(idx, index)
        if k < n and idx[k] == index:
            return f"{short} {k + 1:,} of {n:,}"
        if k == 0:
            return f"{short} ·/{n:,} (before the first)"
        if k == n:
            return f"{short} ·/{n:,} (after the last)"
        return f"{short} {k:,}–{k + 1:,} of {n:,}"

    def title_note(self) -> str:
        return self.note

    def show(self, index: int | None) -> None:
        """The kind and the place in the events pane's title (cheap: a bisect; called on cursor moves)."""
        port = self.port
        if not self.active or not port.is_open or port.log_ is None:
            return
        note = f"e/E {self.place(index)}"
        if note != self.note:  # the title is set again only when the place changed
            self.note = note
            port.set_events_title()

    def _stall_note(self) -> str:
        return f" (stall: a gap over {self.port.settings.stall_seconds:g} s)" if self.kind == "stall" else ""
