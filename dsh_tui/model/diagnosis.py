"""The ten-minute pass: findings, newest first, and the verdict.

Walks the compact facts the scan kept, reuses the pairing pass, and turns
every way a session can end badly into a Finding that points at a real event.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

from .gcpause import gc_paused
from .pairing import Pair, Pairing, close_pairing, feed_facts
from .session import SessionLog
from .usage import Usage, UsageTally, compute_usage

TOOL_KINDS = ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN", "TOOL_ERROR")
FAILURE_KINDS = ("MODEL_REQUEST_FAILED", "TURN_NOT_COMPLETED", "OPEN_TURN", "COMMAND_NOT_DONE", "APPROVAL_UNDECIDED")
ALL_KINDS = TOOL_KINDS + FAILURE_KINDS + ("LLM_RETRY", "SEQ_GAP", "TORN_TAIL", "UNKNOWN_TYPE", "NOT_IN_TOOL_SET")

ADVICE = {
    "TOOL_NOT_STARTED": "dsh never recorded the call as started: it did not run. Retry it if it is still needed.",
    "TOOL_OUTCOME_UNKNOWN": ("the call was recorded as started but no result was durably written: it may have run. "
                             "Retry only if it is read-only or idempotent; otherwise verify the external state first."),
}


@dataclass
class Finding:
    kind: str
    index: int | None  # event index the finding points at (None: no event to point at)
    seq: int | None
    message: str
    severity: str = "failure"  # failure | warning | info
    call_id: str | None = None
    name: str | None = None
    turn: Any = None
    step: Any = None
    code: str | None = None
    related: list[int] = field(default_factory=list)  # other event indices (call <-> result, ...)
    repaired: bool = False  # closed by dsh's own crash repair (a synthetic result on disk)
    child_session: str | None = None  # NOT_IN_TOOL_SET: the child session that called this tool

    def __reduce__(self) -> tuple:
        """Pickled as its field values, as a Pair is (pairing.py): thousands sit in the index cache."""
        return (Finding, tuple(map(self.__dict__.__getitem__, FINDING_FIELDS)))

    def as_dict(self) -> dict:
        return {"kind": self.kind, "seq": self.seq, "callId": self.call_id, "name": self.name,
                "turn": self.turn, "step": self.step, "code": self.code, "message": self.message,
                "severity": self.severity, "repaired": self.repaired, "advice": ADVICE.get(self.kind),
                "child_session": self.child_session}


FINDING_FIELDS = tuple(f.name for f in fields(Finding))


@dataclass
class Diagnosis:
    findings: list[Finding]
    verdict: Finding | None
    pairing: Pairing
    usage: Usage
    effective_preset: Any
    open_turn: Any
    tool_set: tuple | None  # tools of the latest request/header
    descriptor: dict | None
    corrupt: bool = False  # corrupt records or frames: the decode lost data mid-log

    @cached_property
    def pairs(self) -> list[Pair]:
        """Every pair, newest first (sorted on first use: `check` never needs them)."""
        return self.pairing.all_pairs()

    @property
    def failed(self) -> bool:
        return self.corrupt or any(f.severity != "info" for f in self.findings)


@dataclass
class Notes:
    """What the diagnosis gathers fact by fact, besides the pairing (one pass, resumable)."""
    turn_ends: list = field(default_factory=list)  # TURN_NOT_COMPLETED findings, in log order
    retries: dict = field(default_factory=dict)  # (turn, step) -> llm/retry facts
    answered: dict = field(default_factory=dict)  # (turn, step) -> index of its latest assistant/message
    preset: list = field(default_factory=list)  # the latest agent-preset/selected's agentPreset, if any
    descriptor: dict | None = None
    latest_tools: Any = None


def _take_notes(notes: Notes, facts) -> None:
    retries, answered = notes.retries, notes.answered
    for f in facts:
        t, index, _seq, d = f
        if t == "turn/end":
            _turn_end(f, notes.turn_ends)
        elif t == "llm/retry":
            retries.setdefault((d.get("turn"), d.get("step")), []).append(f)
        elif t == "assistant/message":
            answered[(d[0], d[1])] = index
        elif t == "agent-preset/selected":
            if "agentPreset" in d:
                notes.preset[:] = [d["agentPreset"]]
        elif t == "subagent/descriptor":
            notes.descriptor = d
        elif t == "request/header":
            notes.latest_tools = d[0]


@dataclass
class Head:
    """The diagnosis of a log's first facts, done while the rest is still being read."""
    fed: int
    pairing: Pairing
    notes: Notes
    tally: UsageTally = field(default_factory=UsageTally)  # assumes no seedLength (diagnose checks)


