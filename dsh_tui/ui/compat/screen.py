"""FastScreen: a Screen on which a focus change repaints only what looks different.

Textual's ``Screen.focused`` is a repainting reactive: every focus change
(tab, the docked prompt opening and closing) re-rendered the whole screen,
although the widgets whose look depends on the focus repaint themselves
(``Widget._on_focus``/``_on_blur`` and their ``:focus`` styles). At 160x45 on
the 936k-event log that full frame was 2-8 ms of each ``:`` and Enter.

Its compositor renders only the widgets under a dirty region (compositor.py).
"""

from __future__ import annotations

from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from .compositor import SparseCompositor


class FastScreen(Screen):
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = SparseCompositor()
