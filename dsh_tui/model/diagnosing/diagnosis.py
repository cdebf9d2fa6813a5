"""The ten-minute pass: findings, newest first, and the verdict.

Walks the compact facts the scan kept (pairing.py, notes.py), turns them into
findings (findings.py), places each in its run, and picks the verdict the way
the run ended:

* A session resumed by dsh (or forked) holds more than one run: events before
  the last `session/end-seed` are earlier runs of this session (or, below
  `seedLength`, the fork source's history). Their findings are kept, marked
  `earlier` / `inherited`, as information; the verdict is about the latest run.
* A crash inside a turn: the calls dsh's repair would close, else what else went
  wrong inside the open turn, else the open turn itself.
* Else the last turn, when it ended badly (an upstream error after retries, ...).
* Else the newest tool problem, then the newest other failure: a finding of failure severity
  before any warning (unless dsh's own close, a turn/end or a repair row, says otherwise above).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from msgspec import Struct, field

from .findings import (FAILURE_KINDS, REPAIR_KINDS, TOOL_KINDS, Finding,
                       command_and_approval_findings, event_findings, integrity_findings, retry_findings,
                       tool_findings, tool_set_findings, turn_end_finding, turn_said)
from ..reading.gcpause import gc_paused
from .notes import Notes, take_notes
from .pairing import Pairing, close_pairing, feed_facts
from ..columns.pairtable import PairOrder
from ..columns.perturn import TurnEnds
from .resume import ADVICE as RESUME_ADVICE, KIND as RESUME_KIND, cut_finding_text, predict_cut
from ..reading.sessionlog import SessionLog
from .timewalk import TimingWalk
from .timing import Timing
from .usage import Usage, UsageTally, compute_usage


class Diagnosis(Struct, dict=True):  # (its cached properties keep their values in a __dict__)
    findings: list[Finding]
    verdict: Finding | None
    pairing: Pairing
    usage: Usage
    effective_preset: Any
    open_turn: Any
    tool_set: tuple | None  # tools of the latest request/header
    descriptor: dict | None
    corrupt: bool = False  # corrupt records or frames: the decode lost data mid-log
    closers: list[str] = field(default_factory=list)  # dsh's repair rows, as "seq:type code callId"
    turn_ends: TurnEnds = field(default_factory=TurnEnds)  # (turn, reason kind) of each turn/end, in log order
    runs: dict = field(default_factory=dict)  # end_seed_seqs, latest_run_seq, seed_length
    # The timing in its plain form (Timing.plain): set only in what the index cache keeps (open.py's
    # cache_payload), and let go once the timing is rebuilt from it: one copy of it, not two.
    clock: tuple = ()
    # What a resume deletes (resume.py's ResumeCut.as_dict): dsh's repair cutting a raw log at its
    # first bad line or gap; None when a resume cuts nothing (then `closers` are the whole log's).
    resume: dict | None = None

    @cached_property
    def timing(self) -> Timing:
        """Where the time went (timing.py): built in the diagnosis's pass, rebuilt from ``clock``
        for a diagnosis read from the index cache."""
        timing = Timing.from_plain(self.clock)
        self.clock = ()
        return timing

    @cached_property
    def pairs(self) -> PairOrder:
        """Every pair, newest first (sorted on first use: `check` never needs them; each made as read)."""
        return self.pairing.all_pairs()

    @property
    def failed(self) -> bool:
        return self.corrupt or any(f.severity != "info" for f in self.findings)


class Head(Struct):
    """The diagnosis of a log's first facts, done while the rest is still being read."""
    fed: int
    pairing: Pairing
    notes: Notes
    tally: UsageTally = field(default_factory=UsageTally)  # assumes no seedLength (diagnose checks)
    timing: TimingWalk | None = None  # the timing pass so far (made by begin: it reads the scan's usage table)
    dropped: int = 0  # facts taken out of the scan's list once every pass had read them (advance's drop)


def begin(facts: list, usage_calls: dict | None = None) -> Head:
    """Pair the facts indexed so far (the index only appends: they stay the log's first facts), and
    sum the per-call usage so far. The Head is used up by the `diagnose` it is given to."""
    head = Head(0, Pairing(), Notes())
    if usage_calls is not None:
        head.timing = TimingWalk(usage_calls)
    advance(head, facts, usage_calls)
    return head


