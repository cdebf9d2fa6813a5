"""What `check` prints as text and what the copy keys put on the clipboard (its JSON: checkjson.py).

Everything here is plain data computed from the model, so the CLI and the TUI
show the same facts. Log text in these outputs is raw; the CLI prints it to a
terminal only through the sanitiser (see cli.py), JSON keeps it exact.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import orjson

from ... import __version__
from ...safety import one_line
from ..diagnosing.diagnosis import Diagnosis, Finding
from ..reading.deepvalue import said
from .citation import failed_request, id_label, model_text, request_text
from .wholeness import decode_warning, records_lost
from .summary import ABSENT, decode_text, field_text, plural, preset_text, torn_text, turn_step
from .timing_text import slowest_lines, turn_markdown
from ..reading.sessionlog import SessionLog


def integrity_problems(log: SessionLog) -> list[str]:
    """Why the decode is not whole (empty when it is)."""
    r, raw = log.res, log.raw
    out = []
    if not log.accepted:
        out.append(f"rejected by dsh ({log.rejection.code}), read with --lenient: UNVERIFIED")
    if r.gaps:
        out.append(f"{len(r.gaps)} seq gap(s), first at line {r.gaps[0].line}")
    if raw.torn is not None:
        out.append(torn_text(raw.torn))
    if raw.unchecked_frames:
        out.append(f"{raw.unchecked_frames} frame(s) carry no checksum: their bytes are unverified (dsh always "
                   "writes one)")
    for c in (raw.corruption + r.corruption)[:3]:
        out.append(f"corruption: {c.message}")
    extra = log.corruption_count - 3
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
    """Where the session stands, as dsh has it: a subagent child (delegationDepth > 0 or origin
    "subagent"), a user fork (parentSession alone: seed lineage, a top-level session), or top-level.
    An absent depth (a header read with --lenient) never claims top-level."""
    h = log.header
    depth = h.delegation_depth
    parent = h.get("parentSession")
    shown = "absent" if depth is None else depth
    if h.delegated:
        return (f"DELEGATED session (subagent child): depth {shown}, parent "
                f"{_text(parent) if parent is not None else 'absent'}"
                f"{', origin ' + _text(h.get('origin')) if h.get('origin') is not None else ', no origin'}")
    if h.forked:
        seed = h.seed_length
        return (f"forked from {_text(parent)}{f' at seq {seed}' if seed is not None else ''} "
                f"(a user fork: a top-level session, depth {shown})")
    if depth is None:
        return "delegationDepth absent (dsh rejects such a header): not known to be top-level"
    return f"depth {depth} (top-level session)"


# How much of one value a report line shows, and how much of it the redactor reads first: a secret
# is masked before the cut, so no part of it shows at the cut. A 16 KiB prefix (~40 ms of regexes)
# bounds the work on a huge argument string; a PEM key longer than that is still masked, to the end.
SNIPPET_ARGS = 200
VALUE_CHARS = 300
REDACT_SPAN = 16 * 1024


def _text(value: Any) -> str:
    """A value as text: strings as they are, "absent" for a field the log left out (None), lists,
    objects and booleans in their JSON spelling, numbers as ``str``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ABSENT
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, (dict, list)):
        return str(value)
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


def _masker(mask: bool):
    """value -> text, with secrets masked when ``mask`` (the redactor is loaded only then)."""
    if not mask:
        return _text
    from .redact import redact  # here, not at import: ~8 ms of regexes `check` never needs
    return lambda value: redact(_text(value)[:REDACT_SPAN])


def call_arguments(log: SessionLog, pair) -> str:
    """The call's whole ``arguments``, read back from the log (``pair.detail`` is a 240-char preview).

    From the tool/call, else from the assistant/message's tool-call block, as the pairing took it;
    the preview when the log cannot be read again.
    """
    from .summary import event_data
    try:
        if pair.open is not None:
            args = event_data(log.event(pair.open)).get("arguments")
            if args:
                return _text(args)
        if pair.ask is not None:
            msg = event_data(log.event(pair.ask)).get("message")
            content = msg.get("content") if isinstance(msg, dict) else None
            for b in content if isinstance(content, list) else ():
                if (isinstance(b, dict) and b.get("type") == "tool-call" and b.get("arguments")
                        and (b.get("id") if isinstance(b.get("id"), str) else repr(b.get("id"))) == pair.key):
                    return _text(b.get("arguments"))
    except Exception:  # noqa: BLE001 - a log changed or cut since the index: the preview will do
        pass
    return pair.detail


