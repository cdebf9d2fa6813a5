"""Modal: a ModalScreen that is dismissed once, and only while it is the screen on top.

Textual's ``Screen.dismiss`` pops whatever screen is on top: a second dismissal of a modal
(Enter twice on an option, q and esc typed together) popped the screen under it, the main
screen itself when nothing was above it (ScreenStackError: the app crashed), or another
modal pushed meanwhile. The key gate (ui/keygate.py) already takes keys one at a time;
this makes a late or repeated dismissal do nothing whatever sends it.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class Modal(ModalScreen[ResultType], Generic[ResultType]):
    _dismissed = False

    def dismiss(self, result: ResultType | None = None):
        if self._dismissed or not self.is_attached or self.app.screen is not self:
            return None  # dismissed already, or not on top: popping would take another screen
        self._dismissed = True
        return super().dismiss(result)
