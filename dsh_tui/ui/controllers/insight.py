"""InsightController: the context (C), request header (I), files (D) and JSON tree (J) views of the
session shown. Each view reads what it needs in its own worker from one `Insight` per log and length
(model/context/export.py: a live log that grew gets a new one); Enter in a view jumps to an event."""

from __future__ import annotations

from ...model.context.export import Insight, insight
from .ports import InsightPort


class InsightController:
    port: InsightPort  # what it may reach of the explorer (controllers/ports.py)

    def __init__(self, port) -> None:
        self.port = port

    def insight(self) -> Insight | None:
        """The session's `Insight` (one per log and length: the copy keys' markdown report reads it too)."""
        log = self.port.log_
        return insight(log) if log is not None else None

    def _title(self) -> str:
        return self.port.path.name if self.port.path is not None else ""

    def context(self) -> None:
        ins = self.insight()
        if ins is not None:
            from ..screens.context import ContextScreen
            self.port.push_screen(ContextScreen(ins, self.port.current_index, self._title()), self.port.jump_to)

    def requests(self) -> None:
        ins = self.insight()
        if ins is not None:
            from ..screens.requests import RequestsScreen
            self.port.push_screen(RequestsScreen(ins, self.port.current_index, self._title(), copy=self.port.copy_request),
                                  self.port.jump_to)

    def files(self) -> None:
        ins = self.insight()
        if ins is not None:
            from ..screens.files import FilesScreen
            self.port.push_screen(FilesScreen(ins, self._title()), self.port.jump_to)

    def json_tree(self) -> None:
        port = self.port
        cur = port.current_index
        if port.log_ is None or cur is None:
            return
        from ..screens.jsontree import JsonTreeScreen
        ev = port.log_.event(cur)
        port.push_screen(JsonTreeScreen(ev.event, f"{ev.type} seq {ev.seq:,} as a JSON tree", copy=port.copy_request))