def snippet(log: SessionLog, diag: Diagnosis, finding: Finding | None = None, *, mask: bool = True) -> str:
    """The bug-report snippet for ``finding`` (default: the verdict). Plain text, one value per line.

    Every value is on one line (``safety.one_line``): a line break in a callId or a file name
    cannot forge a line. With ``mask`` (the copy keys, the markdown report) secrets are masked
    before a value is cut; ``check``'s text and JSON keep them (``mask=False``).
    """
    f = finding or diag.verdict
    hide = _masker(mask)

    def line(label: str, value: Any, n: int = VALUE_CHARS) -> str:
        return f"{label + ':':<17}{one_line(hide(value), n)}"

    problems = integrity_problems(log)
    lines = []
    if problems:
        lines.append(decode_warning(log) + one_line(hide("; ".join(problems)), 1000))
    if f is None:
        lines.append("dsh session: no failure found")
    else:
        lines.append(f"dsh session failure: {one_line(f.kind, 80)}")
        if f.call_id is not None:
            lines.append(line(id_label(f), f.call_id))
        if f.name is not None:
            lines.append(line("tool/name", f.name))
        lines.append(line("classification", f"{f.kind}{' (closed by dsh crash repair)' if f.repaired else ''}"))
        lines.append(line("seq", f.seq))
        if f.seq is not None:
            lines.append(line("permalink", permalink(log, f.seq)))
        lines.append(line("turn/step", turn_step(f.turn, f.step) or ABSENT))
        if f.code:
            lines.append(line("error code", f.code))
        req = failed_request(log, diag, f)
        if req is not None:  # a model failure: which provider and model, and the request to look at
            lines.append(line("model", model_text(req)))
            lines.append(line("failed request", request_text(req)))
        lines.append(line("finding", f.message, 1000))
        if f.advice and f.advice not in f.message:
            lines.append(line("advice", f.advice, 1000))
        pair = diag.pairing.tools.get(f.call_id) if f.call_id else None
        if pair is not None and pair.detail:
            lines.append(line("arguments", call_arguments(log, pair) if mask else pair.detail, SNIPPET_ARGS))
        others = stranded(diag, f)
        if others:
            lines.append(line("also left", others, 1000))
    h = log.header
    lines += [
        line("header version", field_text(h.raw, "version")),
        line("session id", field_text(h.raw, "id")),
        line("delegation", delegation_line(log)),
        line("agent preset", preset_text(log, diag)),
        f"{'file:':<17}{one_line(hide(log.path.name), VALUE_CHARS)} ({decode_text(log)})",
        line("dsh-tui", __version__),
        "dsh version:     <fill in: `dsh --version`; the log does not record it>",
        "plugin SHAs:     <fill in; the log does not record them>",
    ]
    return "\n".join(lines) + "\n"


def stranded(diag: Diagnosis, finding: Finding | None) -> str:
    """The other calls the crash left (those dsh's repair would close besides ``finding``'s), each
    with its classification: a crash usually strands more than one."""
    calls = [p for p in diag.pairing.interrupted if finding is None or p.key != finding.call_id]
    return ", ".join(f"{_text(p.key)} ({_text(p.name)}: {p.status})" for p in calls)


def permalink(log: SessionLog, seq: int) -> str:
    """A stable name for an event: `<session-id>@<seq>` (open it with `dsh-tui FILE --at SEQ`), on one line."""
    return f"{one_line(_text(log.session_id), None)}@{seq}"


def pairs_around(diag: Diagnosis, finding: Finding | None, radius: int = 4) -> list:
    """The call/result pairs nearest the finding, oldest first."""
    pairs = sorted(diag.pairs, key=lambda p: p.anchor)
    if not pairs:
        return []
    at = finding.index if finding is not None and finding.index is not None else pairs[-1].anchor
    nearest = min(range(len(pairs)), key=lambda k: abs(pairs[k].anchor - at))
    return pairs[max(0, nearest - radius):nearest + radius + 1]


