"""A diff as JSON (schema dsh-tui/diff/1), text for a terminal, or the masked markdown report.

The JSON keeps the log's values exact and escapes what a terminal would act on (presenting's
`dump`, as `check` writes JSON); the text is sanitised (every log string through `safety`); the
markdown masks secrets (presenting/redact.py) and escapes every value for its place, as the bug
report does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..presenting.jsonstream import dump
from .compare import DIVERGENCE_KINDS, DiffResult, Row
from .summary import summary

SCHEMA = "dsh-tui/diff/1"
LIST_ROWS = 50  # rows of each list in the text and markdown reports


def first_divergence(result: DiffResult) -> dict | None:
    k = result.first
    if k is None:
        return None
    row = result.rows[k]
    ls, rs = result.seqs(row)
    lt, rt = result.turn_numbers(row)
    return {"left_seq": ls, "right_seq": rs, "left_turn": lt, "right_turn": rt, "kind": row.why,
            "what": DIVERGENCE_KINDS.get(row.why or "", row.why), "row": k}


def _call_entry(result: DiffResult, row: Row) -> dict:
    a = result.left.calls[row.left] if row.left is not None else None
    b = result.right.calls[row.right] if row.right is not None else None
    first = a or b
    entry = {"left_seq": a.seq if a else None, "right_seq": b.seq if b else None,
             "name": first.name, "callId": first.call_id}
    if a and b and (a.name != b.name or a.call_id != b.call_id):
        entry.update(right_name=b.name, right_callId=b.call_id)
    if row.state == "changed":
        entry["kind"] = row.why
    if row.state == "shared":
        entry["shared"] = True
    return entry


def calls(result: DiffResult) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"same": [], "changed": [], "only_left": [], "only_right": []}
    for row in result.rows:
        if row.kind == "call":
            out["same" if row.state == "shared" else row.state].append(_call_entry(result, row))
    return out


def _side(d) -> dict:
    return {"path": d.label, "session_id": d.session_id, "run": d.run or None, "parentSession": d.parent,
            "seedLength": d.seed_length, "first_index": d.lo, "end_index": d.hi, "verified": d.verified}


def diff_json(result: DiffResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "same": result.first is None,
        "left": _side(result.left),
        "right": _side(result.right),
        "first_divergence": first_divergence(result),
        "calls": calls(result),
        "summary": summary(result),
        "verdicts": {"left": result.left.verdict, "right": result.right.verdict},
        "alignment": {"methods": sorted(result.methods),
                      "note": "prefix/suffix, then exact LCS, difflib's matcher, or a bounded greedy walk"},
    }


def json_text(result: DiffResult) -> str:
    return dump(diff_json(result)) + "\n"


# -- text and markdown ----------------------------------------------------------------------------

def row_text(result: DiffResult, row: Row, side: str, val: Callable[[Any, int], str]) -> str:
    """One side of a row on one line (empty for a gap)."""
    d = result.left if side == "left" else result.right
    at = row.left if side == "left" else row.right
    if at is None:
        return ""
    if row.kind == "call":
        c = d.calls[at]
        retry = f" retries={c.retries}" if c.retries else ""
        return f"seq {c.seq} {val(c.name, 40)} {val(c.args_preview, 60)} -> {val(c.outcome, 40)}{retry}"
    t = d.turns[at]
    if row.kind == "end":
        return f"turn {val(t.turn, 20)} {'open (no turn/end)' if t.end is None else 'end ' + val(t.end, 30)}"
    return f"turn {val(t.turn, 20)} seq {t.seq}: {val(t.prompt, 60)}"


def _where(first: dict, side: str, val) -> str:
    """``turn 3 seq 41``, or ``nothing`` for the side the divergence is missing from (never "None")."""
    turn, seq = first[f"{side}_turn"], first[f"{side}_seq"]
    if turn is None and seq is None:
        return "nothing"
    return " ".join(x for x in (f"turn {val(turn, 20)}" if turn is not None else "",
                                f"seq {seq}" if seq is not None else "") if x)


def _verdict_text(v: dict | None, val) -> str:
    if v is None:
        return "no failure found"
    who = f" callId={val(v.get('callId'), 80)}" if v.get("callId") else ""
    return f"{val(v.get('kind'), 60)} at seq {v.get('seq')}{who}: {val(v.get('message'), 200)}"


def diff_text(result: DiffResult, *, markdown: bool = False) -> str:
    """The report for a terminal (sanitised), or as markdown (masked, escaped)."""
    from ...safety import one_line
    if markdown:
        from ..presenting import markdown as md
        from ..presenting.redact import redact

        def val(v: Any, n: int = 200) -> str:
            return one_line(redact(str(v))[:4000], n)
        esc, code, h1, h2, li = md.text, md.code, "# dsh-tui diff: ", "## ", "- "
    else:
        def val(v: Any, n: int = 200) -> str:
            return one_line(str(v), n)

        def esc(s: str) -> str:
            return s
        code, h1, h2, li = esc, "dsh-tui diff: ", "== ", ""
    j = diff_json(result)
    first = j["first_divergence"]
    out = [f"{h1}{'the runs did the same' if first is None else 'the runs differ'}", ""]
    for side in ("left", "right"):
        s = j[side]
        run = f" ({s['run']})" if s["run"] else ""
        out.append(f"{li}{side}: {code(val(s['path'], 300))} session {code(val(s['session_id'], 120))}{esc(val(run, 80))}"
                   + ("" if s["verified"] else esc(" UNVERIFIED")))
    out.append("")
    out.append(f"{h2}First divergence{' ==' if not markdown else ''}")
    if first is None:
        out.append("none: the same calls with the same outcomes")
    else:
        row = result.rows[first["row"]]
        out.append(esc(f"{first['what']} ({first['kind']}): left {_where(first, 'left', val)}, "
                       f"right {_where(first, 'right', val)}"))
        for side in ("left", "right"):
            out.append(f"{li or '  '}{side}: {esc(row_text(result, row, side, val)) or '(nothing)'}")
    out.append("")
    sm = j["summary"]
    out.append(f"{h2}Summary (left -> right){' ==' if not markdown else ''}")
    if markdown:
        out += ["", "| | left | right | delta |", "|---|---|---|---|"]
    for key in ("turns", "steps", "tool_calls", "errors", "retries", "wall_ms", "model_ms", "tool_ms", "files"):
        a, b, dlt = sm["left"][key], sm["right"][key], sm["delta"][key]
        dtxt = "" if dlt is None else f"{dlt:+d}"
        out.append(f"| {key} | {a} | {b} | {dtxt} |" if markdown else f"  {key:<17} {a!s:>12} {b!s:>12} {dtxt:>10}")
    for key in sorted(sm["left"]["tokens"]):
        a, b = sm["left"]["tokens"][key], sm["right"]["tokens"].get(key, 0)
        out.append(f"| {key} | {a} | {b} | {b - a:+d} |" if markdown else f"  {key:<17} {a!s:>12} {b!s:>12} {b - a:+10d}"
                   )
    tools = sorted(set(sm["left"]["calls_by_tool"]) | set(sm["right"]["calls_by_tool"]))
    for name in tools[:LIST_ROWS]:
        a, b = sm["left"]["calls_by_tool"].get(name, 0), sm["right"]["calls_by_tool"].get(name, 0)
        if markdown:
            out.append(f"| calls {md.cell(val(name, 60))} | {a} | {b} | {b - a:+d} |")
        else:
            out.append(f"  calls {val(name, 40)}: {a} -> {b} ({b - a:+d})")
    out.append("")
    files = sm["files"]
    for key in ("added", "dropped", "changed"):
        if files[key]:
            shown = ", ".join(code(val(p, 120)) for p in files[key][:LIST_ROWS])
            out.append(f"{li}files {key}: {shown}")
    out += ["", f"{h2}Calls{' ==' if not markdown else ''}"]
    cj = j["calls"]
    out.append(esc(f"same {len(cj['same'])}, changed {len(cj['changed'])}, only left {len(cj['only_left'])}, "
                   f"only right {len(cj['only_right'])}"))
    diffs = result.differences
    for k in diffs[:LIST_ROWS]:
        row = result.rows[k]
        lt, rt = row_text(result, row, "left", val), row_text(result, row, "right", val)
        out.append(("- " if markdown else "  ") + esc(f"[{row.why}] {lt or '-'}  |  {rt or '-'}"))
    if len(diffs) > LIST_ROWS:
        out.append(esc(f"... {len(diffs) - LIST_ROWS} more differences (--format json lists every call)"))
    out += ["", f"{h2}Verdicts{' ==' if not markdown else ''}"]
    for side in ("left", "right"):
        out.append(f"{li}{side}: " + esc(_verdict_text(j["verdicts"][side], val)))
    return "\n".join(out) + "\n"
