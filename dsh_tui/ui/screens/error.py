"""ErrorScreen: the log cannot be shown; one sanitised line says why. q exits with code 3.

A log dsh refuses (its header or records break dsh's load checks) can still be read: L opens it as
``--lenient`` does, everything marked UNVERIFIED (controllers/loader.py).
"""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ...safety import one_line
from ..keys import ERROR_BINDINGS

EXIT_UNREADABLE = 3
REFUSED_TITLE = "dsh rejects this log"  # the app's title for a refused log (ExplorerApp.show_log): L is offered


class ErrorScreen(Screen[None]):
    BINDINGS = ERROR_BINDINGS

    def __init__(self, title: str, reason: str, hint: str = "", *, refused: bool | None = None,
                 can_go_back: Callable[[], bool] | None = None, reopen_lenient: Callable[[], None] | None = None) -> None:
        """``can_go_back``: whether b has a session or the browser to go back to; ``reopen_lenient``:
        what L does (the explorer's loader). Given by the opener: the screen reaches nothing else."""
        super().__init__()
        self.title_text, self.reason, self.hint = title, one_line(reason, 600), hint
        self.refused = title == REFUSED_TITLE if refused is None else refused  # readable, only refused: L
        self._can_go_back, self._reopen_lenient = can_go_back, reopen_lenient

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box") as box:
            box.border_title = Content(one_line(self.title_text, 60))
            yield Static(Content(self.reason), id="error-reason")
            if self.hint:
                yield Static(Content(one_line(self.hint, 300)), id="error-hint")
            keys = [("q", "bold"), " quit (exit code 3)"]
            if self.refused:
                keys += ["   ", ("L", "bold"), " open it anyway (UNVERIFIED)"]
            if self.can_go_back():
                keys += ["   ", ("b esc", "bold"), " back"]
            yield Static(Content.assemble(*keys), id="error-keys")

    def can_go_back(self) -> bool:
        return bool(self._can_go_back is not None and self._can_go_back())

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "lenient":
            return self.refused
        return super().check_action(action, parameters)

    def action_lenient(self) -> None:
        """Read the log again as --lenient does; the explorer shows it marked UNVERIFIED."""
        if not self.refused or self._reopen_lenient is None or self.app.screen is not self:
            return
        self.app.pop_screen()
        self._reopen_lenient()

    def action_leave(self) -> None:
        self.app.exit(return_code=EXIT_UNREADABLE)

    def action_back_or_leave(self) -> None:
        if self.can_go_back():
            self.action_back()
        else:
            self.action_leave()

    def action_back(self) -> None:
        """Back to the previous session or the browser (controllers/history.py), when there is one."""
        if self.can_go_back():
            self.app.pop_screen()
            self.app.call_later(self.app.run_action, "screen.do('back')")  # on the explorer