def bug_report_markdown(log: SessionLog, diag: Diagnosis, finding: Finding | None = None) -> str:
    """A shareable report: header, integrity, the finding, pairs around it, findings. Secrets masked.

    Every value from the log is masked, then put on one line and cut, then escaped for its place
    (``model.markdown``): code spans in tables, a fence longer than any backtick run around the
    snippet, backslash escapes in prose. Nothing a log holds renders as a heading, link, image or HTML.
    """
    from . import markdown as md
    hide = _masker(True)

    def val(value: Any, n: int = VALUE_CHARS) -> str:
        return one_line(hide(value), n)

    f = finding or diag.verdict
    out = [f"# dsh session report: {md.text(f.kind if f else 'no failure found')}", ""]
    problems = integrity_problems(log)
    if problems:
        head = "WARNING: decode not whole" if records_lost(log) else "Note: decode not whole, no record lost"
        out += [f"> **{head}** - " + md.text(val("; ".join(problems), 1000)), ""]
    out += ["## Header", "", "| field | value |", "|---|---|"]
    for key, value in log.header.fields().items():
        out.append(f"| {md.cell(val(key, 80))} | {md.cell(val(value))} |")
    out.append(f"| effective agentPreset | {md.cell(val(preset_text(log, diag)))} |")
    out += ["", f"**Delegation:** {md.text(val(delegation_line(log)))}", "",
            f"**Decode:** {md.text(decode_text(log))}", ""]
    out += ["## Snippet", "", *md.fence(snippet(log, diag, f, mask=True)), ""]
    around = pairs_around(diag, f)
    if around:
        out += ["## Pairs around it", "", "| kind | key | name | status | code | seqs |", "|---|---|---|---|---|---|"]
        for p in around:
            seqs = " ".join(f"{k}={v}" for k, v in p.seqs.items())
            out.append(f"| {md.text(p.kind)} | {md.cell(val(p.key))} | {md.cell(val(p.name))} | "
                       f"**{md.text(val(p.status, 80))}** | {md.cell(val(p.code or ''))} | {md.text(seqs)} |")
        out.append("")
    if f is not None and f.turn is not None:
        out += turn_markdown(log, diag.timing, f.turn, val, md)
    from ..context.export import insight, markdown_lines
    out += markdown_lines(insight(log), diag, md, val)
    out += [f"## Findings ({len(diag.findings)}, newest first)", ""]
    for x in diag.findings[:50]:
        who = "".join(f" {label} {md.code(val(v))}" for label, v in (("callId", x.call_id), ("name", x.name))
                      if v is not None)
        out.append(f"- \\[{md.text(x.severity)}\\] seq {md.text(val(x.seq, 40))} {md.text(x.kind)}{who}: "
                   f"{md.text(val(x.message, 1000))}")
    if len(diag.findings) > 50:
        from .findingcap import dropped_text, split_by_kind
        rest = split_by_kind(diag.findings[50:], 0)[1]  # (counted by kind, with their seq range)
        out.append(f"- ... {len(diag.findings) - 50} more: {md.text(dropped_text(rest))} (`dsh-tui check --format json`)")
    return "\n".join(out) + "\n"


