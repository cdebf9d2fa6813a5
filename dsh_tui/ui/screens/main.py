"""MainScreen: the explorer's screen; with the fast render, one that repaints little (compat/screen.py)."""

from __future__ import annotations

from ..compat import ScreenBase


class MainScreen(ScreenBase):
    def on_pairs_pane_shown(self, message) -> None:
        for header in self.query("#header"):  # its note of stranded calls shows while the pane is hidden
            header.pairs_shown()
