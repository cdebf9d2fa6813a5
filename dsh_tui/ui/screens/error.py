"""ErrorScreen: the log cannot be shown; one sanitised line says why. q exits with code 3."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ...safety import one_line

EXIT_UNREADABLE = 3


class ErrorScreen(Screen[None]):
    BINDINGS = [Binding("q,escape,enter", "leave", "Quit", id="error-quit")]

    def __init__(self, title: str, reason: str, hint: str = "") -> None:
        super().__init__()
        self.title_text, self.reason, self.hint = title, one_line(reason, 600), hint

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box") as box:
            box.border_title = Content(one_line(self.title_text, 60))
            yield Static(Content(self.reason), id="error-reason")
            if self.hint:
                yield Static(Content(one_line(self.hint, 300)), id="error-hint")
            yield Static(Content.assemble(("q", "bold"), " quit (exit code 3)"), id="error-keys")

    def action_leave(self) -> None:
        self.app.exit(return_code=EXIT_UNREADABLE)
