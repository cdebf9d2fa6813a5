"""MainScreen: the explorer's screen, on which a focus change repaints only what looks different.

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

from ..keys import SCREEN_BINDINGS
from .compositor import SparseCompositor


class MainScreen(Screen):
    BINDINGS = SCREEN_BINDINGS  # b/esc when the app's Back is disabled: say there is nowhere to go
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = SparseCompositor()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "try_back":
            can_go_back = getattr(self.app, "can_go_back", None)
            return can_go_back is not None and not can_go_back()
        return super().check_action(action, parameters)

    def action_try_back(self) -> None:
        self.app.action_back()  # with nowhere to go it says so (ui/navigation.py)
