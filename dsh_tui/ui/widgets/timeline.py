"""TimelineList: the merged timeline (model/diagnosing/timeline.py), one row per event of the session
shown or one of its children, each tagged with its session ("main", "↳1 3f2a": depth and short id).

Shown in the events list's place while on (C); its rows are built only when visible, from each
session's own ``row_summary`` (sanitised), and cached. The rows' text scrolls with < and > as the
events list's does.
"""

from __future__ import annotations

from typing import Callable

from rich.segment import Segment
from textual.cache import LRUCache

from ...model.presenting.summary import RowSummary, light_event, row_summary
from .event_list import _type_class
from .shifted import ShiftedText
from .vlist import VirtualList

TAG_W = 7


class TimelineList(ShiftedText, VirtualList):
    COMPONENT_CLASSES = {
        "eventlist--time", "eventlist--tool", "eventlist--message", "eventlist--chunk", "eventlist--turn",
        "eventlist--other", "timeline--main", "timeline--child", "timeline--child-alt",
    }
    DEFAULT_CSS = """
    TimelineList { height: 2fr; border: none; border-top: solid $panel-lighten-2; border-title-color: $text-muted;
                   scrollbar-size-vertical: 1; background: $surface; }
    TimelineList:focus, TimelineList.-prompt-origin { border-top: solid $accent; border-title-color: $text;
                                                     border-title-style: bold; }
    TimelineList > .timeline--main { color: $accent; text-style: bold; }
    TimelineList > .timeline--child { color: $warning; }
    TimelineList > .timeline--child-alt { color: $success; }
    TimelineList > .eventlist--time { color: $text-muted; }
    TimelineList > .eventlist--tool { color: $secondary; text-style: bold; }
    TimelineList > .eventlist--message { color: $primary-lighten-2; }
    TimelineList > .eventlist--chunk { color: $text-muted; }
    TimelineList > .eventlist--turn { color: $accent; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.timeline = None
        self.shift = 0
        self.on_cursor: Callable[[int], None] | None = None  # the controller: the detail pane follows
        self._rows: LRUCache[int, RowSummary] = LRUCache(2048)
        self.empty_text = "merging the timeline…"

    def set_timeline(self, timeline, cursor: int) -> None:
        self.timeline = timeline
        self._rows.clear()
        self.reset_rows(cursor)

    def row_count(self) -> int:
        return len(self.timeline) if self.timeline is not None else 0

    def summary(self, row: int) -> RowSummary:
        s = self._rows.get(row)
        if s is None:
            member, index = self.timeline.row(row)
            s = row_summary(light_event(member.log, index))
            self._rows[row] = s
        return s

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        if self.row_count() and self.on_cursor is not None:
            self.on_cursor(row)

    def row_plain(self, row: int) -> str:
        return "".join(seg.text for seg in self.render_row(row, 200, False))

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        m = self.timeline.session[row]
        member = self.timeline.members[m]
        s = self.summary(row)
        wide = width >= 90
        st = self.style
        tag_style = st("timeline--main" if m == 0 else "timeline--child" if m % 2 else "timeline--child-alt")
        time = s.time_text if wide else s.time_text[:8]
        type_w = 19 if wide else 15
        typ = s.type if len(s.type) <= type_w else s.type[: type_w - 1] + "…"
        text = s.text
        text = self.shifted(text)
        return [
            Segment(f"{member.tag[:TAG_W]:<{TAG_W}} ", tag_style),
            Segment(f"{s.seq:>6} ", st("eventlist--time")),
            Segment(f"{time:<{12 if wide else 8}} ", st("eventlist--time")),
            Segment(f"{typ:<{type_w}}", st(_type_class(s.type))),
            Segment(text, self._base),
        ]
