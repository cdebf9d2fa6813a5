"""MarksController: the user's marks on events (lnav's bookmarks). ``m`` toggles the event under the cursor,
``'`` and ``"`` go to the next and previous mark (wrapping), ``M`` copies the marked events' raw records
(masked, through the one copy path: controllers/copy.py), ctrl+x clears them.

Marks are event indices of the log shown, kept sorted so a jump is a bisect; they are saved as seqs
(sessions/viewstate.py) and the rows show them in the gutter (widgets/event_list.py).
"""

from __future__ import annotations

import bisect

from .base import Controller
from .ports import MarksPort


class MarksController(Controller):
    port: MarksPort  # what it may reach of the explorer (controllers/ports.py)
    def __init__(self, port) -> None:
        super().__init__(port)
        self.marks: list[int] = []  # event indices, sorted, distinct

    def reset(self) -> None:
        super().reset()
        self.marks = []

    def __len__(self) -> int:
        return len(self.marks)

    def set_marks(self, indices) -> None:
        """Marks from saved state (indices of the log shown), replacing these."""
        self.marks = sorted(set(indices))
        self._shown()

    def seqs(self) -> list[int]:
        log = self.port.log_
        return [log.seq_of(i) for i in self.marks] if log is not None else []

    def _shown(self) -> None:
        port = self.port
        port.events.set_user_marks(frozenset(self.marks))
        port.show_chips_bar()  # the bar counts the marks

    # -- keys --------------------------------------------------------------------------------
    def toggle(self) -> None:
        cur = self.port.current_index
        if cur is None:
            return
        k = bisect.bisect_left(self.marks, cur)
        if k < len(self.marks) and self.marks[k] == cur:
            del self.marks[k]
        else:
            self.marks.insert(k, cur)
        self._shown()

    def step(self, direction: int) -> None:
        """The next (previous) mark from the cursor, wrapping around."""
        port = self.port
        if not self.marks:
            if port.log_ is not None:
                port.notify("no marks: m marks the event under the cursor", markup=False)
            return
        cur = port.current_index
        cur = -1 if cur is None else cur
        if direction >= 0:
            k = bisect.bisect_right(self.marks, cur)
            target, wrapped = (self.marks[k], False) if k < len(self.marks) else (self.marks[0], True)
        else:
            k = bisect.bisect_left(self.marks, cur) - 1
            target, wrapped = (self.marks[k], False) if k >= 0 else (self.marks[-1], True)
        port.jump_to(target)
        if wrapped and len(self.marks) > 1:
            port.notify("marks wrapped around", markup=False)

    def clear(self) -> None:
        if self.marks:
            n = len(self.marks)
            self.marks = []
            self._shown()
            self.port.notify(f"cleared {n:,} mark{'s' if n != 1 else ''}", markup=False)

    def copy(self) -> None:
        port = self.port
        if port.log_ is None:
            return
        if not self.marks:
            port.notify("no marks to copy: m marks the event under the cursor", markup=False)
            return
        port.copy_marked(self.marks)
