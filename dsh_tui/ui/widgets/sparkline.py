"""ActivityBar: the header's last row, the activity sparkline: the session's events over its time with
the cursor's moment marked (a reversed ┃). The buckets are counted once per width (Timing.activity); a cursor
move is a bisect (Timing.position) and repaints the row only when the mark changes bucket. Hidden until
the session's timing is made (in a worker: controllers/timing.py), and for a log without a clock."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from ...model.diagnosing.timing import Timing
from ...model.presenting.timing_view import session_length, sparkline

LABEL = "activity "
MIN_CELLS = 8


class ActivityRow:
    def __init__(self) -> None:
        self.timing: Timing | None = None
        self.index: int | None = None
        self._line: tuple[int, str] | None = None  # (cells, sparkline) of the last width drawn

    def set_timing(self, timing: Timing | None) -> None:
        self.timing, self._line = timing, None

    def move(self, index: int | None, width: int) -> bool:
        """The cursor is on event ``index``; True when the mark moves to another bucket (repaint)."""
        before = self.mark(width)
        self.index = index
        return self.mark(width) != before

    def suffix(self) -> str:
        return f" {session_length(self.timing)}" if self.timing is not None else ""

    def cells(self, width: int) -> int:
        return width - len(LABEL) - len(self.suffix())

    def mark(self, width: int) -> int | None:
        t, n = self.timing, self.cells(width)
        if t is None or self.index is None or n < MIN_CELLS:
            return None
        return t.position(self.index, n)

    def parts(self, width: int) -> list:
        """The row as Content parts ([] without a timing, or when the log has no clock)."""
        t = self.timing
        n = self.cells(width)
        if t is None or t.span is None or n < MIN_CELLS:
            return []
        if self._line is None or self._line[0] != n:
            self._line = (n, sparkline(t.activity(n)))
        line = self._line[1]
        at = self.mark(width)
        out: list = [(LABEL, "$text-muted")]
        if at is None:
            out.append((line, "$accent"))
        else:
            # a thin bar reversed: a light cell with a dark line, seen on any bucket (a reversed █ is a blank)
            out += [(line[:at], "$accent"), ("┃", "bold reverse"), (line[at + 1:], "$accent")]
        return out + [(self.suffix(), "$text-muted")]



class ActivityBar(Widget):
    # Shown for a log with a clock, except in a short terminal (the app's "-short" breakpoint, under 20
    # rows: a tmux split), where the events list needs the row more.
    SCOPED_CSS = False  # the rule below looks at the screen's class
    DEFAULT_CSS = """
    ActivityBar { height: 1; padding: 0 1; background: $panel; display: none; }
    ActivityBar.-clock { display: block; }
    .-short ActivityBar.-clock { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.row = ActivityRow()

    def set_timing(self, timing: Timing | None, index: int | None = None) -> None:
        self.row.set_timing(timing)
        self.row.index = index
        self.set_class(timing is not None and timing.span is not None, "-clock")
        self.refresh()

    def set_cursor(self, index: int | None) -> None:
        if self.row.move(index, self.content_region.width) and self.display:
            self.refresh()

    def render(self) -> Content:
        width = self.content_region.width
        return Content.assemble(*self.row.parts(width)).truncate(width, ellipsis=True)

    def plain(self) -> str:
        return self.render().plain
