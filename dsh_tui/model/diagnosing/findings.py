"""Findings: every way a session can end badly, each pointing at a real event.

The functions here turn the pairing (pairing.py) and the notes (notes.py) into
`Finding`s; diagnosis.py orders them and picks the verdict. Kinds, with the
rule each follows (DSH-FORMAT 6-7, dsh's repair.ts):

* TOOL_OUTCOME_UNKNOWN / TOOL_NOT_STARTED: exactly the calls dsh's crash
  repair closes (pending in the turn left open at the end), or a result dsh's
  repair wrote. TOOL_UNPAIRED: a call without a result that dsh never closes.
* TOOL_ERROR, COMMAND_NOT_DONE, COMMAND_FAILED, APPROVAL_UNDECIDED, TURN_NOT_COMPLETED.
* LLM_RETRY (recovered: info), RETRY_INTERRUPTED (the process died while a retry was
  scheduled or in flight: dsh closes the turn as interrupted), MODEL_REQUEST_FAILED (the
  retries ran out: the turn ended with `error`, or a later step exists without an answer).
* Event types with a meaning of their own: COMPACTION_INTERRUPTED, COMPACTION_FAILED,
  CODE_DISPATCH_UNFINISHED, CODE_DISPATCH_ERROR, WORKFLOW_FAILED, HOOK_BLOCKED,
  GOAL_BLOCKED, MESSAGE_INTERRUPTED, MODEL_STREAM_FAILED (a finish chunk with reason error / aborted).
"""

from __future__ import annotations

from functools import partial
from operator import ne
from typing import Any

from msgspec import Struct

from ..reading.facts import RETRY_MESSAGE
from ..reading.deepvalue import said
from .notes import Notes
from .pairing import Pair, Pairing

TOOL_KINDS = ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN", "TOOL_ERROR", "TOOL_UNPAIRED")
REPAIR_KINDS = ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN")
FAILURE_KINDS = ("MODEL_REQUEST_FAILED", "RETRY_INTERRUPTED", "TURN_NOT_COMPLETED", "OPEN_TURN", "COMMAND_NOT_DONE",
                 "COMMAND_FAILED", "APPROVAL_UNDECIDED", "COMPACTION_INTERRUPTED", "COMPACTION_FAILED",
                 "CODE_DISPATCH_UNFINISHED", "CODE_DISPATCH_ERROR", "WORKFLOW_FAILED", "HOOK_BLOCKED", "GOAL_BLOCKED",
                 "MESSAGE_INTERRUPTED", "MODEL_STREAM_FAILED")
INTEGRITY_KINDS = ("SEQ_GAP", "TORN_TAIL", "UNKNOWN_TYPE", "NOT_IN_TOOL_SET", "RESUME_TRUNCATES")
ALL_KINDS = TOOL_KINDS + FAILURE_KINDS + ("LLM_RETRY",) + INTEGRITY_KINDS

ADVICE = {
    "TOOL_NOT_STARTED": "dsh never recorded the call as started: it did not run. Retry it if it is still needed.",
    "TOOL_OUTCOME_UNKNOWN": ("the call was recorded as started but no result was durably written: it may have run. "
                             "Retry only if it is read-only or idempotent; otherwise verify the external state first."),
}
UNEXPECTED_TOOL = ("unless a subagent child of this session calls it, the tool is unexpected: stop the session, "
                   "unload the plugin loaded last, and do not add another plugin to work around it.")
ADVICE["NOT_IN_TOOL_SET"] = UNEXPECTED_TOOL
MAY_HAVE_RUN = ("it may have run even so: do not retry blindly; retry only if it is read-only or idempotent, "
                "otherwise verify the external state first.")


