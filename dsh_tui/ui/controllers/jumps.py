"""JumpController: moving the cursor by meaning: a seq or a time (``:``, ``123G``), the verdict, the findings,
a partner. ``:`` takes a seq, a time (``12:03:04``, ``2026-05-01T12:03:04Z``) or an offset from the session
start (``+5m``): model/reading/timejump.py parses it and finds the event."""

from __future__ import annotations

import bisect

from textual.content import Content

from ...model.presenting.detail import event_maps
from ...model.presenting.headerview import no_failure_note
from ...model.presenting.summary import call_id_of, light_event
from ...model.reading.timejump import ALLOWED, BadTarget, landing, parse_target, session_span
from ...safety import one_line
from .base import Controller, SessionChanged
from .ports import JumpsPort


class JumpController(Controller):
    port: JumpsPort  # what it may reach of the explorer (controllers/ports.py)
    def __init__(self, port) -> None:
        super().__init__(port)
        self.finding_indices: list[int] = []  # events a finding points at, in order (] and [)

    def set_findings(self, diag) -> None:
        self.finding_indices = sorted({f.index for f in diag.findings if f.index is not None}) if diag else []

    def reset(self) -> None:
        self.finding_indices = []

    def session_changed(self, change: SessionChanged) -> None:
        if change.how in ("set", "grown"):
            self.set_findings(change.diag)

    # -- a seq ----------------------------------------------------------------------------------
    def ask_goto(self) -> None:
        log = self.port.log_
        if log is None or not len(log):
            return
        first, last = log.seq_of(0), log.seq_of(len(log) - 1)
        self.port.ask("goto", "go to: ", self.goto_seq, allowed=ALLOWED,
                      placeholder=f"seq {first}–{last}, a time 12:03:04 or 2026-05-01T12:03:04Z, or +5m from the start")

    def show_count(self, count: str) -> None:
        """The events list's pending count (``123`` of ``123G``), in the footer's place."""
        line = self.port.command_line()
        if line is None:
            return
        text = Content.assemble(("go to seq ", "$text-muted"), (count, "bold"),
                                ("   G jumps there · esc clears", "$text-muted")) if count else None
        line.note(text, cover=self.port.footers())

    def goto_count(self, seq: int) -> None:
        line = self.port.command_line()
        if line is not None:
            line.note(None)
        self.goto_seq(str(seq))

    def goto_seq(self, value: str | None) -> None:
        """Jump to the event carrying seq ``value``; when none does, to the nearest one, with a notice."""
        port = self.port
        log = port.log_
        if not value or log is None or not len(log):
            return
        try:
            seed = port.events.seed_end  # a seeded child's +5m counts from its own first event
            own = session_span(log, 0 if seed is None else seed + 1)
            target = parse_target(value, *own) if not value.strip().isdigit() else None
        except BadTarget as exc:
            port.notify(one_line(str(exc), 200), severity="warning", markup=False)
            return
        if target is not None:
            self.goto_time(target)
            return
        seq = int(value)
        i = log.index_of_seq(seq)
        if i is None:
            n = len(log)
            i = min(n - 1, bisect.bisect_left(range(n), seq, key=log.seq_of))
            first, last = log.seq_of(0), log.seq_of(n - 1)
            where = "before the first" if seq < first else "after the last" if seq > last else "in a gap"
            port.notify(f"no event has seq {seq} ({where}; seqs run {first}–{last}): "
                        f"showing seq {log.seq_of(i)}", severity="warning", markup=False)
        port.jump_to(i)

    def goto_time(self, target) -> None:
        """The first event at or after a time; a notice when the time is outside the session."""
        port = self.port
        i, note = landing(port.log_, target)
        if note:
            port.notify(one_line(note, 200), severity="warning", markup=False)
        if i is not None:
            port.jump_to(i)

    # -- findings and pairs ---------------------------------------------------------------------
    def verdict(self) -> None:
        port = self.port
        if port.diag is not None and port.diag.verdict is not None:
            port.jump_to(port.diag.verdict.index)
        elif port.log_ is not None:
            port.notify(no_failure_note(port.log_), markup=False)

    def finding(self, direction: int) -> None:
        port = self.port
        cur, idx = port.current_index, self.finding_indices
        if cur is None:
            return
        if not idx:
            port.notify("no findings", markup=False)
            return
        k = bisect.bisect_right(idx, cur) if direction > 0 else bisect.bisect_left(idx, cur) - 1
        if 0 <= k < len(idx):
            port.jump_to(idx[k])
        else:
            port.notify("no more findings " + ("below" if direction > 0 else "above"), markup=False)

    def partner(self) -> None:
        port = self.port
        cur = port.current_index
        if cur is None:
            return
        pairs = event_maps(port.diag)[0].get(cur)
        p = pairs[0] if pairs else None
        if p is None:
            cid = call_id_of(light_event(port.log_, cur))
            p = port.diag.pairing.tools.get(cid) if cid else None
        if p is None:
            port.notify("not part of a call/result, command or approval pair", markup=False)
            return
        order = [p.open, p.ask] if cur == p.close else [p.close] if cur == p.open else [p.open, p.close]
        target = next((i for i in order if i is not None and i != cur), None)
        if target is None:
            port.notify(one_line(f"{p.key}: no result ({p.status})", 200), severity="warning", markup=False)
        else:
            port.jump_to(target)
