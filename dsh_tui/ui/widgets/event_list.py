"""EventList: every logical event of the log (or of a filter), one row each.

Columns: finding mark, seq, time (UTC), turn/step, type, surface/log badge,
one-line summary. Rows are built only when visible, from
``summary.row_summary`` (already sanitised), and cached.

A count, as in vim: digits typed in the list then ``G`` go to the event with
that seq (``123G``). The pending count is posted (``SeqCountChanged``) for the
app to show in the footer's place; Escape, or any other key, clears it (the
other key then does what it always does). The focus never moves, so typing it
repaints only that line.
"""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.cache import LRUCache

from ...model.presenting.eventmarks import EventMarks
from ...model.presenting.hits import match_spans
from ...model.presenting.summary import RowSummary, light_event, row_summary
from ...safety import one_line
from ..keys import COUNT_BINDINGS
from ..messages import GotoSeqCount, LaterRowsChanged, RowHighlighted, SeqCountChanged
from ..views import RowSource
from .shifted import ShiftedText
from .vlist import VirtualList

# The verdict's mark is no pointer (▶ read as the cursor): the cursor is the row's bar, the verdict a diamond.
MARKS = {"verdict": "◆", "failure": "✗", "warning": "!", "info": "·"}
USER_MARK = "●"  # the user's mark (m): in the gutter when no finding's mark is there; its seq is reversed too
COUNT_KEYS = frozenset({*"0123456789", "G", "escape"})  # keys that keep a pending count
COUNT_DIGITS = 18
RAW_CHARS = 400  # of a raw record shown in its row


def _type_class(t: str) -> str:
    if t.startswith("tool"):
        return "eventlist--tool"
    if t in ("user/message", "assistant/message", "steering/message"):
        return "eventlist--message"
    if t == "assistant/chunk":
        return "eventlist--chunk"
    if t.startswith(("turn/", "step/")):
        return "eventlist--turn"
    return "eventlist--other"


