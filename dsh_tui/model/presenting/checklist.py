"""The ten-minute pass as six steps, each with its result and the event it concerns.

Textual-free: the explorer's checklist screen renders these steps (Enter jumps to
``Step.index``). The steps follow what a user walking back from a crash needs:
1 the decode and the header (where the session ran), 2 seq contiguous, 3 every
call the crash left (or the newest call with a problem), 4 what to do about it,
5 tools the session was not offered, 6 the lines to cite in a bug report.
"""

from __future__ import annotations

from msgspec import Struct, field

from .citation import MODEL_KINDS, TURN_KINDS, failed_request, id_label, model_text, request_text
from .report import created_iso, delegation_line, permalink
from .summary import torn_text, decode_text, depth_text, field_text, plural, preset_text, shown


class Step(Struct):
    number: int
    title: str
    status: str  # ok | fail | warn | info
    lines: list[str] = field(default_factory=list)
    index: int | None = None  # the event the step concerns


def _problem_calls(diag) -> list:
    """The calls to look at: every call dsh's repair would close (the crash left them), else the
    newest tool call with a problem (no result, or an error)."""
    if diag.pairing.interrupted:
        return sorted(diag.pairing.interrupted, key=lambda p: p.anchor, reverse=True)
    for p in diag.pairs:  # newest first
        if p.kind == "tool" and p.status != "paired":
            return [p]
    return []


def _call_line(p) -> str:
    return (f"{shown(p.key)} {shown(p.name)}: {p.status}" + (f" ({p.code})" if p.code and p.code != p.status else "")
            + "   " + " → ".join(f"{role} seq {seq:,}" for role, seq in p.seqs.items()))


def _advice(diag, p) -> list[str]:
    """What to do about call ``p``: its finding's advice (a call that may have run is never advised a
    retry), else what its status says."""
    f = next((f for f in diag.findings if f.call_id == p.key and f.kind.startswith("TOOL_")), None)
    head = f"{shown(p.key)}: {p.status}" + (" (closed by dsh's crash repair)" if p.repaired else "")
    if f is not None and f.advice:
        return [head, f.advice]
    if p.status == "error":
        return [f"{shown(p.key)}: the tool ran and returned an error{': ' + p.code if p.code else ''}",
                ((p.result or "").splitlines() or [""])[0]]
    return [head] + ([f.message] if f is not None else [])


def ten_minute_pass(log, diag) -> list[Step]:
    h, raw, res = log.header, log.raw, log.res
    n = len(log)
    corrupt = raw.corruption + res.corruption
    s1 = Step(1, "Decoded: encoding, frames, header fields", "ok" if log.accepted and not corrupt else "fail",
              [decode_text(log),
               f"version {field_text(h.raw, 'version')}, id {field_text(h.raw, 'id')}, "
               f"createdAt {created_iso(log) or field_text(h.raw, 'createdAt')}",
               f"cwd {field_text(h.raw, 'cwd')}",
               f"delegationDepth {depth_text(h)}, agentPreset {preset_text(log, diag)}"], 0 if n else None)
    if h.delegated or h.forked:
        s1.lines.append(delegation_line(log))
    if log.rejection:
        s1.lines.append(f"REJECTED by dsh ({log.rejection.code}): {log.rejection.message}")
    s1.lines += [f"corruption: {c.message}" for c in corrupt[:3]]
    if log.corruption_count > 3:
        s1.lines.append(f"... and {log.corruption_count - 3:,} more corrupt record(s)")
    s2 = _seq_step(log)
    s3, s4 = _failure_steps(log, diag)
    s5 = _tool_set_step(diag)
    s6 = _cite_step(log, diag, _problem_calls(diag))
    steps = [s1, s2, s3, s4, s5, s6]
    _no_check_on_the_verdict(diag.verdict, steps)
    return steps


