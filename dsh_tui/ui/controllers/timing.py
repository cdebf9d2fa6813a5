"""TimingController: the session's timing made in a worker once the log is shown (group "timing": from
the index cache it is rebuilt from its plain form, and the table's rows are built, ~0.4 s on a 936k-event
log), so the header's activity sparkline appears without holding a key and T opens at once; T shows the
timing view (screens/timing.py), whose Enter jumps to the row's event."""

from __future__ import annotations

from textual.worker import WorkerState

from .base import Controller


def prepare(diag):
    """In the worker: the timing, its table rows and its span, made once and kept on it."""
    timing = diag.timing
    timing.rows()
    timing.span
    return diag, timing


SCREEN_NAME = "timing-view"


class TimingController(Controller):
    groups = ("timing",)

    def __init__(self, app) -> None:
        super().__init__(app)
        self._screen = None  # the session's timing view, kept between openings (its sort and row too)
        self._prepared = None  # the diagnosis the worker was started for (live follow makes new ones)

    def log_shown(self) -> None:
        diag = self._prepared = self.app.diag
        if diag is not None:
            self.run(lambda: prepare(diag), "timing", exclusive=True)

    def worker_changed(self, event) -> None:
        app = self.app
        if event.state == WorkerState.SUCCESS:
            diag, timing = event.worker.result
            if diag is app.diag and app.screen_stack:  # still the session shown
                self.bar().set_timing(timing, app.current_index)
        elif event.state == WorkerState.ERROR:
            app.notify_worker_error(event.worker)

    def bar(self):
        from ..widgets.sparkline import ActivityBar
        return self.app.screen_stack[0].query_one(ActivityBar)

    def reset(self) -> None:
        super().reset()
        self._drop()
        self._prepared = None
        if self.app.screen_stack:
            self.bar().set_timing(None)

    def cursor_moved(self, index: int) -> None:
        app = self.app
        if app.diag is not self._prepared and app.load_finished:
            self.log_shown()  # live follow grew the log: its sparkline from the new timing
        if app.screen_stack:
            self.bar().set_cursor(index)

    def open(self) -> None:
        """T: the timing view over the session shown (its timing made here if the worker has not yet)."""
        app = self.app
        if app.diag is None:
            return
        from ..screens.timing import TimingScreen
        screen = self._screen
        if screen is None or screen.timing is not app.diag.timing:
            self._drop()
            screen = self._screen = TimingScreen(app.diag.timing, app.path.name)
            app.install_screen(screen, SCREEN_NAME)  # kept when closed: opened again at once, as it was left
        app.push_screen(screen, app.jump_to)

    def _drop(self) -> None:
        screen, self._screen = self._screen, None
        if screen is not None and screen not in self.app.screen_stack:
            self.app.uninstall_screen(screen)  # removed with the session it showed
