"""MainScreen: the explorer's screen; with the fast render, one that repaints little (compat/screen.py)."""

from __future__ import annotations

from ..compat import ScreenBase
from ..keys import SCREEN_BINDINGS


class MainScreen(ScreenBase):
    BINDINGS = SCREEN_BINDINGS  # b when the app's Back is disabled: say there is nowhere to go

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "try_back":
            can_go_back = getattr(self.app, "can_go_back", None)
            return can_go_back is not None and not can_go_back()
        return super().check_action(action, parameters)

    def on_pairs_pane_shown(self, message) -> None:
        for header in self.query("#header"):  # its note of stranded calls shows while the pane is hidden
            header.pairs_shown()

    def action_try_back(self) -> None:
        self.app.action_back()  # with nowhere to go it says so (ui/navigation.py)