def advance(head: Head, facts: list, usage_calls: dict | None = None, *, drop: bool = False) -> None:
    """Go on with the facts (and calls) indexed since ``head`` was begun or last advanced. With ``drop``,
    the facts every pass has read are then deleted from ``facts`` (the scan's own list, which only
    appends): memory then holds the facts of the last few MiB of text, not of the whole log."""
    with gc_paused():
        new = facts[head.fed:]
        feed_facts(head.pairing, new)
        take_notes(head.notes, new)
        head.fed = len(facts)
        if usage_calls is not None:
            head.tally.add(usage_calls)
        walk = head.timing
        if walk is not None:
            walk.feed(facts)
        if drop:
            # The timing walk keeps a trailing run of chunk events for later (the scan may grow it):
            # it stays in the list, and every count of what was fed moves down with the deletion.
            k = head.fed if walk is None else min(head.fed, walk.fed)
            del facts[:k]
            head.fed -= k
            head.dropped += k
            if walk is not None:
                walk.fed -= k


def diagnose(log: SessionLog, head: Head | None = None) -> Diagnosis:
    with gc_paused():
        return _diagnose(log, head)


def _diagnose(log: SessionLog, head: Head | None) -> Diagnosis:
    facts = log.res.facts
    if head is None or head.fed > len(facts):
        assert head is None or not head.dropped, "a head that dropped facts cannot be started again"
        head = Head(0, Pairing(), Notes())
    pairing, notes = head.pairing, head.notes
    rest = facts[head.fed:]
    feed_facts(pairing, rest)
    close_pairing(pairing)
    take_notes(notes, rest)
    st = pairing.state
    found: list[Finding] = []
    tool_findings(pairing, found, log.raw.torn)
    tool_set_findings(pairing, found)
    command_and_approval_findings(pairing, found)
    found += [x for x in map(turn_end_finding, notes.bad_turn_ends) if x is not None]
    retry_findings(notes, st.open_turn, found)
    event_findings(notes, st.open_turn_index, found)
    if st.open_turn_index is not None:
        found.append(Finding("OPEN_TURN", st.open_turn_index, log.seq_of(st.open_turn_index),
                             f"turn {turn_said(st.open_turn)} never ended: the process died inside it (dsh closes "
                             f"it as interrupted on the next resume){_pending_note(pairing)}", turn=st.open_turn))
    integrity_findings(log, found)
    cut = predict_cut(log, pairing)
    if cut is not None:  # dsh's resume would cut the log at its damage: the most urgent thing to say
        at = min(cut.first_event, len(log) - 1)
        found.append(Finding(RESUME_KIND, at if at >= 0 else None, log.seq_of(at) if at >= 0 else None,
                             cut_finding_text(cut), advice=RESUME_ADVICE, code="TRUNCATED_ON_RESUME",
                             severity="failure" if cut.deleted_records else "warning"))
    runs = _place_in_runs(log, notes, found)
    # Newest first; at one event the conclusion comes before its evidence.
    found.sort(key=lambda f: (-1 if f.index is None else f.index, _rank(f.kind)), reverse=True)
    walk = head.timing if head.timing is not None and head.timing.w.usage is log.res.usage_calls \
        else TimingWalk(log.res.usage_calls)
    timing = walk.finish(facts, pairing, log.res.projected)
    notes.turn_ends.pack()
    diag = Diagnosis(found, _verdict(found, st.open_turn_index, notes), pairing,
                     compute_usage(log, head.tally),
                     notes.preset[0] if notes.preset else log.header.get("agentPreset"),
                     st.open_turn, notes.latest_tools, notes.descriptor, bool(log.raw.corruption or log.res.corruption),
                     cut.closers if cut is not None else _closers(log, pairing), notes.turn_ends, runs,
                     resume=None if cut is None else cut.as_dict())
    if cut is not None:
        diag.usage.dsh_loaded = cut.metered  # dsh loads (and meters) only the prefix before the cut
    diag.__dict__["timing"] = timing  # the cached property's value: no rebuild from the plain form
    return diag


