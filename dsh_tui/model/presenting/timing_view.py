"""The timing view's text, from the timing model (model/diagnosing/timing.py): table columns fitted to
a width, durations as people read them ("no clock" where the log has no usable time, "no result" for a
tool call that never got one, never 0), a turn's waterfall as block characters scaled to a width with a
time axis, and the activity sparkline.

Textual-free: cells are plain strings with a style name; the UI maps the names to styles. Names and
callIds come from the log: they pass through ``safety.one_line``.
"""

from __future__ import annotations

from typing import NamedTuple

from ...safety import one_line
from ..columns.packed import columns
from ..diagnosing.timerows import Row
from ..diagnosing.timing import ANOMALY_KINDS, Timing, TurnTiming

NO_CLOCK = "no clock"
# A span longer than a year is a clock gone wrong (a time in seconds beside times in ms, a crafted field),
# not a duration: it reads "no clock", never "278275000h".
MAX_SPAN_MS = 366 * 24 * 3_600_000
IMPLAUSIBLE = "its times are more than a year apart"
NO_RESULT = "no result"  # a tool call the log has no tool/result for: no duration, clock or not

# The anomaly kinds e / E step through (the picker's names, the events pane's short ones): the model's,
# and "any", every kind merged.
ANY = "any"
KIND_NAMES = {ANY: "any anomaly", **ANOMALY_KINDS}
SHORT = {ANY: "anomaly", "error": "error", "retry": "retry", "turn-end": "turn end", "unpaired": "unpaired",
         "approval": "approval", "compaction": "compaction", "stall": "stall"}
# Loops and churn (model/context/loops.py): read when first asked for, not part of "any".
LOOP = "loop"
KIND_NAMES[LOOP] = "loop or churn: a repeated call, a retry after the same error, a file rewritten"
SHORT[LOOP] = "loop"


class Column(NamedTuple):
    key: str  # the Row attribute it sorts by
    title: str
    width: int  # 0: takes the room left
    right: bool = True


# Slowest first by ``duration_ms`` by default; any of these sorts (s / S in the view).
# Widths: a duration's longest text is "no clock", the total's "no result"; a wait is blank, never
# "no clock", without one, and "999m59s" at most.
COLUMNS = (
    Column("kind", "kind", 5, False), Column("turn", "turn/st", 7), Column("name", "name / callId", 0, False),
    Column("duration_ms", "total", 9), Column("ttft_ms", "TTFT", 8), Column("decode_ms", "decode", 8),
    Column("tokens_per_s", "tok/s", 6), Column("wait_ms", "wait", 7), Column("seq", "seq", 7),
)
WIDE = (Column("stall_ms", "stall", 8),)  # shown from 120 columns on
NAME_MIN = 10


def columns_for(width: int) -> tuple[Column, ...]:
    return COLUMNS[:-1] + WIDE + COLUMNS[-1:] if width >= 120 else COLUMNS