class Finding(Struct):
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
    related: list[int] | tuple = ()  # other event indices (call <-> result, ...); () for most (a big log has 20k+)
    repaired: bool = False  # closed by dsh's own crash repair (a synthetic result on disk)
    child_session: str | None = None  # NOT_IN_TOOL_SET: the child session that called this tool
    advice: str | None = None  # what to do; ADVICE[kind] unless the evidence says otherwise
    run: str = "latest"  # latest | earlier (before the last session/end-seed) | inherited (fork seed)

    def __post_init__(self) -> None:
        if self.advice is None:
            self.advice = ADVICE.get(self.kind)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "seq": self.seq, "callId": self.call_id, "name": self.name,
                "turn": self.turn, "step": self.step, "code": self.code, "message": self.message,
                "severity": self.severity, "repaired": self.repaired, "advice": self.advice,
                "child_session": self.child_session, "run": self.run}


def tool_findings(pairing: Pairing, found: list[Finding], torn=None) -> None:
    """``torn``: the log's torn tail, if any: records lost after the last one read may include the
    tool/call of a call dsh's repair would call not started."""
    interrupted = {p.key for p in pairing.interrupted}
    waiting = {a.for_call: a for a in pairing.approvals.values()
               if a.close is None and a.open is not None and a.for_call is not None}  # asked, never decided
    for p in pairing.tools.where("status", partial(ne, "paired")):  # (most pairs: nothing to report)
        related = [i for i in (p.ask, p.open, p.close) if i is not None]
        common = dict(call_id=p.key, name=p.name, turn=p.turn, step=p.step, related=related)
        if p.status in REPAIR_KINDS:
            if p.repaired:
                found.append(Finding(p.status, p.close, p.seqs.get("result"),
                                     f"dsh's crash repair closed this call as {p.status} (seq {p.seqs.get('result')})",
                                     code=p.code or p.status, repaired=True, **common))
                continue
            started = p.status == "TOOL_OUTCOME_UNKNOWN"
            where, seq = (p.open, p.seqs.get("call")) if started else (p.ask, p.seqs.get("ask"))
            advice = None
            if started:
                msg = "a durable tool/call exists but no tool/result (the turn is still open)"
            elif p.earlier_call is not None:
                msg = (f"an assistant/message named this call (seq {p.seqs.get('ask')}) after its tool/call at seq "
                       f"{p.earlier_call}, so dsh's repair closes it as TOOL_NOT_STARTED; but that tool/call was "
                       "durably recorded")
                advice = MAY_HAVE_RUN
            else:
                msg = "the model asked for this call but no durable tool/call exists (the turn is still open)"
                if torn is not None and torn.lost:
                    named = p.key.encode("utf-8", "surrogatepass") in torn.partial
                    msg += (f"; but the torn tail at byte {torn.offset} starts a record naming it: its tool/call may "
                            "have been written" if named else
                            f"; but a write after it was lost to the torn tail at byte {torn.offset} "
                            f"({torn.unreadable_bytes:,} bytes unreadable): its tool/call may have been in it")
                    advice = MAY_HAVE_RUN
            if p.key not in interrupted:  # defensive: a status set outside close_pairing
                msg += "; not among the calls dsh's repair closes"
            msg += _waiting_on(waiting.get(p.key), common["related"])
            if where is None:
                where, seq = p.anchor, None
            found.append(Finding(p.status, where, seq, msg, code=p.status, advice=advice, **common))
        elif p.status == "unpaired":
            where, seq = (p.open, p.seqs.get("call")) if p.open is not None else (p.ask, p.seqs.get("ask"))
            what = f"tool/call at seq {p.seqs['call']}" if p.open is not None else "no tool/call"
            found.append(Finding("TOOL_UNPAIRED", where, seq,
                                 f"no tool/result ({what}): {p.cleared}; dsh's crash repair does not close it"
                                 + _waiting_on(waiting.get(p.key), common["related"]),
                                 severity="warning", **common))
        elif p.status == "error":
            found.append(Finding("TOOL_ERROR", p.close, p.seqs.get("result"),
                                 f"tool result is an error{': ' + p.code if p.code else ' (isError)'}"
                                 f"{' - ' + p.result.splitlines()[0][:160] if p.result else ''}", code=p.code, **common))
        elif p.status == "result-without-call":
            found.append(Finding("TOOL_ERROR", p.close, p.seqs.get("result"),
                                 "tool/result for a callId with no tool/call or tool-call block (unknown call)",
                                 severity="warning", code=p.code, **common))


