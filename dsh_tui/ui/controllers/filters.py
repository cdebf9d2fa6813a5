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
from .ports import FilterPort


class FilterReady(Message):
    def __init__(self, key: str, label: str, indices: Any, focus_index: int | None) -> None:
        super().__init__()
        self.key, self.label, self.indices, self.focus_index = key, label, indices, focus_index


class FilterController(Controller):
    port: FilterPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("filter",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self.base = RowSource(0)  # the picked filter's rows, before the chips narrow them

    def reset(self) -> None:
        super().reset()
        self.base = RowSource(0)

    def drop(self) -> None:
        """Every event (a jump to one the filter hides): the filter is dropped."""
        self.base = RowSource(len(self.port.log_))

    def pick(self) -> None:
        port = self.port
        if port.log_ is None:
            return
        specs = filter_specs(port.log_, port.diag)

        def done(key: str | None) -> None:
            if key:
                label = next((s.label for s in specs if s.key == key), key)
                self.apply(key, label, port.current_index)
        port.push_screen(FilterScreen(specs, self.base.key), done)

    def apply(self, key: str, label: str, focus: int | None) -> None:
        port = self.port
        self.run(partial(self._build, port.log_, port.diag, key, label, focus), "filter", exclusive=True)

    def _build(self, log, diag, key: str, label: str, focus: int | None) -> None:  # in the worker's thread
        self.port.post_message(FilterReady(key, label, build_filter(log, diag, key), focus))

    def ready(self, message: FilterReady) -> None:
        port = self.port
        if port.log_ is None:
            return  # another session is being opened
        self.base = RowSource(len(port.log_), message.indices, message.key, message.label)
        port.show_rows(message.focus_index)

    def clear(self) -> None:
        port = self.port
        if port.log_ is not None and self.base.filtered:
            self.base = RowSource(len(port.log_))
            port.show_rows(port.current_index)

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)
