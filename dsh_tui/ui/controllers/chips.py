"""ChipsController: stacked include/exclude filter chips (lnav's filters) on text, type and tool.

``+`` and ``-`` open the docked prompt for an include or an exclude chip (``text``, ``type:GLOB``,
``tool:GLOB``: model/presenting/filterstack.py); ``x`` opens the chips window (space toggles a chip,
delete removes it). The events the chips leave are computed in a worker (group "chips"; a text chip
is a whole-log search, `find_all`), never on the UI thread. They narrow what the ``f`` filter shows:
the rows are the filter's events that the chips leave (views.narrowed). The chips bar above the list
(widgets/chips.py) shows the chips, the marks and how many events are in view.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.message import Message
from textual.worker import WorkerState, get_current_worker

from ...model.presenting.filterstack import MAX_CHIPS, Chip, apply_chips, describe, parse_chip
from ...model.reading.search import find_all
from ...model.reading.source import Cancelled
from ...safety import one_line
from ..views import narrowed
from .base import Controller
from .ports import ChipsPort


class ChipsReady(Message):
    def __init__(self, version: int, indices: Any, focus: int | None, log: Any) -> None:
        super().__init__()
        self.version, self.indices, self.focus, self.log = version, indices, focus, log


class ChipsController(Controller):
    port: ChipsPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("chips",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self.chips: list[Chip] = []
        self.indices = None  # the events the enabled chips leave (None: every event)
        self.version = 0  # bumped on each change: a late result of an older stack is dropped

    def reset(self) -> None:
        super().reset()
        self.chips, self.indices = [], None
        self.version += 1
        self.show_bar()

    # -- keys --------------------------------------------------------------------------------
    def ask(self, include: bool) -> None:
        if self.port.log_ is None:
            return
        sign = "+" if include else "-"
        what = "show only" if include else "hide"
        self.port.ask("chip", sign, partial(self.add_typed, sign),
                      placeholder=f"{what}: text, type:GLOB or tool:GLOB (x toggles and removes)")

    def add_typed(self, sign: str, value: str | None) -> None:
        if not value:
            return
        try:
            chip = parse_chip(value if value[:1] in "+-" else sign + value)  # "+x" typed at "-" is an include
        except ValueError as exc:
            self.port.notify(one_line(str(exc), 200), severity="warning", markup=False)
            return
        if len(self.chips) >= MAX_CHIPS:
            self.port.notify(f"at most {MAX_CHIPS} filters: x removes one", severity="warning", markup=False)
            return
        self.set_chips([*self.chips, chip])

    def pick(self) -> None:
        """x: the chips window (space toggles, delete removes)."""
        port = self.port
        if port.log_ is None:
            return
        if not self.chips:
            port.notify("no filters: + adds one that shows only, - one that hides", markup=False)
            return
        from ..screens.chips import ChipsScreen

        def done(chips: list[Chip] | None) -> None:
            if chips is not None and chips != self.chips:
                self.set_chips(chips)
        port.push_screen(ChipsScreen(self.chips), done)

    # -- the stack -----------------------------------------------------------------------------
    def set_chips(self, chips: list[Chip], focus: int | None = None) -> None:
        """Make ``chips`` the stack and compute the events it leaves (in a worker)."""
        port = self.port
        self.chips = list(chips)[:MAX_CHIPS]
        self.version += 1
        self.show_bar()
        if port.log_ is None:
            return
        if not any(c.on for c in self.chips):
            self.indices = None
            self.cancel()
            self.show_rows(port.current_index if focus is None else focus)
            return
        focus = port.current_index if focus is None else focus
        self.run(partial(self._build, port.log_, port.diag, self.chips, self.version, focus), "chips", exclusive=True)

    def _build(self, log, diag, chips, version: int, focus) -> None:  # in the worker's thread
        cancel = get_current_worker().cancelled_event
        try:
            indices = apply_chips(log, diag, chips, lambda needle: find_all(log, needle, cancel=cancel).indices)
        except Cancelled:
            return
        self.port.post_message(ChipsReady(version, indices, focus, log))

    def ready(self, message: ChipsReady) -> None:
        port = self.port
        if message.version != self.version or message.log is not port.log_ or port.log_ is None:
            return  # an older stack, or another log
        self.indices = message.indices
        self.show_rows(message.focus)

    def show_rows(self, focus: int | None) -> None:
        """The list shows the ``f`` filter's events narrowed by the chips."""
        port = self.port
        if port.log_ is None:
            return
        port.events.set_source(narrowed(len(port.log_), port.filter_base, self.indices, describe(self.chips)), focus)
        port.set_events_title()
        self.show_bar()

    def show_all(self, index: int | None) -> None:
        """Every event (a jump to an event the filter or the chips hide; the screen drops the filter): the chips
        off."""
        self.chips = [c if not c.on else c.toggled() for c in self.chips]
        self.indices = None
        self.version += 1
        self.show_rows(index)

    def show_bar(self) -> None:
        port = self.port
        bar = port.chips_bar()
        if bar is not None:
            bar.show(self.chips, port.mark_count(), port.events.source if port.log_ is not None else None)

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)
