"""`check --format json`: the document (`check_json`, schema ``dsh-tui/check/1``) and its text, written
a piece at a time (`write_check_json`: the long lists never held whole) or at once (`json_text`).

Log text keeps its exact value in the JSON; the prose built around it (messages, advice) is on one
line as in the text report, and the text escapes whatever a terminal would act on (jsonstream.py).
"""

from __future__ import annotations

from typing import Any

from ... import __version__
from ...safety import one_line
from ..diagnosing.diagnosis import Diagnosis
from ..reading.sessionlog import SessionLog
from .jsonstream import Items, dump, json_pieces
from .report import created_iso, snippet
from .timing_text import timing_json

SCHEMA = "dsh-tui/check/1"

# The JSON's human-facing strings (prose built around log text) are sanitised like the text format;
# the raw values (callId, name, header, paths...) stay exact, and json_text escapes what a terminal
# would act on.
_HUMAN_KEYS = ("message", "advice", "verdict_message")


def _human(d: dict) -> dict:
    for key in _HUMAN_KEYS:
        if isinstance(d.get(key), str):
            d[key] = one_line(d[key], None)
    return d


def _human_lineage(d: dict) -> dict:
    for e in ([d["parent"]] if d.get("parent") else []) + d.get("children", []):
        _human(e)
    return d


def json_text(obj: Any) -> str:
    """``obj`` as indented JSON text that is always valid UTF-8 and safe to print to a terminal.

    C0/C1 controls, DEL, bidi controls, U+2028/2029, noncharacters and lone surrogates (a lenient
    parse keeps ``\\ud83d`` as it was written) are ``\\uXXXX`` escapes inside their strings: the
    JSON means exactly what the log held, and no byte of it is a terminal control. `json_pieces`
    writes the same text a piece at a time.
    """
    return dump(obj)


def check_json(log: SessionLog, diag: Diagnosis, lineage=None, *, lazy: bool = False,
               raw_snippet: bool = False, refused: bool = False) -> dict[str, Any]:
    """The `check --format json` object (``json_text`` prints it). ``lazy``: its long lists (findings,
    turn ends, per-turn usage and timing) as `jsonstream.Items`, made as `json_pieces` writes them.
    ``snippet`` is the field people paste: masked as the markdown's is, raw only on request.
    ``refused``: a log dsh would not load, read without --lenient: every key of the contract (what
    the decode saw), no findings, verdict or snippet (nothing is judged past a refusal)."""
    raw, r = log.raw, log.res
    many = Items if lazy else list
    from ..sessions.lineage import lineage_json
    from .findingcap import counts_by_kind, split_by_kind
    listed, dropped = split_by_kind(diag.findings)
    return {
        "lineage": _human_lineage(lineage_json(lineage)) if lineage is not None else None,
        "schema": SCHEMA,
        "file": str(log.path),
        "encoding": raw.encoding,
        "frames": raw.frames,
        "accepted": log.accepted,
        "rejection": _human(log.rejection.as_dict()) if log.rejection else None,
        "verified": log.verified,
        "whole": log.whole,
        "header": log.header.fields(),
        "created_at_iso": created_iso(log),
        "delegated": log.header.delegated,
        "forked": log.header.forked,
        "effective_agent_preset": diag.effective_preset,
        "events": len(log),
        "records": log.records,
        "projected": r.projected,
        "torn_tail": raw.torn.as_dict() if raw.torn else None,
        "corruption": [_human(c.as_dict()) for c in raw.corruption + r.corruption],
        "corruption_dropped": r.corruption_dropped,
        "unchecked_frames": raw.unchecked_frames,
        "seq": {"contiguous": not r.gaps and not r.projected, "verifiable": not r.projected,
                "gaps": [g.as_dict() for g in r.gaps], "gaps_dropped": r.gaps_dropped},
        "unknown_types": [u.as_dict() for u in r.unknown.values()],
        "legacy_shapes": dict(r.legacy),
        "envelope_issues": r.envelope_issues,
        "lenient_json_records": r.lenient_records,
        "findings": [] if refused else many(_human(f.as_dict()) for f in listed),
        "findings_by_kind": counts_by_kind(diag.findings),
        "findings_dropped": dropped,  # past MAX_LISTED of a kind: counted, with their seq range
        "verdict": _human(diag.verdict.as_dict()) if diag.verdict and not refused else None,
        "open_turn": diag.open_turn,
        "repair_closers": diag.closers,
        "resume": diag.resume,  # null, or what dsh's repair cuts away on resume (diagnosing/resume.py)
        "turn_ends": many({"turn": t, "reason": k} for t, k in diag.turn_ends),
        "runs": diag.runs,
        "pairs": {"tool": len(diag.pairing.tools), "command": len(diag.pairing.commands),
                  "approval": len(diag.pairing.approvals)},
        "usage": diag.usage.as_dict(many),
        "timing": timing_json(log, diag.timing, many),
        "snippet": None if refused else snippet(log, diag, mask=not raw_snippet),
        "dsh_tui_version": __version__,
        **_context_extra(log, diag),
    }


def _context_extra(log: SessionLog, diag: Diagnosis) -> dict[str, Any]:
    """`context`, `requests` and `files` (model/context/export.py)."""
    from ..context.export import check_json_extra, insight
    return check_json_extra(insight(log), diag)


def write_check_json(write, log: SessionLog, diag: Diagnosis, lineage=None, *, raw_snippet: bool = False,
                     refused: bool = False) -> None:
    """`check --format json`: `json_text` of `check_json` and a newline, passed to ``write`` a piece at
    a time (the long lists are never held whole, as a tree or as text)."""
    for piece in json_pieces(check_json(log, diag, lineage, lazy=True, raw_snippet=raw_snippet, refused=refused)):
        write(piece)
    write("\n")
