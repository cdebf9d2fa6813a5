"""TextRows: a list of one-line rows made by the model (model/presenting/insight_rows.py), each with a
style name and the event Enter jumps to. The context, request and files views show theirs in one."""

from __future__ import annotations

from typing import Any

from rich.segment import Segment

from .vlist import VirtualList

STYLES = {"head": "textrows--head", "dim": "textrows--dim", "shadowed": "textrows--shadowed", "mark": "textrows--mark"}


class TextRows(VirtualList):
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | set(STYLES.values())
    DEFAULT_CSS = """
    TextRows > .vlist--cursor { background: $accent 40%; }
    TextRows:focus > .vlist--cursor { background: $accent; color: $text; }
    TextRows > .textrows--head { text-style: bold; }
    TextRows > .textrows--dim { color: $text-muted; }
    TextRows > .textrows--shadowed { color: $error; }
    TextRows > .textrows--mark { color: $success; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[tuple[str, str, Any]] = []

    def set_rows(self, rows: list[tuple[str, str, Any]], cursor: int | None = None) -> None:
        self.rows = rows
        self.reset_rows(cursor if cursor is not None else min(self.cursor, max(0, len(rows) - 1)))

    def row_count(self) -> int:
        return len(self.rows)

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        text, style, _target = self.rows[row]
        return [Segment(text[:max(0, width)], self.style(STYLES[style]) if style in STYLES else None)]

    @property
    def target(self) -> Any:
        return self.rows[self.cursor][2] if 0 <= self.cursor < len(self.rows) else None
