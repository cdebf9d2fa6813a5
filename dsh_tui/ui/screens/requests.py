"""RequestsScreen (I): every request header (initial, resume, change) with what changed from the one
before it (tools added or removed, config, adapter defaults, the system prompt's size), the one in
force at the cursor first. Enter opens the header under the cursor in full as a JSON tree, a long system
prompt or tool list folded with its size shown; esc closes."""

from __future__ import annotations

from typing import Callable

from textual import work

from ...model.context.requests import in_force
from ...model.presenting.insight_rows import request_rows
from .view import RowsView
from ..keys import REQUESTS_BINDINGS
from ..widgets.textrows import TextRows


class RequestsScreen(RowsView):
    BINDINGS = REQUESTS_BINDINGS
    SCOPES = ("requests",)
    READING = "reading the request headers…"

    def __init__(self, insight, at: int | None, title: str, *, copy: Callable | None = None) -> None:
        """``copy``: what the JSON tree it opens hands its copies to (the explorer's copy path)."""
        super().__init__()
        self.insight, self.at, self.title_text, self.copy_to = insight, at, title, copy

    def head(self) -> str:
        return f"request headers · {self.title_text}"

    @work(thread=True, exclusive=True, group="requests-view")
    def fill(self) -> None:
        hs = self.insight.headers
        current = in_force(hs, self.at) if self.at is not None else None
        rows = request_rows(hs, current)
        self.app.call_from_thread(self._show, rows, current)

    def _show(self, rows, current) -> None:
        at = next((k for k, r in enumerate(rows) if k and current is not None and r[2] == current.index), 0)
        self.query_one(TextRows).set_rows(rows, at)

    def action_open(self) -> None:
        target = self.query_one(TextRows).target
        if isinstance(target, int):
            from .jsontree import JsonTreeScreen
            log = self.insight.log
            # open down to the header's parts: a long system prompt shows its size, the tools their count
            self.app.push_screen(JsonTreeScreen(log.event(target).event, f"request/header seq {log.seq_of(target):,}",
                                                open_levels=3, copy=self.copy_to))

    def action_jump(self) -> None:
        target = self.query_one(TextRows).target
        if isinstance(target, int):
            self.dismiss(target)
