"""FilesScreen (D): every file the run read, wrote, edited or deleted, with its operation counts; Enter
on a file opens it (its operations in order, a write's or an edit's hunks under it), Enter on an
operation jumps to its event. Read in a worker: the view opens at once and fills in."""

from __future__ import annotations

from textual import work

from ...model.presenting.insight_rows import file_rows
from .view import RowsView
from ..keys import FILES_BINDINGS
from ..widgets.textrows import TextRows


class FilesScreen(RowsView):
    BINDINGS = FILES_BINDINGS
    SCOPES = ("files",)
    READING = "reading the files…"

    def __init__(self, insight, title: str) -> None:
        super().__init__()
        self.insight, self.title_text = insight, title
        self.opened: set[str] = set()

    def head(self) -> str:
        return f"files touched · {self.title_text}"

    @work(thread=True, exclusive=True, group="files-view")
    def fill(self) -> None:
        fs = self.insight.files
        self.app.call_from_thread(self._show, fs)

    def _show(self, fs, cursor: int | None = None) -> None:
        self.query_one(TextRows).set_rows(file_rows(fs, self.opened), cursor)

    def action_enter(self) -> None:
        rows = self.query_one(TextRows)
        target = rows.target
        if isinstance(target, tuple):
            path = target[1]
            self.opened ^= {path}
            self._show(self.insight.files, rows.cursor)
        elif isinstance(target, int):
            self.dismiss(target)
