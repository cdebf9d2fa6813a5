"""The rows of the context, request and files views (ui/screens/context.py, requests.py, files.py) and
the block-character chart of input tokens per request. Textual-free: each row is (text, style name,
the event index Enter jumps to or None); every text from the log is put on one line (``one_line``)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from ...safety import one_line
from ..context.files import Files
from ..reading.contextfacts import SHOWN_HUNKS
from ..context.requests import Header, Request
from ..context.surface import Context
from .jsontree import dump

BLOCKS = " ▁▂▃▄▅▆▇█"
Row = tuple[str, str, Any]  # (text, style: "" | "head" | "dim" | "shadowed" | "mark", target)


def bar_width(n: int, width: int) -> int:
    """Columns per bar: a few requests get wide bars (up to 4), many share one column per run."""
    return max(1, min(4, width // max(1, n)))


def _bars(reqs: list[Request], width: int) -> tuple[list[int], list[bool], list[int], int, int]:
    """(each bar's height in tokens, whether a compaction came before its requests, its first request,
    columns per bar, the count the bars start from)."""
    n = len(reqs)
    bw = bar_width(n, width)
    cols = min(n, width // bw)
    starts = [c * n // cols for c in range(cols)]
    ends = starts[1:] + [n]
    # a bar's height: its requests' mean (their largest hid every drop on a long session: each run of
    # a few hundred requests has one near the session's peak)
    means = [sum((r.input_tokens or 0) for r in reqs[a:b]) // (b - a) for a, b in zip(starts, ends)]
    marked = [any(r.compactions for r in reqs[a:b]) for a, b in zip(starts, ends)]
    lo, hi = min(means), max(means)
    base = lo - (hi - lo) // 8 if lo > hi // 2 else 0  # bars all above half the peak: drawn from near their least
    return means, marked, starts, bw, base


def chart(reqs: list[Request], width: int, height: int = 5) -> tuple[list[str], list[int]]:
    """Input tokens per request as ``height`` lines of block characters at most ``width`` columns wide,
    then a line marking (▲) the bars whose requests came after a compaction or a prune. Each bar
    stands for a run of requests (their mean), `bar_width` columns wide, drawn from 0 or, when every
    bar is above half the highest, from a little under the lowest (the caption says from what);
    returned with the first request of each bar."""
    if not reqs or width < 1:
        return [], []
    means, marked, starts, bw, base = _bars(reqs, width)
    top = max(means) - base or 1
    levels = [max(1 if m > base else 0, round((m - base) * height * 8 / top)) for m in means]
    lines = []
    for row in range(height - 1, -1, -1):
        lines.append("".join(BLOCKS[max(0, min(8, lv - row * 8))] * bw for lv in levels))
    lines.append("".join(("▲" if m else " ") + " " * (bw - 1) for m in marked))
    return lines, starts


def chart_caption(reqs: list[Request], col_starts: list[int], col: int, width: int = 0) -> str:
    if not reqs or not col_starts:
        return "no model request in this log"
    col = max(0, min(col, len(col_starts) - 1))
    r = reqs[col_starts[col]]
    tokens = f"{r.input_tokens:,}" if r.input_tokens is not None else "?"
    top = max((x.input_tokens or 0) for x in reqs)
    marks = sum(1 for x in reqs if x.compactions)
    base = _bars(reqs, width)[4] if width else 0
    return (f"request seq {r.seq:,} (turn {one_line(repr(r.turn), 12)}, step {one_line(repr(r.step), 12)}): "
            f"{tokens} input tokens · peak {top:,}" + (f" · bars from {base:,}" if base else "")
            + f" · {len(reqs):,} requests · ▲ {marks} after a compaction or prune")


class ContextRows(Sequence):
    """`context_rows`' rows, each made when read (a 936k-event log's surface is ~26k rows: formatting
    them all took 0.3 s of the view's opening). Row 0 is the summary; then each node, a replacement's
    node followed by what it replaced and its summary."""

    def __init__(self, ctx: Context, log) -> None:
        self.ctx, self.log = ctx, log
        self.reps = {r.seq: r for r in ctx.replacements}
        items: list[tuple] = [("head", None)]
        index_rows: list[int] = []  # each node's row, in node order (their event indices are increasing)
        for n in ctx.nodes:
            index_rows.append(len(items))
            items.append(("node", n))
            r = self.reps.get(n.seq)
            if r is not None:
                items.append(("replaced", n, r))
                if r.summary:
                    items.append(("summary", n, r))
        self.items, self.index_rows = items, index_rows
        self.node_index = [n.index for n in ctx.nodes]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        item = self.items[k]
        kind = item[0]
        if kind == "head":
            ctx = self.ctx
            at = self.log.seq_of(ctx.at) if ctx.at >= 0 else "-"
            return (f"{len(ctx.order):,} current · {sum(1 for n in ctx.nodes if n.state == 'shadowed'):,} shadowed · "
                    f"{len(ctx.replacements):,} replacements up to seq {at}"
                    + (" (folded up to the first 5,000)" if ctx.partial else ""), "head", None)
        n = item[1]
        if kind == "node":
            return _node_row(n, self.reps)
        r = item[2]
        if kind == "replaced":
            what = f"{r.kind} {one_line(r.compaction_id or '', 40)}".rstrip()
            return (f"      ↳ {what} replaced seqs {one_line(', '.join(map(str, r.shadowed)), 200)}", "mark", n.index)
        return (f"      ↳ summary: {one_line(r.summary, 300)}", "mark", n.index)

    def row_at_or_before(self, index: int | None) -> int:
        """The row of the last node at or before event ``index`` (the summary row when none)."""
        if index is None:
            return 0
        k = bisect.bisect_right(self.node_index, index) - 1
        return self.index_rows[k] if k >= 0 else 0


def _node_row(n, reps: dict) -> Row:
    tokens = f" · {n.tokens:,} tokens shadowed" if n.tokens is not None and (n.seq in reps or n.state == "log-only") else ""
    if n.state == "shadowed":
        r = reps.get(n.by)
        by = (f"{r.kind} {one_line(r.compaction_id, 40)}" if r and r.compaction_id else r.kind if r else "replace")
        return (f"  shadowed  seq {n.seq:>7,}  {n.type:<18} by seq {n.by:,} ({by})", "shadowed", n.index)
    if n.state == "log-only":
        return (f"  log-only  seq {n.seq:>7,}  {n.type:<18}{tokens}", "dim", n.index)
    return (f"  current   seq {n.seq:>7,}  {n.type:<18}{tokens}", "", n.index)


def context_rows(ctx: Context, log) -> ContextRows:
    """The surface up to the event: each node with its state, in log order (a shadowed one names what
    replaced it); a replacement's row is followed by the seqs it replaced and its summary."""
    return ContextRows(ctx, log)