def duration(ms: int | None) -> str:
    """``843 ms``, ``1.25 s``, ``12.3 s``, ``4m05s``; None (no usable clock) or a span past MAX_SPAN_MS
    reads ``no clock``."""
    if ms is None or ms > MAX_SPAN_MS:
        return NO_CLOCK
    if ms < 1000:
        return f"{ms} ms"
    if ms < 10_000:
        return f"{ms / 1000:.2f} s"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    m, s = divmod(ms // 1000, 60)
    return f"{m}m{s:02d}s" if m < 1000 else f"{ms // 3_600_000}h"


def stranded_calls(timing: Timing) -> frozenset[int]:
    """The event indexes of the tool calls without a tool/result (never finished, or called again by
    their callId first): their total reads "no result", where a result without a time reads "no clock"."""
    indexes, ends = columns(timing.tools, "index", "end_index")
    return frozenset(i for i, end in zip(indexes, ends) if end is None)


def _cell(row: Row, key: str, stranded: frozenset[int]) -> tuple[str, str]:
    """(text, style name) of one cell; a column that does not apply to the row's kind is blank."""
    model = row.kind == "model"
    if key == "kind":
        return ("cmd" if row.kind == "command" else row.kind), "kind"
    if key == "turn":
        return ("" if row.turn is None else one_line(f"{row.turn}/{row.step}", 7)), "dim"
    if key == "name":
        if row.call_id is None:
            return one_line(str(row.name), 200), "name"
        return f"{one_line(str(row.name), 100)} {one_line(str(row.call_id), 100)}", "name"
    if key == "seq":
        return f"{row.seq:,}", "dim"
    if key in ("ttft_ms", "decode_ms", "stall_ms") and not model:
        return "", "dim"
    if key == "tokens_per_s":
        return ("" if row.tokens_per_s is None else f"{row.tokens_per_s:.0f}"), "dim"
    if key == "wait_ms":
        return ("" if row.wait_ms is None else duration(row.wait_ms)), "wait"
    value = getattr(row, key)
    if value is None:
        stuck = key == "duration_ms" and row.kind == "tool" and row.index in stranded
        return (NO_RESULT if stuck else NO_CLOCK), "missing"
    return duration(value), ("slow" if key == "duration_ms" else "num")


def fit_columns(width: int) -> list[tuple[Column, int]]:
    """The columns shown at ``width`` with their widths (the name takes the room left, at least NAME_MIN)."""
    cols = columns_for(width)
    fixed = sum(c.width for c in cols if c.width) + len(cols) - 1
    return [(c, c.width or max(NAME_MIN, width - fixed)) for c in cols]


def _pad(text: str, w: int, right: bool) -> str:
    if len(text) > w:
        text = text[:max(0, w - 1)] + "…"
    return text.rjust(w) if right else text.ljust(w)


def header_cells(width: int, sort: str, descending: bool) -> list[tuple[str, str]]:
    """The column titles, the sorted one marked ▼ (descending) or ▲."""
    out = []
    for k, (col, w) in enumerate(fit_columns(width)):
        title = col.title + (("▼" if descending else "▲") if col.key == sort else "")
        out.append((("" if not k else " ") + _pad(title, w, col.right), "sorted" if col.key == sort else "title"))
    return out


def fit_who(name: str, call_id: str, w: int) -> str:
    """``name callId`` in ``w`` columns. CallIds share their start ("call_0…" for every one) and differ
    at the end, so one too long keeps its end: ``bash …05_deploy``; the name gets at most a third."""
    full = f"{name} {call_id}"
    if len(full) <= w:
        return full
    if len(name) > w // 3:
        name = name[:max(1, w // 3 - 1)] + "…"
    room = w - len(name) - 2  # the space and the …
    return f"{name} …{call_id[-room:]}" if room >= 3 else full


def row_cells(row: Row, width: int, stranded: frozenset[int] = frozenset()) -> list[tuple[str, str]]:
    """One table row's cells at ``width``; ``stranded``: its timing's `stranded_calls`."""
    out = []
    for k, (col, w) in enumerate(fit_columns(width)):
        text, style = _cell(row, col.key, stranded)
        if col.key == "name" and row.call_id is not None:
            text = fit_who(one_line(str(row.name), 100), one_line(str(row.call_id), 100), w)
        out.append((("" if not k else " ") + _pad(text, w, col.right), style))
    return out


def sort_title(key: str) -> str:
    return next((c.title for c in COLUMNS + WIDE if c.key == key), key)


# -- the waterfall ---------------------------------------------------------------------------------
LANES = (("ttft", "TTFT"), ("decode", "decoding"), ("tool", "tool"), ("approval", "approval"), ("retry", "retry"))
LABEL_W = 9
EIGHTHS = " ▏▎▍▌▋▊▉█"


def lane_spans(timing: Timing, turn: TurnTiming) -> dict[str, list]:
    """The model's lanes (model, retry, tool, approval) as the view's five: a model call's wait for
    its first token (or a call that never output: all wait) and its decoding apart."""
    out: dict[str, list] = {k: [] for k, _ in LANES}
    for lane in timing.lanes(turn):
        for span in lane.spans:
            out["ttft" if span.kind in ("ttft", "model") else span.kind].append(span)
    return out


def bar(spans: list, wall_ms: int, cells: int, selected: int | None = None) -> list[tuple[str, str]]:
    """One lane: ``cells`` characters over ``wall_ms``, each cell as full as its time is covered
    (eighths from the left; a cell the span starts inside is a right half, ▐); a span too short
    for a cell still shows as ▏. Style names: "span", "selected" (the row's own event), "gap"."""
    if cells <= 0:
        return []
    cover = [0.0] * cells
    starts = [False] * cells
    picked = [False] * cells
    scale = cells / max(1, wall_ms)
    for s in spans:
        a, b = s.start_ms * scale, max(s.end_ms * scale, s.start_ms * scale + 1 / 8)
        for c in range(int(a), min(cells, int(b) + 1)):
            got = min(b, c + 1) - max(a, c)
            if got > 0:
                cover[c] = min(1.0, cover[c] + got)
                starts[c] = starts[c] or (a > c and cover[c] < 1)
                picked[c] = picked[c] or s.index == selected
    out: list[tuple[str, str]] = []
    for c in range(cells):
        f = cover[c]
        if f <= 0:
            ch = " "
        elif f >= 0.875:
            ch = "█"
        elif starts[c]:
            ch = "▐"
        else:
            ch = EIGHTHS[max(1, round(f * 8))]
        style = "selected" if picked[c] else "span" if f > 0 else "gap"
        if out and out[-1][1] == style:
            out[-1] = (out[-1][0] + ch, style)
        else:
            out.append((ch, style))
    return out


def axis(wall_ms: int, cells: int) -> str:
    """``0`` under the first cell, the wall time under the last, the middle's time under the middle."""
    if cells < 12:
        return duration(wall_ms).rjust(cells)[-cells:] if cells > 0 else ""
    left, mid, right = "0", duration(wall_ms // 2), duration(wall_ms)
    line = [" "] * cells
    line[0] = left
    m = cells // 2 - len(mid) // 2
    if m > 1 and m + len(mid) < cells - len(right) - 1:
        line[m:m + len(mid)] = mid
    line[cells - len(right):] = right
    return "".join(line)


def split_text(turn: TurnTiming) -> str:
    """``model 1.20 s · tool 500 ms · approval 300 ms · retry 250 ms · idle 80 ms`` (the parts that are not 0)."""
    names = ("model", "tool", "approval", "retry", "idle")
    return " · ".join(f"{k} {duration(turn.split[k + '_ms'])}" for k in names if turn.split.get(k + "_ms"))


def waterfall_lines(timing: Timing, turn: TurnTiming | None, width: int,
                    selected: int | None = None) -> list[list[tuple[str, str]]]:
    """The waterfall of ``turn`` in ``width`` columns: a title, one line per lane, the time axis.
    Each line is a list of (text, style name); a turn without a usable clock says why."""
    if turn is None:
        return [[("no turn: this row is not inside a turn", "dim")]]
    state = "open" if turn.open else one_line(str(turn.reason), 30)
    head = [(one_line(f"turn {turn.turn}", 20), "title"), (f" · {state}", "dim")]
    wall = turn.wall_ms
    if wall is None or wall > MAX_SPAN_MS:
        why = "; ".join(turn.missing) or (IMPLAUSIBLE if wall else "no usable time")
        return [head + [(f" · {NO_CLOCK}: ", "missing"), (one_line(why, 300), "dim")]]
    head += [(f" · {duration(wall)} wall", "title")]
    parts = split_text(turn)
    if parts:
        head += [(f" · {parts}", "dim")]
    cells = max(1, width - LABEL_W - 1)
    spans = lane_spans(timing, turn)
    lines = [head]
    for key, label in LANES:
        lines.append([(label.ljust(LABEL_W), "label"), ("▕", "dim"), *bar(spans[key], wall, cells - 1, selected)])
    lines.append([(" " * LABEL_W, "dim"), (axis(wall, cells), "dim")])
    return lines


# -- the sparkline ---------------------------------------------------------------------------------
SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(counts: list[int]) -> str:
    """One character per bucket: blank for none, ▁ to █ by the bucket's share of the busiest (log-free:
    the square root keeps quiet stretches visible beside a burst)."""
    top = max(counts, default=0)
    if top <= 0:
        return " " * len(counts)
    root = top ** 0.5
    return "".join(" " if n <= 0 else SPARKS[min(7, int((n ** 0.5) / root * 7.999))] for n in counts)


def session_length(timing: Timing) -> str:
    span = timing.span
    return NO_CLOCK if span is None else duration(span[1] - span[0])

