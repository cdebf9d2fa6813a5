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
    BINDINGS = [Binding("q", "leave", "Quit", id="error-quit"),
                Binding("escape,enter", "back_or_leave", "Back / quit", show=False, id="error-back-or-quit"),
                Binding("b", "back", "Back", id="error-back")]

    def __init__(self, title: str, reason: str, hint: str = "") -> None:
        super().__init__()
        self.title_text, self.reason, self.hint = title, one_line(reason, 600), hint

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box") as box:
            box.border_title = Content(one_line(self.title_text, 60))
            yield Static(Content(self.reason), id="error-reason")
            if self.hint:
                yield Static(Content(one_line(self.hint, 300)), id="error-hint")
            keys = [("q", "bold"), " quit (exit code 3)"]
            if self.can_go_back():
                keys += ["   ", ("b esc", "bold"), " back"]
            yield Static(Content.assemble(*keys), id="error-keys")

    def can_go_back(self) -> bool:
        check = getattr(self.app, "can_go_back", None)
        return bool(check and check())

    def action_leave(self) -> None:
        self.app.exit(return_code=EXIT_UNREADABLE)

    def action_back_or_leave(self) -> None:
        if self.can_go_back():
            self.action_back()
        else:
            self.action_leave()

    def action_back(self) -> None:
        """Back to the previous session or the browser (ui/navigation.py), when there is one."""
        if self.can_go_back():
            self.app.pop_screen()
            self.app.call_later(self.app.run_action, "back")