# What steps 3 and 4 cover besides tool calls: every live finding but the decode's (steps 1, 2)
# and the tool set's (step 5), newest first.
_ELSEWHERE = {"SEQ_GAP": 2, "TORN_TAIL": 2, "UNKNOWN_TYPE": 1, "NOT_IN_TOOL_SET": 5}
# What each kind means for the user, where its message does not say it (step 4).
_MEANING = {
    "MODEL_REQUEST_FAILED": "the model request failed for good: no tool call was pending, so nothing ran twice; "
                            "send the turn again once the provider answers",
    "RETRY_INTERRUPTED": "the process died while a model request was being retried: dsh closes the turn as "
                         "interrupted on resume; no tool call was pending",
    "TURN_NOT_COMPLETED": "the turn ended before it completed: what it was asked may be partly done",
    "LLM_RETRY": "retries of the model request that brought no answer",
    "OPEN_TURN": "the process died inside the turn: dsh closes it as interrupted on the next resume",
    "COMMAND_NOT_DONE": "dsh never recorded how the command ended: check its effect (for /compact, whether the "
                        "context was compacted) before running it again",
    "COMMAND_FAILED": "the command ran and reported an error: its output says why",
    "APPROVAL_UNDECIDED": "the approval was never answered: the call it guards did not run after it",
}


def _other_failures(diag) -> list[tuple]:
    """(first finding, how many of its kind) for every live kind steps 3 and 4 cover, the verdict's
    kind first, then newest first: three retries that ran out are one line, not three."""
    v = diag.verdict
    kinds: dict[str, list] = {}
    for f in diag.findings:
        if f.severity != "info" and f.kind not in _ELSEWHERE and not f.kind.startswith("TOOL_"):
            kinds.setdefault(f.kind, []).append(f)
    out = [(v, len(kinds.pop(v.kind)))] if v is not None and v.kind in kinds else []
    return out + [(items[0], len(items)) for items in kinds.values()]


def _failure_steps(log, diag) -> tuple[Step, Step]:
    """Step 3 (what failed last: the calls, then the commands, model requests and turns) and step 4
    (what each means and what to do). A warning alone is "warn"; any failure "fail"."""
    calls = _problem_calls(diag)
    others = _other_failures(diag)
    title3, title4 = "The last call, command or model request that failed", "Its classification"
    if not calls and not others:
        return (Step(3, title3, "ok", ["every tool call has a result and none failed; no command, model request "
                                       "or turn failed"]),
                Step(4, title4, "ok", ["nothing to classify"]))
    lines: list[str] = []
    advice: list[str] = []
    where = None
    if calls:
        p = calls[0]
        where = p.close if p.close is not None else p.open if p.open is not None else p.ask
        lines += [_call_line(c) for c in calls]
        if len(calls) > 1:
            lines.insert(0, f"the crash left {plural(len(calls), 'call')} without a result:")
        lines.append(f"arguments {shown(p.detail)}")
        advice += [x for c in calls for x in _advice(diag, c)]
    told = set()  # the requests already named
    for f, n in others[:5]:
        more = f" (and {n - 1:,} more)" if n > 1 else ""
        lines.append(f"{f.kind} at seq {shown(f.seq)}{more}: {f.message}")
        advice.append(f"{f.kind}: {_MEANING.get(f.kind, f.advice or f.message)}")
        req = failed_request(log, diag, f) if f.kind in MODEL_KINDS + TURN_KINDS else None
        if req is not None and req.seq not in told:
            told.add(req.seq)
            lines.append(f"  the request: {model_text(req)}, request/header "
                         + (f"seq {req.seq:,}" if req.seq is not None else "not found before it"))
        if where is None:
            where = f.index
    if len(others) > 5:
        lines.append(f"... and {len(others) - 5:,} more kinds (`dsh-tui check` lists them)")
    v = diag.verdict
    if v is not None and v.index is not None and v.kind not in _ELSEWHERE and v.severity != "info":
        where = v.index  # Enter goes where the verdict is, as `v` does
    failing = any(f.severity == "failure" for f, _n in others) or any(c.status != "unpaired" for c in calls)
    status = "fail" if failing else "warn"
    return Step(3, title3, status, lines, where), Step(4, title4, status, advice, where)


