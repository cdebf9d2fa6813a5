"""HelpScreen: every key, grouped (rows generated from the bindings: ui/keydocs.py)."""

from __future__ import annotations

from textual.app import ComposeResult
from ..keys import HELP_BINDINGS
from textual.containers import VerticalScroll
from textual.content import Content
from .modal import Modal
from textual.widgets import Static


def help_content(groups: list[tuple[str, list[tuple[str, str]]]]) -> Content:
    parts: list = []
    for title, rows in groups:
        if parts:
            parts.append("\n")
        parts += [(title, "bold $accent"), "\n"]
        for keys, what in rows:
            parts += [(f"  {keys:<15}", "bold"), f"{what}\n"]
    return Content.assemble(*parts)


class HelpScreen(Modal[None]):
    BINDINGS = HELP_BINDINGS

    def __init__(self, groups: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.groups = groups

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "dsh-tui keys"
            box.border_subtitle = "esc closes · ctrl+p: every action"
            yield Static(help_content(self.groups), id="help-text")