def check_text(log: SessionLog, diag: Diagnosis, *, markdown: bool = False, lineage=None) -> str:
    """Human-readable report, every line sanitised on its own (``one_line``: a line break in a
    header value or a file name cannot forge a line).

    The markdown form is meant to be shared, so it is the masked bug report. The text form is the
    operator's own view: its snippet keeps secrets (its title says so; ``y`` and markdown mask them).
    """
    if markdown:
        return bug_report_markdown(log, diag)
    h, r = log.header, log.res
    title = (lambda s: f"== {s} ==")
    bullet = "  "
    out = [f"dsh-tui check: {log.path}"]
    problems = integrity_problems(log)
    out.append(title("Header"))
    for key in ("version", "id", "cwd", "createdAt", "parentSession", "seedLength", "origin", "delegationDepth", "agentPreset"):
        if key in (h.raw or {}):
            extra = f"  ({created_iso(log)})" if key == "createdAt" and created_iso(log) else ""
            out.append(f"{bullet}{key}: {field_text(h.raw, key, VALUE_CHARS)}{extra}")
    if "delegationDepth" not in (h.raw or {}):
        out.append(f"{bullet}delegationDepth: absent")
    if diag.effective_preset != h.get("agentPreset"):
        out.append(f"{bullet}effective agentPreset (agent-preset/selected): {preset_text(log, diag)}")
    if h.delegated:
        out.append(f"{bullet}*** {delegation_line(log)} ***")
    elif h.forked:
        out.append(f"{bullet}{delegation_line(log)}")
    if log.rejection:
        out.append(f"{bullet}REJECTED by dsh: {log.rejection.message}")
    out.append(title("Decode"))
    out.append(f"{bullet}{decode_text(log)}{' (projected fixture: seq not verifiable)' if r.projected else ''}")
    if problems:
        out.append(f"{bullet}NOT WHOLE: " + "; ".join(problems))
    elif r.projected:
        out.append(f"{bullet}seq assigned by position")
    elif not len(log):
        out.append(f"{bullet}whole: no events (the log holds only its header)")
    else:
        out.append(f"{bullet}whole: seq contiguous 0..{log.seq_of(len(log) - 1):,}")
    for u in r.unknown.values():
        out.append(f"{bullet}unknown type {u.type} x{u.count} ({'ignorable' if u.ignorable else 'required'})")
    if r.legacy:
        out.append(f"{bullet}legacy shapes read: " + ", ".join(f"{k} x{v}" for k, v in r.legacy.items()))
    out.append(title("Verdict"))
    v = diag.verdict
    out.append(f"{bullet}{_finding_line(v)}" if v else f"{bullet}no failure found")
    if v is not None and v.advice:
        out.append(f"{bullet}advice: {v.advice}")
    if v is not None and stranded(diag, v):
        out.append(f"{bullet}also left by the crash: {stranded(diag, v)}")
    if lineage is not None and (lineage.parent or lineage.children):
        from ..sessions.lineage import lineage_lines
        out.append(title("Lineage (same session root)"))
        out += [f"{bullet}{line}" for line in lineage_lines(lineage)]
    out += _grouped_findings(diag.findings, title, bullet)
    u = diag.usage
    out.append(title("Usage"))
    counts = ", ".join(f"{k} {v:,}" for k, v in u.session.items() if v)
    out.append(f"{bullet}{plural(u.calls, 'model call')}" + (f": {counts}" if counts else ""))
    if any(u.inherited.values()):
        out.append(f"{bullet}inherited through the fork seed (not counted): "
                   + ", ".join(f"{k} {v:,}" for k, v in u.inherited.items() if v))
    slow = slowest_lines(log, diag.timing)
    if slow:  # a tiny log's few milliseconds say nothing
        out.append(title("Slowest"))
        out += [f"{bullet}{line}" for line in slow]
    out.append(title("Bug-report snippet (secrets not masked: --format markdown masks them)"))
    out = [one_line(x, None) for x in out]
    out.append(snippet(log, diag, mask=False).rstrip("\n"))  # one value per line already
    return "\n".join(out) + "\n"


def _finding_line(f: Finding) -> str:
    who = " ".join(f"{label}={said(v)}" for label, v in ((id_label(f), f.call_id), ("name", f.name)) if v)
    seq = f"seq {f.seq:,}" if isinstance(f.seq, int) else "no seq"
    return f"[{f.severity}] {seq} {f.kind}{' ' + who if who else ''}: {f.message}"


PER_KIND = 3  # findings shown per kind in the text report; the rest of a kind is one line


def _grouped_findings(findings: list[Finding], title, bullet: str) -> list[str]:
    """The findings by kind, kinds in the order their newest finding comes, each with its count and
    newest first: a kind's first PER_KIND, then one line for the rest with their seq range (200
    retries are one line, not 200)."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.kind, []).append(f)
    out = [title(f"Findings ({len(findings):,} in {plural(len(groups), 'kind')}, newest first)")]
    for kind, items in groups.items():
        seqs = [f.seq for f in items if isinstance(f.seq, int)]
        span = f", seq {min(seqs):,}..{max(seqs):,}" if len(seqs) > 1 else ""
        out.append(f"{bullet}{kind} ({len(items):,}{span})")
        out += [f"{bullet}  {_finding_line(f)}" for f in items[:PER_KIND]]
        rest = items[PER_KIND:]
        if rest:
            rs = [f.seq for f in rest if isinstance(f.seq, int)]
            where = f" (seq {min(rs):,}..{max(rs):,})" if rs else ""
            from .findingcap import MAX_LISTED  # (the JSON's per-kind listing, which this names)
            listed = "every one" if len(items) <= MAX_LISTED else f"the first {MAX_LISTED:,}"
            out.append(f"{bullet}  ... and {len(rest):,} more {kind}{where}: --format json lists {listed}")
    return out
