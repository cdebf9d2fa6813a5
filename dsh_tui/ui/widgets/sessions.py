"""SessionList: the browser's rows (project headings, sessions, nested children) on the line API.

Rows come from ``browse.browser_rows`` and cells from ``browse.row_cells``,
already sanitised; only visible rows become strips, so a root with thousands
of sessions scrolls as fast as a small one.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.widget import Widget

from ...sessions.browse import Row, layout_for, row_cells
from ..messages import NewestWins
from .header import fit
from .vlist import VirtualList


class FitLines(Widget):
    """A few lines of sanitised (text, style) parts, each cut to the width with … (never wrapped)."""

    DEFAULT_CSS = "FitLines { height: auto; }"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[list] = []

    def set_lines(self, lines: list[list]) -> None:
        self._lines = lines
        self.refresh(layout=True)

    def plain(self) -> str:
        return fit(self._lines, 0).plain

    def get_content_height(self, container, viewport, width: int) -> int:
        return sum(1 for line in self._lines if line)  # one row per line, whatever the width

    def render(self) -> Content:
        return fit(self._lines, self.content_region.width)


class SessionHighlighted(NewestWins):
    """The browser cursor moved to ``row``."""

    def __init__(self, row: int) -> None:
        super().__init__()
        self.row = row


class SessionList(VirtualList):
    COMPONENT_CLASSES = {"sessions--group", "sessions--count", "sessions--time", "sessions--ok", "sessions--bad",
                         "sessions--warn", "sessions--dim", "sessions--tree", "sessions--id", "sessions--context"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[Row] = []
        self.empty_text = "listing sessions…"

    def set_rows(self, rows: list[Row], keep=None) -> None:
        """Show ``rows``; keep the cursor on the session ``keep`` when it is still listed as a match,
        else put it on the first matched session (a context ancestor is there to be seen, not opened)."""
        self.rows = rows
        target = None
        if keep is not None:  # the same session, also after a re-list (new entry objects)
            where = (keep.path, keep.member)
            target = next((k for k, r in enumerate(rows) if r.entry is not None and not r.context
                           and (r.entry.path, r.entry.member) == where), None)
        if target is None:
            target = next((k for k, r in enumerate(rows) if self._matched(r)), 0)
        self.reset_rows(target)

    @staticmethod
    def _matched(row: Row) -> bool:
        return row.kind == "session" and not row.context

    def row_count(self) -> int:
        return len(self.rows)

    @property
    def current(self) -> Row | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        self.post_message(SessionHighlighted(row))

    def row_plain(self, row: int, width: int = 200) -> str:
        return "".join(seg.text for seg in self.render_row(row, width, False))

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        r = self.rows[row]
        st = self.style
        if r.kind == "group":
            return [Segment("▸ ", st("sessions--group")), Segment(r.title, st("sessions--group")),
                    Segment(f"  {r.count:,} session{'s' if r.count != 1 else ''}", st("sessions--count"))]
        out = []
        for text, cls in row_cells(r.entry, r.depth, layout_for(width)):
            style = st("sessions--context") if r.context and cls in ("id", "tree") else st(f"sessions--{cls}")
            out.append(Segment(text, style))
        return out

    def select_next_session(self, direction: int, matched: bool = False) -> None:
        """Move to the next session row, skipping headings (and context rows when ``matched``)."""
        k = self.cursor + direction
        while 0 <= k < len(self.rows) and (self.rows[k].kind != "session" or matched and self.rows[k].context):
            k += direction
        if 0 <= k < len(self.rows):
            self.move_to(k)
