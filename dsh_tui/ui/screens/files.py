"""FilesScreen (D): every file the run read, wrote, edited or deleted, with its operation counts; Enter
on a file opens it (its operations in order, a write's or an edit's hunks under it), Enter on an
operation jumps to its event. Read in a worker: the view opens at once and fills in."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ...model.presenting.insight_rows import file_rows
from ...safety import one_line
from .view import ViewScreen
from ..keys import FILES_BINDINGS
from ..widgets.textrows import TextRows


class FilesScreen(ViewScreen[int | None]):
    BINDINGS = FILES_BINDINGS
    DEFAULT_CSS = """
    #files-box { width: 100%; height: 100%; background: $surface; }
    #files-head { height: 1; padding: 0 1; background: $panel; }
    #files-list { padding: 0 1; }
    #files-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, insight, title: str) -> None:
        super().__init__()
        self.insight, self.title_text = insight, title
        self.opened: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical(id="files-box"):
            yield Static(Content(one_line(f"files touched · {self.title_text}", 300)), id="files-head")
            yield TextRows(id="files-list")
            yield Static(Content.assemble(("enter", "bold"), " open a file / jump to an operation  ",
                                          ("esc", "bold"), " close"), id="files-keys")

    def on_mount(self) -> None:
        rows = self.query_one(TextRows)
        rows.empty_text = "reading the files…"
        rows.focus()
        self.fill()

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

    def action_close(self) -> None:
        self.dismiss(None)
