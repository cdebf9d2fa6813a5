"""SavedViewController: marks, filter chips and the cursor's seq kept per log between runs (lnav's sessions).

Saved when the explorer leaves a log (another session opened, back, quit) through sessions/viewstate.py
($XDG_STATE_HOME/dsh-tui/views), restored when the log is shown: the marks and chips at once, the
position unless the log was opened at a seq (``--at``, a permalink, back). A notice says what came back,
the first time in a run. Nothing is written for a log the user did not touch (no marks, no chips, the
cursor where it opened); a failure to save is one notice, never an exception.
"""

from __future__ import annotations

from ...safety import one_line
from ...sessions import viewstate
from ...sessions.targets import split_target
from .base import Controller
from .ports import SavedViewPort


class SavedViewController(Controller):
    port: SavedViewPort  # what it may reach of the explorer (controllers/ports.py)
    def __init__(self, port) -> None:
        super().__init__(port)
        self._opened_at: int | None = None  # the seq the log opened on (saved only if the cursor moved)
        self._said: set[str] = set()  # logs whose restore notice was shown in this run

    def _where(self) -> tuple:
        """(file, ZIP member or None): what the state is kept under."""
        return split_target(self.port.path)

    def restore(self, start: int | None) -> None:
        """The log is shown (at event ``start``): bring back its saved marks, chips and position."""
        port = self.port
        log = port.log_
        self._opened_at = log.seq_of(start) if start is not None else None
        try:
            state = viewstate.load(*self._where())
        except OSError:
            return
        marks = [i for i in (log.index_of_seq(s) for s in state.marks) if i is not None]
        position = log.index_of_seq(state.position) if state.position is not None else None
        port.restore_view(marks, state.chips, position if port.at_seq is None else None)
        moved = position is not None and port.at_seq is None and position != start
        if moved:
            port.jump_to(position)
        said = []
        if marks:
            said.append(f"{len(marks):,} mark{'s' if len(marks) != 1 else ''}")
        if state.chips:
            said.append(f"{len(state.chips)} filter{'s' if len(state.chips) != 1 else ''}")
        if moved:
            said.append(f"position seq {state.position}")
        key = str(port.path)
        if said and key not in self._said:
            self._said.add(key)
            port.notify("restored " + ", ".join(said), markup=False)

    def save(self) -> None:
        """Keep the log's marks, chips and cursor seq (called before the explorer leaves it)."""
        port = self.port
        log = port.log_
        if log is None or not len(log):
            return
        cur = port.current_index
        position = log.seq_of(cur) if cur is not None else None
        marks, chips = port.view_state()
        if not marks and not chips and position == self._opened_at:
            return  # untouched: nothing to remember
        state = viewstate.ViewState(marks, chips, position)
        path, member = self._where()
        error = viewstate.save(path, state, member)
        if error:
            port.notify(one_line(error, 300), severity="warning", markup=False)