def begin(facts: list, usage_calls: dict | None = None) -> Head:
    """Pair the facts indexed so far (the index only appends: they stay the log's first facts), and
    sum the per-call usage so far. The Head is used up by the `diagnose` it is given to."""
    head = Head(0, Pairing(), Notes())
    advance(head, facts, usage_calls)
    return head


def advance(head: Head, facts: list, usage_calls: dict | None = None) -> None:
    """Go on with the facts (and calls) indexed since ``head`` was begun or last advanced."""
    with gc_paused():
        new = facts[head.fed:]
        feed_facts(head.pairing, new)
        _take_notes(head.notes, new)
        head.fed = len(facts)
        if usage_calls is not None:
            head.tally.add(usage_calls)


def diagnose(log: SessionLog, head: Head | None = None) -> Diagnosis:
    with gc_paused():
        return _diagnose(log, head)


def _diagnose(log: SessionLog, head: Head | None) -> Diagnosis:
    facts = log.res.facts
    if head is None or head.fed > len(facts):
        head = Head(0, Pairing(), Notes())
    pairing, notes = head.pairing, head.notes
    rest = facts[head.fed:]
    feed_facts(pairing, rest)
    close_pairing(pairing)
    _take_notes(notes, rest)
    found: list[Finding] = []
    _tool_findings(pairing, found)
    _command_and_approval(pairing, found)
    found += notes.turn_ends
    _retries(notes.retries, notes.answered, found)
    st = pairing.state
    if st.open_turn_index is not None:
        found.append(Finding("OPEN_TURN", st.open_turn_index, log.seq_of(st.open_turn_index),
                             f"turn {st.open_turn} never ended: the process died inside it (dsh closes it as "
                             f"'interrupted' on the next resume){_pending_note(pairing)}", turn=st.open_turn))
    _integrity(log, found)
    # Newest first; at one event the conclusion comes before its evidence.
    found.sort(key=lambda f: (-1 if f.index is None else f.index, _rank(f.kind)), reverse=True)
    return Diagnosis(found, _verdict(found), pairing,
                     compute_usage(log, head.tally),
                     notes.preset[0] if notes.preset else log.header.get("agentPreset"),
                     st.open_turn, notes.latest_tools, notes.descriptor, bool(log.raw.corruption or log.res.corruption))


def _rank(kind: str) -> int:
    return 3 if kind in TOOL_KINDS else 2 if kind in FAILURE_KINDS else 0 if kind == "LLM_RETRY" else 1


def _pending_note(pairing: Pairing) -> str:
    n = len(pairing.interrupted)
    return f"; {n} tool call(s) left without a result" if n else ""


def _tool_findings(pairing: Pairing, found: list[Finding]) -> None:
    interrupted = {id(p) for p in pairing.interrupted}
    for p in pairing.tools.values():
        if p.status == "paired":
            continue  # most pairs: nothing to report
        related = [i for i in (p.ask, p.open, p.close) if i is not None]
        common = dict(call_id=p.key, name=p.name, turn=p.turn, step=p.step, related=related)
        if p.status in ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN"):
            where = {"TOOL_NOT_STARTED": p.ask, "TOOL_OUTCOME_UNKNOWN": p.open}[p.status]
            seq = p.seqs.get("ask" if p.status == "TOOL_NOT_STARTED" else "call")
            if p.repaired:
                where, seq = p.close, p.seqs.get("result")
                msg = f"dsh's crash repair closed this call as {p.status}"
            elif id(p) in interrupted:
                msg = ("the model asked for this call but no durable tool/call exists (the turn is still open)"
                       if p.status == "TOOL_NOT_STARTED" else
                       "a durable tool/call exists but no tool/result (the turn is still open)")
            else:
                msg = (f"no result, though its step closed ({'no tool/call' if p.open is None else 'tool/call recorded'}); "
                       "dsh will not repair this") 
            if where is None:
                where, seq = p.anchor, None
            found.append(Finding(p.status, where, seq, msg, code=p.code or p.status, repaired=p.repaired, **common))
        elif p.status == "error":
            found.append(Finding("TOOL_ERROR", p.close, p.seqs.get("result"),
                                 f"tool result is an error{': ' + p.code if p.code else ' (isError)'}"
                                 f"{' - ' + p.result.splitlines()[0][:160] if p.result else ''}", code=p.code, **common))
        elif p.status == "result-without-call":
            found.append(Finding("TOOL_ERROR", p.close, p.seqs.get("result"),
                                 "tool/result for a callId with no tool/call or tool-call block (unknown call)",
                                 severity="warning", code=p.code, **common))
    for cid, tools in pairing.tool_set.items():
        p = pairing.tools[cid]
        if isinstance(tools, tuple) and p.name is not None and p.name not in tools:
            found.append(Finding("NOT_IN_TOOL_SET", p.open, p.seqs.get("call"),
                                 f"tool {p.name!r} is not in this session's tool set (latest request/header); "
                                 "it may belong to a child session", severity="warning", call_id=cid, name=p.name,
                                 turn=p.turn, step=p.step))