def tool_set_findings(pairing: Pairing, found: list[Finding]) -> None:
    """A tool the latest request/header did not offer. Whether a subagent child calls it is the
    lineage's to say (lineage.link_findings); the advice covers the case where none does."""
    for p in pairing.tools.where("offered", _is_tuple):
        if p.name is not None and p.name not in p.offered:
            found.append(Finding("NOT_IN_TOOL_SET", p.open, p.seq_open,
                                 f"tool {said(p.name)} is not in this session's tool set (latest request/header)",
                                 severity="warning", call_id=p.key, name=p.name, turn=p.turn, step=p.step))


def _is_tuple(v) -> bool:
    return isinstance(v, tuple)


def command_and_approval_findings(pairing: Pairing, found: list[Finding]) -> None:
    for p in pairing.commands.values():
        if p.close is None and p.open is not None:
            found.append(Finding("COMMAND_NOT_DONE", p.open, p.seqs.get("run"),
                                 f"slash command /{said(p.name)} started but never finished (no command/done)", name=p.name,
                                 call_id=p.key))
        elif p.status == "error" and p.close is not None:
            text = p.result.splitlines()[0][:160] if p.result else ""
            found.append(Finding("COMMAND_FAILED", p.close, p.seqs.get("done"),
                                 f"slash command /{said(p.name)} failed ({said(p.code)}){': ' + text if text else ''}",
                                 severity="warning", name=p.name, call_id=p.key, code=p.code,
                                 related=[i for i in (p.open, p.close) if i is not None]))
    for p in pairing.approvals.values():
        if p.close is None and p.open is not None:
            call = pairing.tools.get(p.for_call) if p.for_call is not None else None
            for_call = ""
            related: list[int] = []
            if call is not None:
                at = call.seqs.get("call", call.seqs.get("ask"))
                for_call = f" (for call {p.for_call}{f' at seq {at}' if at is not None else ''}, {call.status})"
                related = [i for i in (call.open, call.ask) if i is not None][:1]
            found.append(Finding("APPROVAL_UNDECIDED", p.open, p.seqs.get("asked"),
                                 f"approval for {said(p.name)} was asked but never decided{for_call}", severity="warning",
                                 name=p.name, call_id=p.key, related=related))


def _waiting_on(approval: Pair | None, related: list[int]) -> str:
    """What an unresolved call was waiting for: an approval asked for it and never decided (its index joins
    ``related``, so the explorer's partner key reaches it)."""
    if approval is None:
        return ""
    related.append(approval.open)
    return (f"; it was waiting on approval {approval.key} (asked at seq {approval.seqs.get('asked')}), "
            "which was never decided")


def turn_said(turn: Any) -> str:
    """A turn number in a message; a crafted one (kept as its JSON text, facts.key_value) in words."""
    if turn is None:
        return "(turn absent)"
    if isinstance(turn, str) and turn[:1] in ("[", "{"):
        return "(a turn that is a list)" if turn[0] == "[" else "(a turn that is an object)"
    return said(turn)


def turn_end_finding(f) -> Finding | None:
    _t, index, seq, (turn, reason, _time) = f
    kind = reason.get("kind") if isinstance(reason, dict) else None
    if kind == "completed":
        return None
    turn_text = turn_said(turn)
    code, msg, severity = said(kind), f"turn {turn_text} ended: {said(kind)}", "failure"
    if kind == "error":
        err = reason.get("error") if isinstance(reason.get("error"), dict) else {}
        code = err.get("code") or "error"
        msg += f" ({_code_and_message(err.get('code'), err.get('message'), 200)})"
    elif kind == "aborted":
        cause = reason.get("reason") if isinstance(reason.get("reason"), dict) else {}
        msg += f" by {said(cause.get('kind')) if cause.get('kind') is not None else 'unknown'}"
        severity = "warning" if cause.get("kind") in ("user", "parent") else "failure"
    elif kind == "interrupted":
        msg += " (written by dsh's crash repair: the process had died inside this turn)"
    elif kind is None:
        msg = f"turn {turn_text} ended without a reason (legacy or malformed)"
        severity = "warning"
    return Finding("TURN_NOT_COMPLETED", index, seq, msg, severity=severity, turn=turn,
                   code=code, repaired=kind == "interrupted")


