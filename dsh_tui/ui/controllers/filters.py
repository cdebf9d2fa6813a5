"""FilterController: ``f`` picks a filter (built in a worker, group "filter"), ``F`` clears it.

The filter is the base the filter chips narrow (controllers/chips.py shows the rows of both)."""

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

    def __init__(self, app) -> None:
        super().__init__(app)
        self.base = RowSource(0)  # the picked filter's rows, before the chips narrow them

    def reset(self) -> None:
        super().reset()
        self.base = RowSource(0)

    def pick(self) -> None:
        app = self.app
        if app.log_ is None:
            return
        specs = filter_specs(app.log_, app.diag)

        def done(key: str | None) -> None:
            if key:
                label = next((s.label for s in specs if s.key == key), key)
                self.apply(key, label, app.current_index)
        app.push_screen(FilterScreen(specs, self.base.key), done)

    def apply(self, key: str, label: str, focus: int | None) -> None:
        app = self.app
        self.run(partial(self._build, app.log_, app.diag, key, label, focus), "filter", exclusive=True)

    def _build(self, log, diag, key: str, label: str, focus: int | None) -> None:  # in the worker's thread
        self.app.post_message(FilterReady(key, label, build_filter(log, diag, key), focus))

    def ready(self, message: FilterReady) -> None:
        app = self.app
        if app.log_ is None:
            return  # another session is being opened
        self.base = RowSource(len(app.log_), message.indices, message.key, message.label)
        app.chips.show_rows(message.focus_index)

    def clear(self) -> None:
        app = self.app
        if app.log_ is not None and self.base.filtered:
            self.base = RowSource(len(app.log_))
            app.chips.show_rows(app.current_index)

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.app.notify_worker_error(event.worker)
