"""One line of the timing table (`Row`) made from a model call, a tool call or a command, and the
table's order by a column (`sort_rows`). The view keeps rows only while it draws them
(presenting/timing_rows.py); `check` makes the slowest few (timing.py's `Timing.slowest`)."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, NamedTuple


class Row(NamedTuple):
    """One line of the timing table: a model call, a tool call or a command (a tuple: cheap to make
    by the ten thousand)."""
    kind: str
    turn: Any
    step: Any
    name: str
    call_id: Any
    index: int
    seq: int
    duration_ms: int | None
    ttft_ms: int | None = None
    decode_ms: int | None = None
    tokens_per_s: float | None = None
    stall_ms: int | None = None
    wait_ms: int | None = None  # approval wait (tool) or retry wait (model)
    missing: str = ""


def call_row(c: Any) -> Row:  # (a timing.ModelCall: this module is below timing.py)
    return Row("model", c.turn, c.step, "model", None, c.index, c.seq, c.duration_ms, c.ttft_ms, c.decode_ms,
               c.tokens_per_s if c.output_tokens is not None else None,
               c.stall_ms if c.first_output is not None else None, c.retry_wait_ms if c.retries else None,
               "; ".join(c.missing) if c.missing else "")


def tool_row(t: Any) -> Row:  # (a ToolTiming)
    return Row("tool", t.turn, t.step, display_name(t.name), t.call_id, t.index, t.seq, t.duration_ms, None, None, None,
               None, t.approval_ms, "; ".join(t.missing) if t.missing else "")


def command_row(m: Any) -> Row:  # (a CommandTiming)
    return Row("command", None, None, display_name(m.name), m.command_id, m.index, m.seq, m.duration_ms, None, None,
               None, None, None, "; ".join(m.missing) if m.missing else "")


def sort_rows(rows: list[Row], column: str = "duration_ms", descending: bool = True) -> list[Row]:
    """``rows`` ordered by ``column`` (a COLUMNS key), ties by position; rows without a value come
    last either way."""
    get = attrgetter(column)
    known = [r for r in rows if get(r) is not None]
    known.sort(key=_INDEX)
    try:
        known.sort(key=get, reverse=descending)  # stable: ties keep the position order
    except TypeError:  # a crafted log's turn or name of mixed JSON types
        known.sort(key=lambda r: _key(get(r)), reverse=descending)
    return known + [r for r in rows if get(r) is None]


_INDEX = attrgetter("index")


def _key(v: Any) -> Any:
    return (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0, str(v))


def display_name(v: Any) -> str:
    """A tool or outcome name as the table and the waterfall show it (the log may hold any JSON)."""
    return v if isinstance(v, str) else "(absent)" if v is None else repr(v)
