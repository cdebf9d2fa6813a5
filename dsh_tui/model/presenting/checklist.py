"""The ten-minute pass as six steps, each with its result and the event it concerns.

Textual-free: the explorer's checklist screen renders these steps (Enter jumps to
``Step.index``). The steps follow what a user walking back from a crash needs:
1 the decode and the header (where the session ran), 2 seq contiguous, 3 every
call the crash left (or the newest call with a problem), 4 what to do about it,
5 tools the session was not offered, 6 the lines to cite in a bug report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .report import created_iso, delegation_line
from .summary import torn_text, decode_text, depth_text, field_text, plural, preset_text, shown


@dataclass
class Step:
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
    calls = _problem_calls(diag)
    if not calls:
        s3 = Step(3, "The last call without a result or with an error", "ok",
                  ["every tool call has a result and none failed"])
        s4 = Step(4, "Its classification", "ok", ["nothing to classify"])
    else:
        p = calls[0]
        where = p.close if p.close is not None else p.open if p.open is not None else p.ask
        lines = [_call_line(c) for c in calls]
        if len(calls) > 1:
            lines.insert(0, f"the crash left {plural(len(calls), 'call')} without a result:")
        lines.append(f"arguments {shown(p.detail)}")
        s3 = Step(3, "The last call without a result or with an error", "fail", lines, where)
        s4 = Step(4, "Its classification", "fail", [x for c in calls for x in _advice(diag, c)], where)
    s5 = _tool_set_step(diag)
    v = diag.verdict
    p = calls[0] if calls else None
    cite = v if v is not None and v.call_id else None
    cid, name, seq, at = ((cite.call_id, cite.name, cite.seq, cite.index) if cite else
                          (p.key, p.name, p.seqs.get("call", p.seqs.get("ask")), s3.index) if p else
                          (None, None, v.seq if v else None, v.index if v else None))
    s6 = Step(6, "The lines to cite", "info" if cid or v else "ok",
              [f"callId:          {shown(cid)}", f"tool/name:       {shown(name)}",
               f"header version:  {field_text(h.raw, 'version')}", f"session id:      {field_text(h.raw, 'id')}",
               f"seq:             {shown(seq)}"] if cid or v
              else ["no failure to cite"], at)
    return [s1, s2, s3, s4, s5, s6]


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
    if not any(isinstance(p.offered, tuple) for p in diag.pairing.tools.values()):
        return Step(5, title, "info", ["no request/header tool list before the calls: cannot check"])
    return Step(5, title, "ok", ["every called tool is in the tool set"])
