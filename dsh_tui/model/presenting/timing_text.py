"""The timing in `check`'s outputs: the JSON ``timing`` object, the text's "Slowest" section and
the markdown report's timing of the verdict's turn. Log text (tool names, call ids) goes through
``safety.one_line`` where a person reads it; the JSON keeps values exact (json_text escapes them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Any

from ...safety import one_line
from ..diagnosing.findings import turn_said
from ..diagnosing.timerows import Row, call_row, sort_rows, tool_row
from ..diagnosing.timing import STALL_MS, Timing, TurnTiming
from ..columns.turnlist import TurnList, split_figures, turn_totals, wall
from ..columns.turnparts import SPLIT_KEYS as PART_KEYS
from .timing_view import IMPLAUSIBLE, MAX_SPAN_MS, NO_CLOCK

TOP = 20  # slowest calls and stalls listed in the JSON
TEXT_TOP = 5  # and in the text report
SAYS_SOMETHING_MS = 1000  # below this in all, the text report has no "Slowest" section
SPLIT_KEYS = ("model_ms", "retry_ms", "tool_ms", "approval_ms", "idle_ms")


def _seq(log, index: int | None) -> int | None:
    return None if index is None else log.seq_of(index)


def _row_json(log, r: Row) -> dict[str, Any]:
    out = {"kind": r.kind, "seq": r.seq, "turn": r.turn, "step": r.step, "callId": r.call_id,
           "name": r.name if r.kind != "model" else None, "duration_ms": r.duration_ms}
    if r.kind == "model":
        out.update(ttft_ms=r.ttft_ms, decode_ms=r.decode_ms, tokens_per_s=r.tokens_per_s, stall_ms=r.stall_ms,
                   retry_wait_ms=r.wait_ms)
    else:
        out["approval_wait_ms"] = r.wait_ms
    out["missing"] = r.missing or None
    return out


def _turn_json(t: TurnTiming) -> dict[str, Any]:
    figures = _IN_ORDER(split_figures(t.split))
    return {"turn": t.turn, "seq": t.seq, "reason": t.reason, "open": t.open, "wall_ms": t.wall_ms,
            **dict(zip(SPLIT_KEYS, figures)), "missing": t.missing or None}


_IN_ORDER = itemgetter(*(PART_KEYS.index(k) for k in SPLIT_KEYS))  # a Split's figures in this module's order


def _turns_json(turns: Iterable[TurnTiming]) -> Iterator[dict[str, Any]]:
    """`_turn_json` of each turn, in order. A TurnList's are read from its columns a slice at a time, no
    turn made (each made and read was ~6 us: ~10 ms of the 936k log's `check`)."""
    if not isinstance(turns, TurnList):
        return map(_turn_json, turns)
    col = turns.iter_column
    rows = zip(col("turn"), col("seq"), col("reason"), col("open"), map(wall, col("start"), col("end")),
               map(_IN_ORDER, turns.iter_splits()), col("missing"))  # (the split in SPLIT_KEYS order, as below)
    return ({"turn": t, "seq": seq, "reason": reason, "open": open_, "wall_ms": w, "model_ms": m, "retry_ms": r,
             "tool_ms": tool, "approval_ms": a, "idle_ms": i, "missing": missing or None}
            for t, seq, reason, open_, w, (m, r, tool, a, i), missing in rows)


def timing_json(log, timing: Timing, many=list) -> dict[str, Any]:
    """`check --format json`'s ``timing``: per turn, the slowest calls and stalls, totals, anomaly counts.
    ``many``: what makes the per-turn list (`jsonstream.Items` writes it as it goes)."""
    totals, totals["wall_ms"] = turn_totals(timing.turns, SPLIT_KEYS)  # (from columns: no turn made)
    return {
        "clock": "the log's own event times (epoch ms, 1 ms resolution); durations never estimated",
        "missing": timing.missing,
        "totals": totals,
        "counts": {"turns": len(timing.turns), "model_calls": len(timing.calls), "tool_calls": len(timing.tools),
                   "commands": len(timing.commands)},
        "turns": many(_turns_json(timing.turns)),
        "slowest": [_row_json(log, r) for r in timing.slowest(TOP)],
        "stalls": [{"seq": _seq(log, s.index), "turn": s.turn, "step": s.step, "duration_ms": s.duration_ms}
                   for s in timing.stalls(TOP)],
        "slowest_commands": [_row_json(log, r) for r in timing.slowest(TOP, ("command",))],
        "anomalies": {"stall_threshold_ms": STALL_MS, **timing.anomaly_counts()},
    }


def ms(v: int | None) -> str:
    """A duration for people: ms under 10 s, else seconds (thousands separators as elsewhere)."""
    if v is None:
        return "?"
    if v > MAX_SPAN_MS:
        return NO_CLOCK
    return f"{v:,} ms" if v < 10_000 else f"{v / 1000:,.1f} s"


def _who(r: Row) -> str:
    if r.kind == "model":
        return f"model call turn {r.turn} step {r.step}"
    what = f"{r.kind} {r.name}"
    return what + (f" {r.call_id}" if isinstance(r.call_id, str) else "")


def row_line(r: Row) -> str:
    parts = [f"{ms(r.duration_ms):>10}  seq {r.seq:,}  {_who(r)}"]
    if r.kind == "model":
        extra = [f"TTFT {ms(r.ttft_ms)}" if r.ttft_ms is not None else "",
                 f"decode {ms(r.decode_ms)}" if r.decode_ms is not None else "",
                 f"{r.tokens_per_s:,.0f} tok/s" if r.tokens_per_s is not None else "",
                 f"stall {ms(r.stall_ms)}" if r.stall_ms else "",
                 f"retry wait {ms(r.wait_ms)}" if r.wait_ms else ""]
    else:
        extra = [f"approval wait {ms(r.wait_ms)}" if r.wait_ms else ""]
    extra = [x for x in extra if x]
    return one_line(parts[0] + (f" ({', '.join(extra)})" if extra else ""), 300)


def slowest_lines(log, timing: Timing) -> list[str]:
    """The text report's "Slowest" section body: where the time went, in a few lines; none when it
    would say nothing (turns that took under SAYS_SOMETHING_MS in all and no call stalled: a tiny
    log's 1 ms tool calls and 0 ms stalls are noise, not a finding)."""
    if timing.missing and not timing.slowest(1, ("model", "tool", "command")):
        return [one_line("no timing: " + "; ".join(timing.missing), 300)] if len(log) else []
    out = []
    split, wall = turn_totals(timing.turns, SPLIT_KEYS)
    slowest = timing.slowest(1, ("model", "tool", "command"))
    longest = max(wall or 0, slowest[0].duration_ms or 0 if slowest else 0)
    if longest < SAYS_SOMETHING_MS and not timing.anomalies("stall"):
        return []
    if wall and wall > MAX_SPAN_MS:
        out.append(f"turns {NO_CLOCK}: {IMPLAUSIBLE}")
    elif wall:
        out.append(f"turns {ms(wall)}: " + ", ".join(f"{k[:-3]} {ms(v)} ({v * 100 // wall}%)"
                                                     for k, v in split.items() if v))
    out += [row_line(r) for r in timing.slowest(TEXT_TOP)]
    stalls = timing.stalls(3)
    if stalls and stalls[0].duration_ms:
        out.append("longest stalls: " + ", ".join(f"{ms(s.duration_ms)} at seq {_seq(log, s.index):,}"
                                                  for s in stalls))
    long = len(timing.anomalies("stall"))
    if long:
        out.append(f"{long:,} call(s) stalled over {ms(STALL_MS)} between outputs")
    if timing.missing:
        out.append(one_line("missing: " + "; ".join(timing.missing), 300))
    return out


def turn_markdown(log, timing: Timing, turn: Any, val, md) -> list[str]:
    """The markdown report's timing of the verdict's turn (``val`` masks and cuts a value, ``md``
    is the markdown module): its split and its calls, slowest first."""
    t = timing.turn_of(turn)
    if t is None:
        return []
    out = [f"## Timing of turn {md.text(val(turn_said(turn), 40))}", ""]
    if t.wall_ms is None:
        out += [md.text(val("no wall time: " + "; ".join(t.missing or timing.missing or ["no times"]), 600)), ""]
    else:
        out.append("| wall | " + " | ".join(k[:-3] for k in SPLIT_KEYS) + " |")
        out.append("|---" * (len(SPLIT_KEYS) + 1) + "|")
        out.append(f"| {ms(t.wall_ms)} | " + " | ".join(ms(t.split.get(k)) for k in SPLIT_KEYS) + " |")
        out.append("")
        if t.missing:
            out += [md.text(val("; ".join(t.missing), 600)), ""]
    rows = sort_rows([*(call_row(timing.calls[k]) for k in t.calls), *(tool_row(timing.tools[k]) for k in t.tools)])
    if rows:
        out += ["| call | seq | total | TTFT | decode | stall | wait | missing |", "|---|---|---|---|---|---|---|---|"]
        for r in rows[:12]:
            out.append(f"| {md.cell(val(_who(r), 120))} | {r.seq} | {ms(r.duration_ms)} | "
                       f"{ms(r.ttft_ms) if r.kind == 'model' else ''} | {ms(r.decode_ms) if r.kind == 'model' else ''} | "
                       f"{ms(r.stall_ms) if r.stall_ms else ''} | {ms(r.wait_ms) if r.wait_ms else ''} | "
                       f"{md.cell(val(r.missing, 200)) if r.missing else ''} |")
        if len(rows) > 12:
            out.append(f"\n{len(rows) - 12} more call(s) in this turn (`dsh-tui check --format json`)")
        out.append("")
    return out
