"""The full-screen views over the explorer (timing, context, request headers, files touched, the JSON
tree): `ViewScreen` for all of them, `RowsView` for the three that are a head line, rows and keys.

The explorer's keys belong to its screen, so they do not reach through a view on top of it; `?` and
F1 still open the explorer's help there (every view's keys are in it), from each view's own binding
in ui/actions.py.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ...safety import one_line
from ..keydocs import explorer_help, scope_strip
from ..widgets.textrows import TextRows
from .help import HelpScreen

ResultType = TypeVar("ResultType")


class ViewScreen(Screen[ResultType]):
    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(explorer_help(self.app.current_keymap())))


class RowsView(ViewScreen[int | None]):
    """A head line, what `above` adds, the rows (filled by `fill`, a worker) and the line of the keys
    of ``SCOPES`` (made from their actions, so a remapped key reads as it is). Dismissed with an event
    index to jump to, or None."""

    SCOPES: tuple[str, ...] = ()
    FOCUS_HINT: tuple = ()  # strip parts for keys no action owns (tab between panes: Textual's focus)
    READING = "reading…"  # what the rows say until `fill` has them
    DEFAULT_CSS = """
    RowsView .view-box { width: 100%; height: 100%; background: $surface; }
    RowsView .view-head { height: 1; padding: 0 1; background: $panel; }
    RowsView .view-list { padding: 0 1; }
    RowsView .view-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def head(self) -> str:
        raise NotImplementedError

    def above(self) -> ComposeResult:
        """Widgets between the head and the rows (none by default)."""
        return iter(())

    def fill(self) -> None:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="view-box"):
            yield Static(Content(one_line(self.head(), 300)), classes="view-head")
            yield from self.above()
            yield TextRows(classes="view-list")
            yield Static(Content.assemble(*self.FOCUS_HINT, *scope_strip(self.SCOPES, self.app.current_keymap())),
                         classes="view-keys")

    def on_mount(self) -> None:
        rows = self.query_one(TextRows)
        rows.empty_text = self.READING
        rows.focus()
        self.fill()

    def action_close(self) -> None:
        self.dismiss(None)