def retry_findings(notes: Notes, open_turn: Any, found: list[Finding]) -> None:
    """A retry is `llm/retry` (scheduled) then `llm/retry-started` (in flight); the request succeeded when
    an assistant/message for its (turn, step) follows the last of them."""
    texts: dict[str, str] = {}  # a message -> its first str: a big log's retries say a few things, ten thousand times
    for (turn, step), (rows, last_t, last_index, last_seq) in notes.retries.items():
        recovered = notes.answered.get((turn, step), -1) > last_index
        for index, seq, n, most, code, message in rows:
            text = (f"model request retry {said(n)}/{said(most)} after {_code_and_message(code, message)}"
                    f"{' (recovered)' if recovered else ''}")
            found.append(Finding("LLM_RETRY", index, seq, texts.setdefault(text, text),
                                 severity="info" if recovered else "warning", turn=turn, step=step, code=code))
        if recovered or not rows:
            continue
        _index, _seq, n, _most, code, message = rows[-1]
        why = _code_and_message(code, message)
        later_step = notes.step_starts.get(turn, -1) > last_index
        ended = notes.turn_end_kind.get(turn)
        if turn == open_turn and not later_step:
            msg = (f"crashed during the retried request (retry {said(n)} in flight after {why}); dsh closes the turn as "
                   "interrupted" if last_t == "llm/retry-started" else
                   f"crashed while waiting to retry (retry {said(n)} scheduled after {why}); dsh closes the turn as "
                   "interrupted")
            found.append(Finding("RETRY_INTERRUPTED", last_index, last_seq, msg, severity="warning",
                                 turn=turn, step=step, code=code))
        elif ended == "error" or later_step:
            found.append(Finding("MODEL_REQUEST_FAILED", last_index, last_seq,
                                 f"{len(rows)} retr{'y' if len(rows) == 1 else 'ies'} and no answer: the "
                                 f"model request failed for good ({why})", turn=turn, step=step, code=code))


def _code_and_message(code: Any, message: Any, n: int = RETRY_MESSAGE) -> str:
    """``UPSTREAM_5XX: upstream 502``; either alone when the other is absent, "no code or message" for neither."""
    parts = [said(code, 80)] if code is not None else []
    if message is not None:
        parts.append(said(message, n))
    return ": ".join(parts) or "no code or message"