class EventList(ShiftedText, VirtualList):
    BINDINGS = COUNT_BINDINGS
    COMPONENT_CLASSES = {
        "eventlist--seq", "eventlist--time", "eventlist--tool", "eventlist--message", "eventlist--chunk",
        "eventlist--turn", "eventlist--other", "eventlist--surface", "eventlist--log",
        "eventlist--failure", "eventlist--warning", "eventlist--info", "eventlist--verdict", "eventlist--unknown",
        "eventlist--seed", "eventlist--seed-end", "eventlist--match", "eventlist--marked",
    }
    # A search's matches: reverse (and bold) reads under NO_COLOR too.
    DEFAULT_CSS = """
    EventList > .eventlist--match { color: $warning; text-style: bold reverse; }
    EventList > .eventlist--marked { color: $accent; text-style: bold reverse; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.log_ = None
        self.source = RowSource(0)
        self.marks = EventMarks([])  # event index -> verdict | failure | warning | info
        self.unknown: set[str] = set()
        self._rows: LRUCache[int, RowSummary] = LRUCache(4096)
        self._seq_w = 3
        self.empty_text = "reading the log…"
        self.seed_end: int | None = None  # index of the last session/end-seed: rows before it came from the seed
        self.count = ""  # digits typed before G
        self.user_marks: frozenset[int] = frozenset()  # event indices the user marked (controllers/marks.py)
        self.raw = False  # rows show each event's raw record (r) instead of its summary
        self._raw_rows: LRUCache[int, str] = LRUCache(1024)
        self.highlight = None  # the search's pattern (model/presenting/hits.py): its matches styled in the rows
        self.shift = 0  # columns of each row's text scrolled off to the left (< and >); the columns stay
        self._later_shown = 0  # the rows below the view that later_note says

    # -- model -------------------------------------------------------------------------
    def set_log(self, log, diag, source: RowSource, cursor_index: int | None) -> None:
        self.log_ = log
        self._rows.clear()
        self._raw_rows.clear()
        self.marks = EventMarks(diag.findings, diag.verdict.index if diag.verdict is not None else None)
        self.unknown = {one_line(t, 64) for t in log.res.unknown}
        last = log.seq_of(len(log) - 1) if len(log) else 0
        self._seq_w = max(3, len(str(last)))
        self.empty_text = "no events in this log" if not len(log) else "no events match this filter"
        self.set_source(source, cursor_index)

    def clear(self, text: str = "reading the log…") -> None:
        """No log (another session is being opened)."""
        self.log_, self.source, self.marks, self.seed_end = None, RowSource(0), EventMarks([]), None
        self.user_marks, self.highlight = frozenset(), None
        self.shift = 0
        self.set_count("")
        self._rows.clear()
        self._raw_rows.clear()
        self.empty_text = text
        self.reset_rows(0)

    def set_seed_end(self, index: int | None) -> None:
        if index != self.seed_end:
            self.seed_end = index
            self.clear_cache()

    def set_source(self, source: RowSource, cursor_index: int | None) -> None:
        self.source = source
        row = None if cursor_index is None else source.nearest_row(cursor_index)
        self.reset_rows(row if row is not None else 0)

    def row_count(self) -> int:
        return len(self.source) if self.log_ is not None else 0

    @property
    def index(self) -> int | None:
        """Event index under the cursor."""
        if not self.row_count():
            return None
        return self.source.index(min(self.cursor, self.row_count() - 1))

    def show_index(self, index: int, *, center: bool = True) -> bool:
        """Move the cursor to event ``index``; False when the current view hides it."""
        row = self.source.row_of(index)
        if row is None:
            return False
        self.move_to(row, center=center)
        return True

    def set_user_marks(self, marks: frozenset[int]) -> None:
        if marks != self.user_marks:
            self.user_marks = marks
            self.clear_cache()

    def toggle_raw(self) -> None:
        """Pretty (the one-line summary) / raw (the record as written, sanitised to one line)."""
        self.raw = not self.raw
        self._raw_rows.clear()
        self.clear_cache()

    def mode_note(self) -> str:
        notes = ["raw records" if self.raw and self.log_ is not None else "",
                 f"text from col {self.shift + 1} (< >)" if self.shift else ""]
        return " · ".join(n for n in notes if n)

    def raw_text(self, index: int) -> str:
        text = self._raw_rows.get(index)
        if text is None:
            raw = bytes(light_event(self.log_, index).raw[:RAW_CHARS * 4])
            text = one_line(raw.decode("utf-8", "replace"), RAW_CHARS)
            self._raw_rows[index] = text
        return text

    def set_highlight(self, pattern) -> None:
        """Style the matches of ``pattern`` (a compiled regex, None: none) in the rows' text."""
        if pattern != self.highlight:
            self.highlight = pattern
            self.clear_cache()

    def _text_segments(self, text: str, style) -> list[Segment]:
        spans = match_spans(text, self.highlight)
        if not spans:
            return [Segment(text, style)]
        match = style + self.style("eventlist--match")
        out, at = [], 0
        for a, b in spans:
            if a > at:
                out.append(Segment(text[at:a], style))
            out.append(Segment(text[a:b], match))
            at = b
        if at < len(text):
            out.append(Segment(text[at:], style))
        return out

    def summary(self, index: int) -> RowSummary:
        s = self._rows.get(index)
        if s is None:
            s = row_summary(light_event(self.log_, index))
            self._rows[index] = s
        return s

    def row_plain(self, row: int) -> str:
        """The text of a row as shown (for tests and the command palette)."""
        return "".join(seg.text for seg in self.render_row(row, 200, False))

    # -- the count (123G) -----------------------------------------------------------------
    def set_count(self, count: str) -> None:
        if count != self.count:
            self.count = count
            self.post_message(SeqCountChanged(count))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "clear_count":
            return bool(self.count)  # none pending: Escape goes on to the app (Back)
        if action == "count":
            return self.log_ is not None
        return super().check_action(action, parameters)

    def action_count(self, digit: int) -> None:
        if len(self.count) < COUNT_DIGITS:
            self.set_count(self.count + str(digit))

    def action_clear_count(self) -> None:
        self.set_count("")

    def action_last(self) -> None:  # G (and End, which has dropped any count by now: on_key)
        if self.count:
            seq = int(self.count)
            self.count = ""  # GotoSeqCount puts the footer back
            self.post_message(GotoSeqCount(seq))
            return
        super().action_last()

    def on_key(self, event: events.Key) -> None:
        if self.count and event.key not in COUNT_KEYS:
            self.set_count("")  # before the key's own binding runs

    def on_blur(self) -> None:
        self.set_count("")

    def later_changed(self, hidden: int) -> None:
        if hidden != self._later_shown:
            self._later_shown = hidden
            # to its screen itself: posted from a layout pass, the list's own (bubbling) copy was seen lost
            self.screen.post_message(LaterRowsChanged())

    def later_note(self) -> str:
        """ "12 later events below" while the list was opened on a row whose later rows do not all fit."""
        n = self._later_shown
        return f"↓ {n:,} later event{'s' if n != 1 else ''} below" if n and self.log_ is not None else ""

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        if self.row_count():
            self.post_message(RowHighlighted(row, self.source.index(row), jump))

    # -- rendering -------------------------------------------------------------------------
    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        index = self.source.index(row)
        s = self.summary(index)
        wide = width >= 90
        st = self.style
        mark = self.marks.get(index)
        time = s.time_text if wide else s.time_text[:8]
        type_w = 19 if wide else 15
        typ = s.type if len(s.type) <= type_w else s.type[: type_w - 1] + "…"
        badge = ("surf" if s.badge == "surface" else "log ") if wide else ("S" if s.badge == "surface" else "·")
        text_style = st(f"eventlist--{mark}") if mark in ("failure", "verdict") else self._base
        type_style = st("eventlist--unknown") if s.type in self.unknown else st(_type_class(s.type))
        seed = self.seed_end
        marked = index in self.user_marks
        if mark:
            mark_seg = Segment(MARKS.get(mark, " "), st(f"eventlist--{mark}"))
        elif marked:
            mark_seg = Segment(USER_MARK, st("eventlist--marked"))
        elif seed is not None and index <= seed:  # inherited through the seed; ┴ the end-seed itself
            mark_seg = Segment("┴" if index == seed else "┊", st("eventlist--seed-end" if index == seed
                                                                else "eventlist--seed"))
        else:
            mark_seg = Segment(" ", self._base)
        if seed is not None and index == seed:
            type_style = st("eventlist--seed-end")
        return [
            mark_seg,
            *([Segment(f"{s.seq:>{self._seq_w}}", st("eventlist--marked")), Segment(" ", st("eventlist--seq"))]
              if marked else [Segment(f"{s.seq:>{self._seq_w}} ", st("eventlist--seq"))]),
            Segment(f"{time:<{12 if wide else 8}} ", st("eventlist--time")),
            Segment(f"{s.turn_step[:7]:>{7 if wide else 5}} ", st("eventlist--time")),
            Segment(f"{typ:<{type_w}} ", type_style),
            Segment(badge, st("eventlist--surface" if s.badge == "surface" else "eventlist--log")),
            *self._text_segments(self.shifted(self.raw_text(index) if self.raw else s.text), text_style),
        ]