def request_rows(hs: list[Header], current: Header | None) -> list[Row]:
    out: list[Row] = []
    if current is not None:
        out.append((f"in force at the cursor: header seq {current.seq:,} ({one_line(current.reason or '?', 20)}): "
                    f"{_tools(current)}", "head", current.index))
    else:
        out.append(("no request header before the cursor", "head", None))
    for h in hs:
        mark = "▶ " if h is current else "  "
        out.append((f"{mark}seq {h.seq:>7,}  {one_line(h.reason or '?', 10):<8} {one_line(h.provider or '?', 30)}/"
                    f"{one_line(h.model or '?', 40)}  {h.tools_total} tools · system "
                    f"{'absent' if h.system_chars is None else f'{h.system_chars:,} chars'}", "", h.index))
        for line in change_lines(h.changes):
            out.append((f"      {line}", "mark", h.index))
    return out


def _tools(h: Header) -> str:
    shown = ", ".join(h.tools[:12])
    more = f" (+{h.tools_total - 12})" if h.tools_total > 12 else ""
    return one_line(shown + more, 300) if h.tools else "no tools offered"


def change_lines(changes: dict) -> list[str]:
    out = []
    if changes.get("tools_added"):
        out.append("+ tools " + one_line(", ".join(changes["tools_added"]), 200))
    if changes.get("tools_removed"):
        out.append("- tools " + one_line(", ".join(changes["tools_removed"]), 200))
    for key, (a, b) in (changes.get("config") or {}).items():
        out.append(f"~ config {one_line(str(key), 40)}: {_json(a)} → {_json(b)}")
    if "adapter_defaults" in changes:
        a, b = changes["adapter_defaults"]
        out.append(f"~ adapter defaults: {_json(a)} → {_json(b)}")
    if "system" in changes:
        a, b = changes["system"]
        out.append(f"~ system prompt: {a if a is not None else 'absent'} → {b if b is not None else 'absent'} chars")
    return out


def _json(v: Any) -> str:
    """A config value as JSON on one line (absent: ``absent``)."""
    return "absent" if v is None else one_line(dump(v), 60)


def file_rows(fs: Files, opened: set[str], *, hunk_lines: int = 6) -> list[Row]:
    """Each path with its operation counts; an opened one with its operations in order and, for a write
    or an edit, its hunks (-old / +new lines, the first few)."""
    items = list(fs.files.values())
    out: list[Row] = [(f"{len(items):,} files · {sum(1 for f in items if f.changed):,} changed"
                       + (f" · {fs.dropped:,} operations past the file limit" if fs.dropped else ""), "head", None)]
    for f in items:
        counts = " ".join(f"{k} {v}" for k, v in f.counts().items())
        sign = "▾" if f.path in opened else "▸"
        out.append((f"{sign} {one_line(f.path, 200)}  ({counts})", "" if f.changed else "dim", ("file", f.path)))
        if f.path not in opened:
            continue
        for o in f.ops[:500]:
            out.append((f"    {o.op:<6} seq {o.seq:>7,}  {one_line(o.tool or '?', 30)}"
                        + (f"  {len(o.diffs)} hunk(s)" if o.diffs else ""), "", o.index))
            for old, new in o.diffs[:SHOWN_HUNKS]:
                lines = [("-" + x) for x in (old or "").split("\n")[:hunk_lines] if old is not None] \
                    + [("+" + x) for x in new.split("\n")[:hunk_lines]]
                out += [(f"        {one_line(x, 200)}", "shadowed" if x.startswith("-") else "mark", o.index) for x in lines]
    return out
