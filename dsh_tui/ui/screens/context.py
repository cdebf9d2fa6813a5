"""ContextScreen (C): what the model saw at the event under the cursor, and the context size over the
whole session. Above, a block-character chart of input tokens per model request (▲ marks a request
after a compaction or a prune); left / right pick a bar, Enter on it jumps to that request. Below, the
surface as dsh folds it up to the event: each node current, shadowed (by which compaction or prune)
or log-only, a replacement followed by what it replaced and its summary; Enter jumps to the node's event.
The fold and the requests are read in a worker: the view opens at once and fills in."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from ...model.presenting.insight_rows import bar_width, chart, chart_caption, context_rows
from ...model.reading.gcpause import gc_paused
from ...safety import one_line
from .view import ViewScreen
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


class ContextScreen(ViewScreen[int | None]):
    BINDINGS = CONTEXT_BINDINGS
    DEFAULT_CSS = """
    #context-box { width: 100%; height: 100%; background: $surface; }
    #context-head { height: 1; padding: 0 1; background: $panel; }
    #context-list { padding: 0 1; }
    #context-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, insight, at: int | None, title: str) -> None:
        super().__init__()
        self.insight, self.at, self.title_text = insight, at, title

    def compose(self) -> ComposeResult:
        with Vertical(id="context-box"):
            seq = self.insight.log.seq_of(self.at) if self.at is not None else None
            yield Static(Content(one_line(f"what the model saw at seq {seq if seq is not None else '-'} · "
                                          f"{self.title_text}", 300)), id="context-head")
            yield TokenChart(id="context-chart")
            yield TextRows(id="context-list")
            yield Static(Content.assemble(("tab", "bold"), " chart ⇄ list  ", ("← →", "bold"), " bar  ",
                                          ("enter", "bold"), " jump  ", ("esc", "bold"), " close"), id="context-keys")

    def on_mount(self) -> None:
        rows = self.query_one(TextRows)
        rows.empty_text = "reading the context…"
        rows.focus()
        inline = len(self.insight.surface[0][0]) <= INLINE_NODES
        if inline:  # ~15 ms for the 936k-event log's 26k nodes: shown with the view, no thread hop
            self._show_rows(self._rows())
        self.fill(not inline)

    def _rows(self):
        ins = self.insight
        ctx = ins.context(self.at)
        with gc_paused():
            return context_rows(ctx, ins.log)

    @work(thread=True, exclusive=True, group="context-view")
    def fill(self, rows_too: bool) -> None:
        """The fold of a bigger surface, and the requests for the chart (a pass over the log, the
        first time), off the UI thread."""
        if rows_too:
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

    def action_close(self) -> None:
        self.dismiss(None)
