"""TimingController: the session's timing made in a worker once the log is shown (group "timing": from
the index cache it is rebuilt from its plain form, and the table's orders by each column are made, ~0.4 s
on a 936k-event log), so the header's activity sparkline appears without holding a key and T opens at
once; T shows the timing view (screens/timing.py), whose Enter jumps to the row's event.

Once the worker is done, the view's screen is made, installed and started (compat/premount.py) while
no key is typed: the first T then only pushes it (~100 ms less on the 936k-event log)."""

from __future__ import annotations

import asyncio
import time

from textual.worker import WorkerState

from ...model.presenting.timing_rows import SortOrders
from .base import Controller, SessionChanged
from .ports import TimingPort

QUIET_S = 0.05  # the screen is started this long after the last key at the earliest: it could delay one


def prepare(diag):
    """In the worker: the timing, its table rows and its span, made once and kept on it, and the rows'
    orders by each column (a sort in the view is then a lookup: ~0.2 s here on a 936k-event log); a
    big table's only by the default column (the others are made on first sort: EAGER_ROWS)."""
    timing = diag.timing
    timing.span
    return diag, timing, SortOrders.ahead(timing)


SCREEN_NAME = "timing-view"


class TimingController(Controller):
    port: TimingPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("timing",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self._screen = None  # the session's timing view, kept between openings (its sort and row too)
        self._prepared = None  # the diagnosis the worker was started for (live follow makes new ones)
        self.started = None  # the screen last started ahead of T (compat/premount.py), when done
        self.orders = None  # the rows' orders by column, from the worker (model/presenting/timing_rows.py)

    def session_changed(self, change: SessionChanged) -> None:
        if change.how == "shown":
            self.log_shown()

    def log_shown(self) -> None:
        diag = self._prepared = self.port.diag
        if diag is not None:
            self.run(lambda: prepare(diag), "timing", exclusive=True)

    def worker_changed(self, event) -> None:
        port = self.port
        if event.state == WorkerState.SUCCESS:
            diag, timing, orders = event.worker.result
            if diag is port.diag and port.is_open:  # still the session shown
                self.orders = orders
                if (bar := self.bar()) is not None:
                    bar.set_timing(timing, port.current_index)
                port.set_timer(QUIET_S, lambda: self._prepare(diag))
        elif event.state == WorkerState.ERROR:
            port.notify_worker_error(event.worker)

    def bar(self):
        """The header's activity bar; None while the explorer's screen has none (the app closing
        when a timing worker ends: its widgets are already gone)."""
        return self.port.activity_bar()

    def reset(self) -> None:
        super().reset()
        self._drop()
        self._prepared = self.orders = None
        if (bar := self.bar()) is not None:
            bar.set_timing(None)

    def cursor_moved(self, index: int) -> None:
        port = self.port
        if port.diag is not self._prepared and port.load_finished:
            self.log_shown()  # live follow grew the log: its sparkline from the new timing
        if (bar := self.bar()) is not None:
            bar.set_cursor(index)

    async def _prepare(self, diag) -> None:
        """The view's screen for ``diag``, started ahead of T while no key is typed. A live log's
        growth makes a new timing: its screen replaces the stale one (as T would)."""
        port = self.port
        if diag is not port.diag or not port.is_open or self._screen in port.screen_stack:
            return  # another session's, the app closing, or the view open (a stale one is replaced on T)
        screen = self.screen()
        if screen is not None and screen not in port.screen_stack and await port.premount(screen, self._quiet):
            self.started = screen

    async def _quiet(self) -> None:
        """Returns once no key came for QUIET_S."""
        while (wait := QUIET_S - (time.monotonic() - self.port.last_input)) > 0:
            await asyncio.sleep(wait)

    def screen(self):
        """The session's timing view, made and installed on first use (kept when closed: opened again at
        once, as it was left), made again for a new timing (live follow)."""
        port = self.port
        if port.diag is None:
            return None
        from ..screens.timing import TimingScreen
        screen = self._screen
        if screen is None or screen.timing is not port.diag.timing:
            self._drop()
            screen = self._screen = TimingScreen(port.diag.timing, port.path.name)
            port.install_screen(screen, SCREEN_NAME)
        return screen

    def open(self) -> None:
        """T: the timing view over the session shown (its timing made here if the worker has not yet)."""
        screen = self.screen()
        if screen is not None:
            self.port.push_screen(screen, self.port.jump_to)

    def _drop(self) -> None:
        screen, self._screen = self._screen, None
        self.started = None
        if screen is not None and screen not in self.port.screen_stack:
            self.port.uninstall_screen(screen)  # removed with the session it showed
            if screen.is_running:
                screen.remove()
