"""Footer bases: Textual's Footer recomposed only when the keys it shows change, or as it is.

The stock Footer rebuilds all its key widgets on every focus change (a
``bindings_updated_signal``), which costs a layout pass and a repaint even when
the same keys are shown, e.g. when the docked prompt takes and returns focus.
QuietFooter recomposes only when the keys shown change, and not at all while
covered by the prompt (widgets/cmdline.py sets ``covered``); it catches up when
uncovered or shown. StockFooter keeps ``covered`` only as the flag it is told.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class StockFooter(Footer):
    covered = False  # the docked prompt lies over it: the stock footer recomposes regardless


class QuietFooter(Footer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None
        self._covered = False

    @property
    def covered(self) -> bool:
        """The docked prompt lies over it: it skips key changes, and catches up when uncovered."""
        return self._covered

    @covered.setter
    def covered(self, value: bool) -> None:
        self._covered = value
        if not value and self.is_attached:
            self.call_later(self.bindings_changed, self.screen)  # in its own context (compose binds data)

    @staticmethod
    def _signature(screen: Screen) -> tuple:
        palette = screen.app.COMMAND_PALETTE_BINDING
        return tuple((key, b.key, b.action, b.description, b.group, enabled, tooltip)
                     for key, (_node, b, enabled, tooltip) in screen.active_bindings.items()
                     if b.show or key == palette)

    def bindings_changed(self, screen: Screen) -> None:
        if self._bindings_ready and screen is self.screen and self.is_attached and screen.app.app_focus:
            if not self.display or self._covered:
                return  # not seen: catch up when shown or uncovered
            shown = self._signature(screen)
            if shown == self._shown:
                return
            self._shown = shown
        super().bindings_changed(screen)

    def on_show(self) -> None:
        self.bindings_changed(self.screen)