def _command_and_approval(pairing: Pairing, found: list[Finding]) -> None:
    for p in pairing.commands.values():
        if p.close is None and p.open is not None:
            found.append(Finding("COMMAND_NOT_DONE", p.open, p.seqs.get("run"),
                                 f"slash command /{p.name} started but never finished (no command/done)", name=p.name,
                                 call_id=p.key))
    for p in pairing.approvals.values():
        if p.close is None and p.open is not None:
            found.append(Finding("APPROVAL_UNDECIDED", p.open, p.seqs.get("asked"),
                                 f"approval for {p.name} was asked but never decided", severity="warning",
                                 name=p.name, call_id=p.key))


def _turn_end(f, found: list[Finding]) -> None:
    _t, index, seq, (turn, reason) = f
    kind = reason.get("kind") if isinstance(reason, dict) else None
    if kind == "completed":
        return
    code, msg, severity = str(kind), f"turn {turn} ended: {kind}", "failure"
    if kind == "error":
        err = reason.get("error") if isinstance(reason.get("error"), dict) else {}
        code = err.get("code") or "error"
        msg += f" ({err.get('code')}: {str(err.get('message'))[:200]})"
    elif kind == "aborted":
        cause = reason.get("reason") if isinstance(reason.get("reason"), dict) else {}
        msg += f" by {cause.get('kind', 'unknown')}"
        severity = "warning" if cause.get("kind") in ("user", "parent") else "failure"
    elif kind == "interrupted":
        msg += " (written by dsh's crash repair: the process had died inside this turn)"
    elif kind is None:
        msg = f"turn {turn} ended without a reason (legacy or malformed)"
        severity = "warning"
    found.append(Finding("TURN_NOT_COMPLETED", index, seq, msg, severity=severity, turn=turn,
                         code=code, repaired=kind == "interrupted"))


def _retries(retries: dict, answered: dict, found: list[Finding]) -> None:
    for (turn, step), rows in retries.items():
        _t, last_index, last_seq, last = rows[-1]
        failure = last.get("failure") if isinstance(last.get("failure"), dict) else {}
        code = failure.get("code")
        recovered = answered.get((turn, step), -1) > last_index
        for _t, index, seq, data in rows:
            fl = data.get("failure") if isinstance(data.get("failure"), dict) else {}
            found.append(Finding("LLM_RETRY", index, seq,
                                 f"model request retry {data.get('retry')}/{data.get('maxRetries', '∞')} after "
                                 f"{fl.get('code')}: {str(fl.get('message'))[:160]}"
                                 f"{' (recovered)' if recovered else ''}",
                                 severity="info" if recovered else "warning", turn=turn, step=step, code=fl.get("code")))
        if not recovered:
            found.append(Finding("MODEL_REQUEST_FAILED", last_index, last_seq,
                                 f"{len(rows)} retr{'y' if len(rows) == 1 else 'ies'} and no assistant/message after "
                                 f"them: the model request failed ({code}: {str(failure.get('message'))[:160]})",
                                 turn=turn, step=step, code=code))


def _integrity(log: SessionLog, found: list[Finding]) -> None:
    last = len(log) - 1
    for g in log.res.gaps[:200]:
        i = min(g.index, last)
        found.append(Finding("SEQ_GAP", i if last >= 0 else None, log.seq_of(i) if last >= 0 else None,
                             f"line {g.line}: expected seq {g.expected}, found {g.found}: {g.cause}"))
    torn = log.raw.torn
    if torn is not None:
        found.append(Finding("TORN_TAIL", last if last >= 0 else None, log.seq_of(last) if last >= 0 else None,
                             f"torn tail ({torn.kind}) at byte {torn.offset}: {torn.unreadable_bytes} bytes unreadable, "
                             f"{torn.recovered_records} record(s) recovered; the last write batch was lost",
                             severity="warning"))
    for u in log.res.unknown.values():
        found.append(Finding("UNKNOWN_TYPE", u.first_index, log.seq_of(u.first_index),
                             f"unknown event type {u.type!r} x{u.count}: "
                             + ("ignorable: dsh skips it" if u.ignorable else "required (no ignorable:true): dsh refuses to resume this log"),
                             severity="info" if u.ignorable else "warning", name=u.type))


def _verdict(found: list[Finding]) -> Finding | None:
    for group in (TOOL_KINDS, FAILURE_KINDS):
        for f in found:  # newest first
            if f.kind in group and f.severity != "info" and not (f.kind == "TURN_NOT_COMPLETED" and f.severity == "warning"):
                return f
    for f in found:
        if f.severity != "info":
            return f
    return None