def event_findings(notes: Notes, open_turn_index: int | None, found: list[Finding]) -> None:
    """The event types whose meaning explains a failure (compaction, code mode, workflows, hooks, goals)."""
    for start, end in notes.compactions.values():
        if start is not None and end is None:
            _t, index, seq, d = start
            at_crash = open_turn_index is not None and index > open_turn_index
            found.append(Finding("COMPACTION_INTERRUPTED", index, seq,
                                 f"compaction {said(d.get('compactionId'))} started but never ended"
                                 + ("; the process died during it" if at_crash else ""),
                                 severity="failure" if at_crash else "warning", turn=d.get("turn")))
        elif end is not None and end[3].get("error") is not None:
            _t, index, seq, d = end
            err = d["error"]
            text = err.get("message", err) if isinstance(err, dict) else err
            found.append(Finding("COMPACTION_FAILED", index, seq,
                                 f"compaction {said(d.get('compactionId'))} failed: {said(text, 200)}",
                                 severity="warning", turn=d.get("turn")))
    for start, done in notes.dispatches.values():
        if start is not None and done is None:
            _t, index, seq, (root, sub, name, _e, _x, _time) = start
            found.append(Finding("CODE_DISPATCH_UNFINISHED", index, seq,
                                 f"code-mode call {said(sub)} ({said(name)}) inside {said(root)} started but never finished",
                                 severity="warning", call_id=root, name=name))
        elif done is not None and done[3][3]:
            _t, index, seq, (root, sub, name, _e, text, _time) = done
            found.append(Finding("CODE_DISPATCH_ERROR", index, seq,
                                 f"code-mode call {said(sub)} ({said(name)}) inside {said(root)} failed"
                                 + (f": {text.splitlines()[0][:160]}" if text else ""),
                                 severity="warning", call_id=root, name=name))
    for _t, index, seq, d in notes.workflow:
        what = (f"workflow {said(d.get('runId'))} agent {said(d.get('seq'))} {said(d.get('outcome'))}"
                if _t.endswith("agent-end") else f"workflow {said(d.get('runId'))} stopped: {said(d.get('stopReason'))}")
        found.append(Finding("WORKFLOW_FAILED", index, seq, what, severity="warning", code=d.get("outcome")
                             or d.get("stopReason")))
    for _t, index, seq, d in notes.hooks:
        why = d.get("stderrSummary")
        found.append(Finding("HOOK_BLOCKED", index, seq,
                             f"hook {said(d.get('handlerId'))} at {said(d.get('point'))} decided {said(d.get('decision'))}"
                             + (f" (exit {said(d.get('exitCode'))})" if d.get("exitCode") is not None else "")
                             + (f": {said(why, 200)}" if why else ""), severity="warning", turn=d.get("turn")))
    for _t, index, seq, (_op, goal_id, objective, reason, _time) in notes.goals:
        found.append(Finding("GOAL_BLOCKED", index, seq,
                             f"goal {said(goal_id)} ({said(objective)}) blocked" + (f": {said(reason, 200)}" if reason else ""),
                             severity="warning"))
    for _t, index, seq, (turn, step, kind, message, code) in notes.bad_finishes:
        recovered = _stream_recovered(notes, (turn, step), index)
        found.append(Finding("MODEL_STREAM_FAILED", index, seq,
                             f"the model's stream ended with {said(kind)}"
                             + (f" ({_code_and_message(code, message)})" if message or code else "")
                             + ("; a later attempt of the same request recovered" if recovered else ""),
                             severity="info" if recovered else "warning", turn=turn, step=step,
                             code=code if isinstance(code, str) else kind))
    for _t, index, seq, d in notes.cut_messages:
        recovered = _stream_recovered(notes, (d[0], d[1]), index)
        found.append(Finding("MESSAGE_INTERRUPTED", index, seq,
                             "the model's answer was cut off mid-stream (assistant/message interrupted: the prefix "
                             "received is kept)" + ("; a later attempt of the same request recovered" if recovered
                                                    else ""), severity="info" if recovered else "warning",
                             turn=d[0], step=d[1]))


def _stream_recovered(notes: Notes, key: tuple, index: int) -> bool:
    """A failed attempt that dsh retried (an llm/retry after it) and whose request was then answered
    (an assistant/message after the last retry): information, as a recovered retry is."""
    group = notes.retries.get(key)
    if group is None or not group[0] or group[0][-1][0] < index:
        return False
    return notes.answered.get(key, -1) > group[2]


def integrity_findings(log, found: list[Finding]) -> None:
    last = len(log) - 1
    for g in log.res.gaps[:200]:
        i = min(g.index, last)
        found.append(Finding("SEQ_GAP", i if last >= 0 else None, log.seq_of(i) if last >= 0 else None,
                             f"line {g.line}: expected seq {g.expected}, found {g.found}: {g.cause}"))
    torn = log.raw.torn
    if torn is not None:
        found.append(Finding("TORN_TAIL", last if last >= 0 else None, log.seq_of(last) if last >= 0 else None,
                             f"torn tail ({torn.kind}) at byte {torn.offset}: {torn.unreadable_bytes} bytes unreadable, "
                             f"{torn.recovered_records} record(s) recovered; "
                             + ("the last write batch was lost" if torn.lost else
                                "every record was read, only the last frame's checksum is cut"),
                             severity="warning"))
    for u in log.res.unknown.values():
        found.append(Finding("UNKNOWN_TYPE", u.first_index, log.seq_of(u.first_index),
                             f"unknown event type {said(u.type)} x{u.count}: "
                             + ("ignorable: dsh skips it" if u.ignorable else "required (no ignorable:true): dsh refuses to resume this log"),
                             severity="info" if u.ignorable else "warning", name=u.type))
