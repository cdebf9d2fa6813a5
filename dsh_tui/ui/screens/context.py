"""ContextScreen (C): what the model saw at the event under the cursor, and the context size over the
whole session. Above, a block-character chart of input tokens per model request (▲ marks a request
after a compaction or a prune); left / right pick a bar, Enter on it jumps to that request. Below, the
surface as dsh folds it up to the event: each node current, shadowed (by which compaction or prune)
or log-only, a replacement followed by what it replaced and its summary; Enter jumps to the node's event.
The fold and the requests are read in a worker: the view opens at once and fills in."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget

from ...model.presenting.insight_rows import bar_width, chart, chart_caption, context_rows
from ...model.reading.gcpause import gc_paused
from ...safety import one_line
from .view import RowsView
from ..keys import CHART_BINDINGS, CONTEXT_BINDINGS
from ..widgets.textrows import TextRows

CHART_HEIGHT = 5
INLINE_NODES = 100_000  # a surface up to this many nodes is folded as the view opens; a bigger one in the worker


class TokenChart(Widget, can_focus=True):
    BINDINGS = CHART_BINDINGS
    DEFAULT_CSS = """
    TokenChart { height: 7; padding: 0 1; }
    TokenChart:focus { background: $boost; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.reqs: list = []
        self.col = 0
        self.starts: list[int] = []

    def set_requests(self, reqs: list, at_index: int | None) -> None:
        self.reqs = reqs
        _lines, self.starts = chart(reqs, self._width())
        if at_index is not None and self.starts:
            before = [k for k, s in enumerate(self.starts) if reqs[s].index <= at_index]
            self.col = before[-1] if before else 0
        self.refresh()

    def _width(self) -> int:
        return max(1, (self.content_region.width or self.app.size.width - 2))

    def render(self) -> Content:
        if not self.reqs:
            return Content("reading the model requests…" if self.reqs is not None else "")
        lines, self.starts = chart(self.reqs, self._width(), CHART_HEIGHT)
        self.col = min(self.col, len(self.starts) - 1)
        bw = bar_width(len(self.reqs), self._width())
        a, b = self.col * bw, (self.col + 1) * bw
        parts: list = []
        for line in lines:
            parts += [line[:a], (line[a:b], "reverse"), line[b:] + "\n"]
        parts.append(one_line(chart_caption(self.reqs, self.starts, self.col, self._width()), max(20, self._width())))
        return Content.assemble(*parts)

    def on_resize(self) -> None:
        self.refresh()

    def action_bar(self, delta: int) -> None:
        if self.starts:
            self.col = max(0, min(len(self.starts) - 1, self.col + delta))
            self.refresh()

    def action_jump_bar(self) -> None:
        if self.starts:
            self.screen.dismiss(self.reqs[self.starts[self.col]].index)


class ContextScreen(RowsView):
    BINDINGS = CONTEXT_BINDINGS
    SCOPES = ("context",)  # the chart's own keys (← → enter) are in the help
    FOCUS_HINT = (("tab", "bold"), " chart ⇄ list  ")
    READING = "reading the context…"

    def __init__(self, insight, at: int | None, title: str) -> None:
        super().__init__()
        self.insight, self.at, self.title_text = insight, at, title

    def head(self) -> str:
        seq = self.insight.log.seq_of(self.at) if self.at is not None else None
        return f"what the model saw at seq {seq if seq is not None else '-'} · {self.title_text}"

    def above(self) -> ComposeResult:
        yield TokenChart(id="context-chart")

    def on_mount(self) -> None:
        inline = len(self.insight.surface[0][0]) <= INLINE_NODES
        self.rows_too = not inline
        super().on_mount()
        if inline:  # ~15 ms for the 936k-event log's 26k nodes: shown with the view, no thread hop
            self._show_rows(self._rows())

    def _rows(self):
        ins = self.insight
        ctx = ins.context(self.at)
        with gc_paused():
            return context_rows(ctx, ins.log)

    @work(thread=True, exclusive=True, group="context-view")
    def fill(self) -> None:
        """The fold of a bigger surface, and the requests for the chart (a pass over the log, the
        first time), off the UI thread."""
        if self.rows_too:
            self.app.call_from_thread(self._show_rows, self._rows())
        reqs = self.insight.requests
        self.app.call_from_thread(self._show_chart, reqs)

    def _show_rows(self, rows) -> None:
        self.query_one(TextRows).set_rows(rows, rows.row_at_or_before(self.at))

    def _show_chart(self, reqs) -> None:
        self.query_one(TokenChart).set_requests(reqs, self.at)

    def action_jump(self) -> None:
        target = self.query_one(TextRows).target
        if isinstance(target, int):
            self.dismiss(target)
