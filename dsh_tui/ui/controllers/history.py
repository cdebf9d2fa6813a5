"""HistoryController: where back goes. The sessions shown before this one (``Place``s: back restores them
without reading the file again), else the session browser or the fleet view (the app shows them: an
installed screen pushed on top of the explorer, so going back finds its cursor and filter as they were).

Marks (a named place in a session) are to live here too, beside the back stack: ``places`` is the stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...model.sessions.lineage import session_root
from ...sessions.targets import split_target
from .base import Controller
from .ports import HistoryPort


@dataclass
class Place:
    """A session shown in the explorer, kept so back can restore it."""

    path: Path
    log: object
    diag: object
    lineage: object
    index: int | None
    following: bool


class HistoryController(Controller):
    port: HistoryPort  # what it may reach of the explorer (controllers/ports.py)
    def __init__(self, port) -> None:
        super().__init__(port)
        self.places: list[Place] = []  # the back stack, newest last

    def __len__(self) -> int:
        return len(self.places)

    def reset(self) -> None:
        """Opening another session keeps the back stack."""

    def remember(self, place: Place | None) -> None:
        if place is not None:
            self.places.append(place)

    def forget(self) -> None:
        """A session picked in the browser or the fleet view: the stack starts again."""
        self.places.clear()

    # -- back -----------------------------------------------------------------------------------
    def can_go_back(self) -> bool:
        port = self.port
        if self.places or port.has_home():
            return True
        path, member = split_target(port.path)
        return member is None and session_root(path) is not None

    def back(self) -> None:
        """The previous session, else the browser or the fleet view the explorer was opened from, else the
        browser on the session root the log is in."""
        port = self.port
        if self.places:
            port.restore_place(self.places.pop())
            return
        if port.has_home():
            port.go_home()
            return
        path, member = split_target(port.path)
        root = session_root(path) if member is None else None
        if root is None:
            port.notify("nothing to go back to: this log is not in a dsh session root (q quits)", markup=False)
            return
        port.show_browser(root)
