"""ViewScreen: what every full-screen view over the explorer has (timing, context, request headers,
files touched, the JSON tree).

The explorer's keys belong to its screen, so they do not reach through a view on top of it; `?` and
F1 still open the explorer's help there (every view's keys are in it), from each view's own binding
in ui/actions.py.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import Screen

from ..keydocs import explorer_help
from .help import HelpScreen

ResultType = TypeVar("ResultType")


class ViewScreen(Screen[ResultType]):
    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(explorer_help(self.app.current_keymap())))
