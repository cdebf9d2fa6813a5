"""FilterController: ``f`` picks a filter (built in a worker, group "filter"), ``F`` clears it."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.message import Message
from textual.worker import WorkerState

from ..screens.filter import FilterScreen
from ..views import RowSource, build_filter, filter_specs
from .base import Controller


class FilterReady(Message):
    def __init__(self, key: str, label: str, indices: Any, focus_index: int | None) -> None:
        super().__init__()
        self.key, self.label, self.indices, self.focus_index = key, label, indices, focus_index


class FilterController(Controller):
    groups = ("filter",)

    def pick(self) -> None:
        app = self.app
        if app.log_ is None:
            return
        specs = filter_specs(app.log_, app.diag)

        def done(key: str | None) -> None:
            if key:
                label = next((s.label for s in specs if s.key == key), key)
                self.apply(key, label, app.current_index)
        app.push_screen(FilterScreen(specs, app.events.source.key), done)

    def apply(self, key: str, label: str, focus: int | None) -> None:
        app = self.app
        self.run(partial(self._build, app.log_, app.diag, key, label, focus), "filter", exclusive=True)

    def _build(self, log, diag, key: str, label: str, focus: int | None) -> None:  # in the worker's thread
        self.app.post_message(FilterReady(key, label, build_filter(log, diag, key), focus))

    def ready(self, message: FilterReady) -> None:
        app = self.app
        if app.log_ is None:
            return  # another session is being opened
        app.events.set_source(RowSource(len(app.log_), message.indices, message.key, message.label),
                              message.focus_index)
        app.set_events_title()

    def clear(self) -> None:
        app = self.app
        if app.log_ is not None and app.events.source.filtered:
            app.events.set_source(RowSource(len(app.log_)), app.current_index)
            app.set_events_title()

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.app.notify_worker_error(event.worker)