def _rank(kind: str) -> int:
    return 3 if kind in TOOL_KINDS else 2 if kind in FAILURE_KINDS else 0 if kind == "LLM_RETRY" else 1


def _pending_note(pairing: Pairing) -> str:
    n = len(pairing.interrupted)
    return f"; {n} tool call(s) left without a result" if n else ""


def _closers(log: SessionLog, pairing: Pairing) -> list[str]:
    """The rows dsh's repair would append, in dsh's own words: consecutive seqs after the last event."""
    if not pairing.closers or not len(log):
        return []
    seq = log.seq_of(len(log) - 1) + 1
    out = []
    for k, (kind, code, call_id) in enumerate(pairing.closers):
        out.append(f"{seq + k}:{kind}" + (f" {code}" if code else "") + (f" {call_id}" if call_id else ""))
    return out


def _place_in_runs(log: SessionLog, notes: Notes, found: list[Finding]) -> dict:
    """Mark what happened before the latest run as information: the fork source's history (below
    seedLength) and this session's earlier runs (before the last session/end-seed)."""
    seed = log.header.get("seedLength")
    seed = int(seed) if isinstance(seed, (int, float)) and not isinstance(seed, bool) and seed > 0 else 0
    seeds = notes.end_seeds
    start_index, start_seq = (seeds[-1][0], seeds[-1][1]) if seeds else (None, None)
    parent = log.header.get("parentSession")
    for f in found:
        if start_index is None or f.index is None or f.index >= start_index or f.kind == RESUME_KIND:
            continue  # (a resume cut before the last run deletes that run too: it stays the latest's)
        if f.seq is not None and f.seq < seed:
            f.run = "inherited"
            f.message += f" [inherited: the fork source {parent}'s history, before seedLength {seed}]"
        else:
            f.run = "earlier"
            if f.repaired:  # dsh writes its closers when it resumes the session, just before the end-seed
                f.message += f" [an earlier run: repaired on resume at seq {f.seq}]"
            else:
                resume = next((s for _i, s in seeds if f.seq is None or s > f.seq), start_seq)
                f.message += f" [an earlier run, before the resume at seq {resume}]"
        f.severity = "info"
        f.advice = None
    return {"end_seed_seqs": [s for _i, s in seeds], "latest_run_seq": start_seq, "seed_length": seed or None}


def _verdict(found: list[Finding], open_turn_index: int | None, notes: Notes) -> Finding | None:
    """What ended the latest run (see the module docstring). ``found`` is newest first."""
    live = [f for f in found if f.severity != "info"]
    cut = next((f for f in live if f.kind == RESUME_KIND and f.severity == "failure"), None)
    if cut is not None:  # whatever ended the run, a resume would delete recorded work first
        return cut
    if open_turn_index is not None:
        in_turn = [f for f in live if f.index is not None and f.index >= open_turn_index]
        for f in in_turn:
            if f.kind in REPAIR_KINDS and not f.repaired:
                return f
        for f in in_turn:
            if f.kind != "OPEN_TURN" and (f.kind in TOOL_KINDS or f.kind in FAILURE_KINDS):
                return f
        for f in in_turn:
            if f.kind == "OPEN_TURN":
                return f
    if notes.last_turn_end is not None:
        last_end = notes.last_turn_end
        for f in live:
            if f.kind == "TURN_NOT_COMPLETED" and f.index == last_end and f.severity == "failure":
                if f.code == "interrupted":  # a crash dsh has repaired: the calls it closed say more
                    return next((c for c in live if c.kind in REPAIR_KINDS and c.repaired and c.turn == f.turn), f)
                return f
    # A failure outranks a warning (a /compact's compaction left open, a warning, does not hide its
    # command left without command/done, a failure); within a severity, tool problems come first.
    for severity in ("failure", "warning"):
        for group in (TOOL_KINDS, FAILURE_KINDS):
            for f in live:
                if f.kind in group and f.severity == severity and not (
                        f.kind == "TURN_NOT_COMPLETED" and f.severity == "warning"):
                    return f
    return live[0] if live else None
