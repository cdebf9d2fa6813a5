"""TimingTable: the timing view's rows (model calls, tool calls, commands), any column sorted, in a
VirtualList (only the rows on screen are drawn: a big log's tens of thousands of rows open at once)."""

from __future__ import annotations

from rich.segment import Segment
from textual.message import Message

from ...model.diagnosing.timerows import Row
from ...model.presenting.timing_rows import SortOrders
from ...model.presenting.timing_view import COLUMNS, WIDE, columns_for, row_cells
from .vlist import VirtualList

STYLE_CLASS = {"kind": "timing--kind", "dim": "timing--dim", "name": "timing--name", "slow": "timing--slow",
               "num": "timing--num", "missing": "timing--missing", "wait": "timing--wait"}


class TimingTable(VirtualList):
    COMPONENT_CLASSES = set(STYLE_CLASS.values())
    DEFAULT_CSS = """
    TimingTable { height: 1fr; background: $surface; scrollbar-size-vertical: 1; }
    TimingTable > .timing--kind { text-style: bold; }
    TimingTable > .timing--dim { color: $text-muted; }
    TimingTable > .timing--slow { text-style: bold; }
    TimingTable > .timing--missing { color: $warning; text-style: italic; }
    TimingTable > .timing--wait { color: $warning; }
    """

    class Selected(Message):
        """The cursor is on ``row`` (a timing Row)."""

        def __init__(self, row: Row | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, orders: SortOrders, *, stranded: frozenset[int] = frozenset(), id: str | None = None) -> None:
        super().__init__(id=id)
        self.stranded = stranded  # the tool calls without a result (their total reads "no result")
        self.orders = orders  # the table's orders by column (made ahead by the timing worker, or by the view's)
        self.rows = orders.rows  # slowest first; rows are made as they are drawn
        self.sort, self.descending = "duration_ms", True
        self.empty_text = "no model calls, tool calls or commands in this log"

    def row_count(self) -> int:
        return len(self.rows)

    @property
    def row(self) -> Row | None:
        return self.rows[self.cursor] if self.rows and self.cursor < len(self.rows) else None

    def sort_by(self, key: str, descending: bool) -> None:
        """Order the rows by column ``key`` (an order made: `SortOrders.ready`), shown from its top: the
        row the cursor was on would open the new order mid-table, its first rows (what s asked for) unseen."""
        self.sort, self.descending = key, descending
        self.rows = self.orders.rows_by(key, descending)
        self.reset_rows(0)
        self.scroll_to(y=0, animate=False, force=True)
        self.cursor_moved(0)  # the waterfall follows the first row (the cursor may have been there already)

    def sort_keys(self) -> list[str]:
        return [c.key for c in columns_for(self.size.width or 80)]

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        self.post_message(self.Selected(self.row))

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        st = self.style
        return [Segment(text, st(STYLE_CLASS[name]) if name in STYLE_CLASS else None)
                for text, name in row_cells(self.rows[row], width, self.stranded)]


__all__ = ["TimingTable", "COLUMNS", "WIDE"]