def _cite_step(log, diag, calls) -> Step:
    """The lines the snippet cites (the verdict's), each under its own label: a command's commandId is
    no callId, and a failure with no id cites its seq and, for a model failure, the request."""
    h, v = log.header, diag.verdict
    title = "The lines to cite"
    common = [f"header version:  {field_text(h.raw, 'version')}", f"session id:      {field_text(h.raw, 'id')}"]
    if v is None and calls:  # nothing live: the newest problem call of an earlier run
        p = calls[0]
        return Step(6, title, "info", [f"callId:          {shown(p.key)}", f"tool/name:       {shown(p.name)}", *common,
                                       f"seq:             {shown(p.seqs.get('call', p.seqs.get('ask')))}"],
                    p.open if p.open is not None else p.ask)
    if v is None:
        return Step(6, title, "ok", ["no failure to cite"])
    finding = f"finding:         {v.kind}" + (f" ({v.code})" if v.code and v.code != v.kind else "")
    lines = []
    if v.call_id is not None:
        lines.append(f"{id_label(v) + ':':<17}{shown(v.call_id)}")
    elif v.kind.startswith("TOOL_"):
        lines.append("callId:          absent (the log names none: cite the seq)")
    if v.name is not None:
        lines.append(f"{'tool/name:' if v.kind.startswith('TOOL_') else 'name:':<17}{shown(v.name)}")
    if not lines:  # nothing names it: what it is comes first
        lines.append(finding)
    lines += [*common, f"seq:             {shown(v.seq)}"]
    if v.seq is not None:
        lines.append(f"permalink:       {permalink(log, v.seq)}")
    if finding not in lines:
        lines.append(finding)
    req = failed_request(log, diag, v)
    if req is not None:
        lines.append(f"model:           {model_text(req)}")
        lines.append(f"failed request:  {request_text(req)}")
    return Step(6, title, "info", lines, v.index)


def _no_check_on_the_verdict(v, steps: list[Step]) -> None:
    """No step that covers the verdict shows a check mark: a verdict of the decode's is step 1's or 2's,
    the tool set's step 5's, every other steps 3 and 4's."""
    if v is None or v.severity == "info":
        return
    covering = [_ELSEWHERE[v.kind]] if v.kind in _ELSEWHERE else [3, 4]
    for step in steps:
        if step.number in covering and step.status == "ok":
            step.status = "fail" if v.severity == "failure" else "warn"
            step.lines.append(f"the verdict: {v.kind} at seq {shown(v.seq)}: {v.message}")
            if step.index is None:
                step.index = v.index


def _seq_step(log) -> Step:
    res, raw, n = log.res, log.raw, len(log)
    title = "seq contiguous after expanding packed rows"
    if res.projected:
        step = Step(2, title, "info", ["projected fixture: no seq on disk, seq assigned by position (not verifiable)"])
    elif res.gaps:
        step = Step(2, title, "fail",
                    [f"{len(res.gaps)} gap(s)"] + [f"line {g.line}: expected {g.expected}, found {g.found}: {g.cause}"
                                                   for g in res.gaps[:3]], min(res.gaps[0].index, max(n - 1, 0)))
    elif not n:
        step = Step(2, title, "info", ["no events: the log holds only its header"])
    else:
        step = Step(2, title, "ok",
                    [f"seq 0..{log.seq_of(n - 1):,} contiguous ({plural(log.records, 'record')} → {plural(n, 'event')})"])
    if raw.torn is not None:
        step.status = "fail" if step.status == "fail" else "warn"
        step.lines.append(torn_text(raw.torn))
        step.index = step.index if step.index is not None else (n - 1 if n else None)
    return step


def _tool_set_step(diag) -> Step:
    title = "Tool names not in this session's tool set"
    outside = [f for f in diag.findings if f.kind == "NOT_IN_TOOL_SET"]
    if outside:
        lines = [f"{shown(f.name)} (callId {shown(f.call_id)}, seq {shown(f.seq)})"
                 + (f": called by the subagent child {f.child_session}" if f.child_session else "")
                 for f in outside[:5]]
        if any(f.child_session is None for f in outside):
            lines.append(outside[0].advice or "")
        return Step(5, title, "warn", lines, outside[0].index)
    if not any(p.open is not None for p in diag.pairing.tools.values()):
        offered = diag.tool_set
        return Step(5, title, "info", ["no tool was called: nothing to check" + (
            f" (the latest request/header offers {plural(len(offered), 'tool')})" if isinstance(offered, tuple)
            else " (no request/header lists tools)")])
    if not any(isinstance(p.offered, tuple) for p in diag.pairing.tools.values()):
        return Step(5, title, "info", ["no request/header tool list before the calls: cannot check"])
    return Step(5, title, "ok", ["every called tool is in the tool set"])
