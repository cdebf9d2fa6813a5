"""What the diff explorer shows, as text: each side of each aligned row on one line, and the detail of
a row (the two arguments, results or prompts, read back from the logs in full, as a unified diff).
Every string from a log is sanitised here (`safety`); the UI only lays the text out. Textual-free."""

from __future__ import annotations

import difflib
from typing import Any

from ...safety import clean, one_line
from .compare import DIVERGENCE_KINDS, DiffResult, Row
from .digest import normalized_arguments
from .report import row_text

MARKS = {"same": " ", "shared": "=", "changed": "~", "only_left": "<", "only_right": ">"}
TEXT_CHARS = 20_000  # of one argument or result, in the detail
DIFF_LINES = 400  # of the detail's diff


def _val(value: Any, n: int = 200) -> str:
    return one_line(str(value), n)


def side_line(result: DiffResult, k: int, side: str) -> str:
    """Row ``k``'s text on one side ("" for a gap), on one line, sanitised."""
    return row_text(result, result.rows[k], side, _val)


def row_title(result: DiffResult, k: int) -> str:
    row = result.rows[k]
    if row.state in ("same", "shared"):
        return "shared (inherited through the fork seed)" if row.state == "shared" else "the same on both sides"
    where = {"only_left": "left only", "only_right": "right only"}.get(row.state, "changed")
    return f"{where}: {DIVERGENCE_KINDS.get(row.why or '', row.why)}"


def _event_data(log, index: int | None) -> dict:
    if log is None or index is None:
        return {}
    try:
        ev = log.event(index)
    except Exception:  # noqa: BLE001 - the file changed since it was read: show what is known
        return {}
    d = ev.event.get("data") if isinstance(ev.event, dict) else None
    return d if isinstance(d, dict) else {}


def _pretty_args(value: Any) -> str:
    return normalized_arguments(value, indent=True)


def _blocks(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(b["text"] if isinstance(b, dict) and isinstance(b.get("text"), str) else _pretty_args(b)
                         for b in value)
    return "" if value is None else _pretty_args(value)


def call_texts(log, call) -> tuple[str, str]:
    """(arguments, result) of a call in full (cut at TEXT_CHARS), read back from its log."""
    if call is None:
        return "", ""
    d = _event_data(log, call.index)
    args = d.get("arguments")
    if args is None and isinstance(d.get("message"), dict):
        for b in d["message"].get("content") or ():
            if isinstance(b, dict) and b.get("id") == call.call_id:
                args = b.get("arguments")
    r = _event_data(log, call.result_index)
    msg = r.get("message") if isinstance(r.get("message"), dict) else {}
    content = msg.get("content")
    block = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    result = _blocks(block.get("content")) if r else f"(no result: {call.outcome})"
    if r and call.code:
        result = f"[{call.code}] {result}"
    return _pretty_args("" if args is None else args)[:TEXT_CHARS], result[:TEXT_CHARS]


def unified(a: str, b: str, what: str) -> list[str]:
    """``a`` and ``b`` as a unified diff (the text once when they are the same)."""
    if a == b:
        return [f"{what}: the same on both sides", *a.splitlines()[:DIFF_LINES // 4]]
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), f"left {what}", f"right {what}", lineterm="", n=2))
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"... {len(lines) - DIFF_LINES} more lines"]
    return lines


def detail(result: DiffResult, k: int, left_log=None, right_log=None) -> str:
    """The detail of row ``k``: what differs, both sides' lines, and the diffs of its texts. Sanitised."""
    row: Row = result.rows[k]
    out = [row_title(result, k), ""]
    about: list[str] = []
    if row.kind == "call":
        lc = result.left.calls[row.left] if row.left is not None else None
        rc = result.right.calls[row.right] if row.right is not None else None
        la, lr = call_texts(left_log, lc)
        ra, rr = call_texts(right_log, rc)
        sections = [unified(la, ra, "arguments"), unified(lr, rr, "result")]
        if row.why in ("result", "stopped"):  # what differs first
            sections.reverse()
        out += [*sections[0], "", *sections[1]]
        for c, side in ((lc, "left"), (rc, "right")):
            if c is not None:
                extra = f", {c.retries} retries in its step" if c.retries else ""
                about.append(f"{side}: seq {c.seq}, callId {_val(c.call_id, 120)}, {_val(c.outcome, 60)}, "
                             f"model {_val(c.model, 80)}{extra}")
    else:
        lt = result.left.turns[row.left] if row.left is not None else None
        rt = result.right.turns[row.right] if row.right is not None else None
        out += unified(lt.prompt if lt else "", rt.prompt if rt else "", "prompt")
        for t, side in ((lt, "left"), (rt, "right")):
            if t is not None:
                about.append(f"{side}: turn {_val(t.turn, 20)} seq {t.seq}, {t.steps} steps, {len(t.calls)} calls, "
                             f"{t.retries} retries, models {_val(', '.join(t.models) or '?', 120)}, "
                             f"end {_val(t.end or 'open (no turn/end)', 40)}")
    return clean("\n".join(out + [""] + about))


def headline(result: DiffResult) -> str:
    """One line: the sides and the first divergence."""
    k = result.first
    n = len(result.differences)
    if k is None:
        return "the same calls with the same outcomes"
    row = result.rows[k]
    lt, rt = result.turn_numbers(row)
    ls, rs = result.seqs(row)
    return one_line(f"{n} difference{'s' if n != 1 else ''}; first: {DIVERGENCE_KINDS.get(row.why or '', row.why)} "
                    f"(left turn {lt} seq {ls}, right turn {rt} seq {rs})", 300)
