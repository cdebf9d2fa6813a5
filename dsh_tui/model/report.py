"""What `check` prints and what the copy key puts on the clipboard.

Everything here is plain data computed from the model, so the CLI and the TUI
show the same facts. Log text in these outputs is raw; the CLI prints it to a
terminal only through the sanitiser (see cli.py), JSON keeps it exact.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from .. import __version__
from .diagnosis import ADVICE, Diagnosis, Finding
from .session import SessionLog

SCHEMA = "dsh-tui/check/1"


def integrity_problems(log: SessionLog) -> list[str]:
    """Why the decode is not whole (empty when it is)."""
    r, raw = log.res, log.raw
    out = []
    if not log.accepted:
        out.append(f"header rejected by dsh ({log.header.rejection.code}), read with --lenient: UNVERIFIED")
    if r.gaps:
        out.append(f"{len(r.gaps)} seq gap(s), first at line {r.gaps[0].line}")
    if raw.torn is not None:
        out.append(f"torn tail at byte {raw.torn.offset} ({raw.torn.unreadable_bytes} bytes unreadable)")
    for c in (raw.corruption + r.corruption)[:3]:
        out.append(f"corruption: {c.message}")
    extra = len(raw.corruption) + len(r.corruption) - 3
    if extra > 0:
        out.append(f"... and {extra} more corrupt record(s)")
    required = [u.type for u in r.unknown.values() if not u.ignorable]
    if required:
        out.append(f"unknown required event type(s): {', '.join(required)}")
    return out


def created_iso(log: SessionLog) -> str | None:
    created = log.header.get("createdAt")
    if isinstance(created, (int, float)) and not isinstance(created, bool) and 0 <= created < 2**53:
        try:
            return _dt.datetime.fromtimestamp(created / 1000, _dt.timezone.utc).isoformat(timespec="seconds")
        except (OverflowError, OSError, ValueError):
            return None
    return None


def delegation_line(log: SessionLog) -> str:
    h = log.header
    depth = h.get("delegationDepth")
    if h.delegated:
        parent = h.get("parentSession")
        return (f"DELEGATED session: depth {depth}, parent {parent}"
                f"{', origin ' + str(h.get('origin')) if h.get('origin') else ''}")
    return f"depth {depth} (top-level session)"


def snippet(log: SessionLog, diag: Diagnosis, finding: Finding | None = None) -> str:
    """The bug-report snippet for ``finding`` (default: the verdict). Plain text."""
    f = finding or diag.verdict
    problems = integrity_problems(log)
    lines = []
    if problems:
        lines.append("WARNING: DECODE NOT WHOLE - do not file a bug from this alone: " + "; ".join(problems))
    if f is None:
        lines.append("dsh session: no failure found")
    else:
        lines.append(f"dsh session failure: {f.kind}")
        if f.call_id is not None:
            lines.append(f"callId:          {f.call_id}")
        if f.name is not None:
            lines.append(f"tool/name:       {f.name}")
        lines.append(f"classification:  {f.kind}{' (closed by dsh crash repair)' if f.repaired else ''}")
        lines.append(f"seq:             {f.seq}")
        if f.seq is not None:
            lines.append(f"permalink:       {permalink(log, f.seq)}")
        lines.append(f"turn/step:       {f.turn}/{f.step}")
        if f.code:
            lines.append(f"error code:      {f.code}")
        lines.append(f"finding:         {f.message}")
        if f.kind in ADVICE and ADVICE[f.kind] not in f.message:
            lines.append(f"advice:          {ADVICE[f.kind]}")
        pair = diag.pairing.tools.get(f.call_id) if f.call_id else None
        if pair is not None and pair.detail:
            lines.append(f"arguments:       {pair.detail[:200]}")
    h = log.header
    lines += [
        f"header version:  {h.get('version')}",
        f"session id:      {h.get('id')}",
        f"delegation:      {delegation_line(log)}",
        f"agent preset:    {diag.effective_preset}",
        f"file:            {log.path.name} ({log.raw.encoding}, {log.raw.frames if log.raw.frames is not None else '-'} frames, "
        f"{len(log)} events)",
        f"dsh-tui:         {__version__}",
        "dsh version:     <fill in: `dsh --version`; the log does not record it>",
        "plugin SHAs:     <fill in; the log does not record them>",
    ]
    return "\n".join(lines) + "\n"


def permalink(log: SessionLog, seq: int) -> str:
    """A stable name for an event: `<session-id>@<seq>` (open it with `dsh-tui FILE --at SEQ`)."""
    return f"{log.session_id}@{seq}"


def pairs_around(diag: Diagnosis, finding: Finding | None, radius: int = 4) -> list:
    """The call/result pairs nearest the finding, oldest first."""
    pairs = sorted(diag.pairs, key=lambda p: p.anchor)
    if not pairs:
        return []
    at = finding.index if finding is not None and finding.index is not None else pairs[-1].anchor
    nearest = min(range(len(pairs)), key=lambda k: abs(pairs[k].anchor - at))
    return pairs[max(0, nearest - radius):nearest + radius + 1]


def bug_report_markdown(log: SessionLog, diag: Diagnosis, finding: Finding | None = None) -> str:
    """A shareable report: header, integrity, the finding, pairs around it, findings. Secrets masked."""
    f = finding or diag.verdict
    out = [f"# dsh session report: {f.kind if f else 'no failure found'}", ""]
    problems = integrity_problems(log)
    if problems:
        out += ["> **WARNING: decode not whole** - " + "; ".join(problems), ""]
    out += ["## Header", "", "| field | value |", "|---|---|"]
    for key, value in log.header.fields().items():
        out.append(f"| `{key}` | `{value}` |")
    out.append(f"| effective agentPreset | `{diag.effective_preset}` |")
    out += ["", f"**Delegation:** {delegation_line(log)}", "",
            f"**Decode:** {log.raw.encoding}, {log.raw.frames if log.raw.frames is not None else '-'} frames, "
            f"{log.records} records, {len(log)} events", ""]
    out += ["## Snippet", "", "```", snippet(log, diag, f).rstrip("\n"), "```", ""]
    around = pairs_around(diag, f)
    if around:
        out += ["## Pairs around it", "", "| kind | key | name | status | code | seqs |", "|---|---|---|---|---|---|"]
        for p in around:
            seqs = " ".join(f"{k}={v}" for k, v in p.seqs.items())
            out.append(f"| {p.kind} | `{p.key}` | {p.name} | **{p.status}** | {p.code or ''} | {seqs} |")
        out.append("")
    out += [f"## Findings ({len(diag.findings)}, newest first)", ""]
    for x in diag.findings[:50]:
        out.append(f"- {_finding_line(x)}")
    if len(diag.findings) > 50:
        out.append(f"- ... {len(diag.findings) - 50} more (`dsh-tui check --format json`)")
    from .redact import redact  # here, not at import: ~6 ms of regexes `check` never needs
    return redact("\n".join(out) + "\n")


def check_json(log: SessionLog, diag: Diagnosis, lineage=None) -> dict[str, Any]:
    raw, r = log.raw, log.res
    from .lineage import lineage_json
    return {
        "lineage": lineage_json(lineage) if lineage is not None else None,
        "schema": SCHEMA,
        "file": str(log.path),
        "encoding": raw.encoding,
        "frames": raw.frames,
        "accepted": log.accepted,
        "rejection": log.header.rejection.as_dict() if log.header.rejection else None,
        "verified": log.verified,
        "whole": log.whole,
        "header": log.header.fields(),
        "created_at_iso": created_iso(log),
        "delegated": log.header.delegated,
        "effective_agent_preset": diag.effective_preset,
        "events": len(log),
        "records": log.records,
        "projected": r.projected,
        "torn_tail": raw.torn.as_dict() if raw.torn else None,
        "corruption": [c.as_dict() for c in raw.corruption + r.corruption],
        "seq": {"contiguous": not r.gaps and not r.projected, "verifiable": not r.projected,
                "gaps": [g.as_dict() for g in r.gaps]},
        "unknown_types": [u.as_dict() for u in r.unknown.values()],
        "legacy_shapes": dict(r.legacy),
        "envelope_issues": r.envelope_issues,
        "lenient_json_records": r.lenient_records,
        "findings": [f.as_dict() for f in diag.findings],
        "verdict": diag.verdict.as_dict() if diag.verdict else None,
        "open_turn": diag.open_turn,
        "pairs": {"tool": len(diag.pairing.tools), "command": len(diag.pairing.commands),
                  "approval": len(diag.pairing.approvals)},
        "usage": diag.usage.as_dict(),
        "snippet": snippet(log, diag),
        "dsh_tui_version": __version__,
    }


def check_text(log: SessionLog, diag: Diagnosis, *, markdown: bool = False, lineage=None) -> str:
    """Human-readable report; the caller sanitises it before printing to a terminal.

    The markdown form is meant to be shared, so it is the masked bug report.
    """
    if markdown:
        return bug_report_markdown(log, diag)
    h, raw, r = log.header, log.raw, log.res
    title = (lambda s: f"== {s} ==")
    bullet = "  "
    out = [f"dsh-tui check: {log.path}"]
    problems = integrity_problems(log)
    out.append(title("Header"))
    for key in ("version", "id", "cwd", "createdAt", "parentSession", "seedLength", "origin", "delegationDepth", "agentPreset"):
        if key in (h.raw or {}):
            extra = f"  ({created_iso(log)})" if key == "createdAt" and created_iso(log) else ""
            out.append(f"{bullet}{key}: {h.raw[key]}{extra}")
    if diag.effective_preset != h.get("agentPreset"):
        out.append(f"{bullet}effective agentPreset (agent-preset/selected): {diag.effective_preset}")
    if h.delegated:
        out.append(f"{bullet}*** {delegation_line(log)} ***")
    if h.rejection:
        out.append(f"{bullet}REJECTED by dsh: {h.rejection.message}")
    out.append(title("Decode"))
    out.append(f"{bullet}{raw.encoding}, {raw.frames if raw.frames is not None else '-'} frames, {log.records} records, "
               f"{len(log)} events{' (projected fixture: seq not verifiable)' if r.projected else ''}")
    out.append(f"{bullet}" + ("whole: seq contiguous 0.." + str(len(log) - 1) if not problems and not r.projected
                              else "NOT WHOLE: " + "; ".join(problems) if problems else "seq assigned by position"))
    for u in r.unknown.values():
        out.append(f"{bullet}unknown type {u.type} x{u.count} ({'ignorable' if u.ignorable else 'required'})")
    if r.legacy:
        out.append(f"{bullet}legacy shapes read: " + ", ".join(f"{k} x{v}" for k, v in r.legacy.items()))
    out.append(title("Verdict"))
    v = diag.verdict
    out.append(f"{bullet}{_finding_line(v)}" if v else f"{bullet}no failure found")
    if v is not None and v.kind in ADVICE:
        out.append(f"{bullet}advice: {ADVICE[v.kind]}")
    if lineage is not None and (lineage.parent or lineage.children):
        from .lineage import lineage_lines
        out.append(title("Lineage (same session root)"))
        out += [f"{bullet}{line}" for line in lineage_lines(lineage)]
    out.append(title(f"Findings ({len(diag.findings)}, newest first)"))
    for f in diag.findings[:200]:
        out.append(f"{bullet}{_finding_line(f)}")
    if len(diag.findings) > 200:
        out.append(f"{bullet}... {len(diag.findings) - 200} more (use --format json)")
    u = diag.usage
    out.append(title("Usage"))
    out.append(f"{bullet}{u.calls} model calls: " + ", ".join(f"{k} {v:,}" for k, v in u.session.items() if v))
    if any(u.inherited.values()):
        out.append(f"{bullet}inherited through the fork seed (not counted): "
                   + ", ".join(f"{k} {v:,}" for k, v in u.inherited.items() if v))
    out.append(title("Bug-report snippet"))
    snip = snippet(log, diag)
    out.append(snip.rstrip("\n"))
    return "\n".join(out) + "\n"


def _finding_line(f: Finding) -> str:
    who = " ".join(x for x in (f.call_id and f"callId={f.call_id}", f.name and f"name={f.name}") if x)
    return f"[{f.severity}] seq {f.seq} {f.kind}{' ' + who if who else ''}: {f.message}"
