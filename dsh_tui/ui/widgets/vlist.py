"""VirtualList: a Line-API list with a cursor, for any number of rows.

Only visible rows are built (``render_row``), strips are kept in an LRU cache,
component styles are resolved once per restyle (``Pane``), and every key handler does
O(visible rows) work. Subclasses supply ``row_count`` and ``render_row``.

The strip cache survives focus changes and CSS re-application: it is dropped
only when a resolved style it was built with actually changed (checked once
per frame), and only the cursor strips when just the cursor style changed.
So focusing or blurring the list (tab, the docked prompt) rebuilds no rows; while the
docked prompt has the focus the list is not even repainted (``Pane``: compat/fastpane.py).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..keys import LIST_BINDINGS
from .pane import Pane, component_names


class VirtualList(Pane, ScrollView, can_focus=True, inherit_bindings=False):
    ALLOW_SELECT = False
    ALLOW_MAXIMIZE = True
    BINDINGS = LIST_BINDINGS  # with ids, so a keymap moves them (ui/keys.py)
    # Component classes shared by every list; subclasses add their own.
    COMPONENT_CLASSES = {"vlist--cursor", "vlist--empty"}
    DEFAULT_CSS = """
    VirtualList { overflow-x: hidden; overflow-y: auto; }
    """

    cursor: reactive[int] = reactive(0, repaint=False, init=False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._strips: LRUCache[tuple[int, bool], Strip] = LRUCache(2048)
        self._styles: dict[str, Style] = {}
        self._base = Style()
        self._width = 0
        self._row_styles: tuple | None = None  # (base, styles but the cursor's) the row strips were built with
        self._cursor_style: Style | None = None  # the cursor style the cursor strips were built with
        self.empty_text = ""
        self._component_names = component_names(type(self))
        self.later_anchor: int | None = None  # the cursor's row, placed with the rows after it in view

    # -- to implement ---------------------------------------------------------------
    def row_count(self) -> int:
        return 0

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        raise NotImplementedError

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        """Called after the cursor moved (post a message here); ``jump``: by ``move_to``, not a step."""

    def later_changed(self, hidden: int) -> None:
        """Called when the count of rows below the view of a ``place_with_later`` changed (0: none, or left)."""

    # -- model changes ------------------------------------------------------------------
    def reset_rows(self, cursor: int | None = None) -> None:
        """The rows changed: drop caches, resize, optionally place the cursor."""
        self._strips.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, self.row_count())
        if cursor is not None:
            self.move_to(cursor, center=True)
        self.refresh()

    def clear_cache(self) -> None:
        self._strips.clear()
        self.refresh()

    def on_resize(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, self.row_count())
        self.refresh()  # what the dropped strips drew is drawn again (a resize may not repaint the list)
        self.call_after_refresh(self.scroll_cursor_into_view)

    def layout_resized(self) -> None:
        # Keep the cursor on screen in the frame this layout pass draws (on_resize's scroll comes a
        # frame later: after a load the list shrank by the load bar's rows and the verdict row, the
        # last of a big log, was drawn one frame, ~40 ms, late). Called with the fast render (Pane).
        self.scroll_cursor_into_view()

    # -- rendering ------------------------------------------------------------------------
    def style(self, name: str) -> Style:
        return self._styles.get(name) or self._base

    def render_lines(self, crop: Region) -> list[Strip]:
        self._base, self._styles = base, styles = self.component_rich_styles(self._component_names)
        cursor_style = styles.get("vlist--cursor")
        row_styles = (base, tuple(v for k, v in styles.items() if k != "vlist--cursor"))
        width = self.scrollable_content_region.width
        if width != self._width or row_styles != self._row_styles:
            self._width, self._row_styles, self._cursor_style = width, row_styles, cursor_style
            self._strips.clear()
        elif cursor_style != self._cursor_style:  # focus changed: only the cursor rows look different
            self._cursor_style = cursor_style
            for key in [k for k in self._strips.keys() if k[1]]:
                self._strips.discard(key)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self._width
        n = self.row_count()
        if row >= n:
            if n == 0 and y == 0 and self.empty_text:
                return Strip([Segment(self.empty_text, self.style("vlist--empty"))]).crop_extend(0, width, self._base)
            return Strip.blank(width, self._base)
        is_cursor = row == self.cursor
        key = (row, is_cursor)
        strip = self._strips.get(key)
        if strip is None:
            segments = self.render_row(row, width, is_cursor)
            base = self._base
            pad = base
            if is_cursor:
                pad = self.style("vlist--cursor")
                segments = [Segment(s.text, (s.style or base) + pad) for s in segments]
            else:
                segments = [s if s.style else Segment(s.text, base) for s in segments]
            strip = Strip(segments).crop_extend(0, width, pad)
            self._strips[key] = strip
        return strip

    # -- cursor ---------------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_line(old)
        self.refresh_line(new)
        self.scroll_cursor_into_view()
        self.cursor_moved(new)

    def scroll_cursor_into_view(self, center: bool = False) -> None:
        # The rows shown, from the size the last layout pass gave (the screen region lags a pass).
        h = max(1, self.container_size.height - self.scrollbar_size_horizontal)
        top = self.scroll_offset.y
        row = self.cursor
        if self.later_anchor is not None:
            if self.later_anchor == row:  # placed by place_with_later, and not moved since: place it again
                self._scroll_later(row, h)
                return
            self.drop_later()
        if center and not top <= row < top + h:
            self.scroll_to(y=max(0, row - h // 2), animate=False, force=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, force=True)
        elif row >= top + h:
            self.scroll_to(y=row - h + 1, animate=False, force=True)

    def place_with_later(self, row: int) -> None:
        """The cursor on ``row`` with every row after it in view when they fit; else ``row`` near the top
        and as many after it as fit (``later_hidden`` says how many are below). Kept through the layout
        passes (a load's panes settle over a few frames) until the cursor moves."""
        n = self.row_count()
        self.later_anchor = max(0, min(row, n - 1)) if n else None
        self.move_to(row)

    def later_hidden(self) -> int:
        """Rows below the view while the cursor is where ``place_with_later`` put it (else 0)."""
        if self.later_anchor is None or self.later_anchor != self.cursor:
            return 0
        h = max(1, self.container_size.height - self.scrollbar_size_horizontal)
        return max(0, self.row_count() - (self.scroll_offset.y + h))

    def _scroll_later(self, row: int, h: int) -> None:
        n = self.row_count()
        top = max(0, n - h) if n - 1 - row < h else row - min(row, h // 4)  # a little of what led to it
        self.scroll_to(y=top, animate=False, force=True)
        self.later_changed(self.later_hidden())

    def drop_later(self) -> None:
        if self.later_anchor is not None:
            self.later_anchor = None
            self.later_changed(0)

    def move_to(self, row: int, *, center: bool = False) -> None:
        n = self.row_count()
        row = max(0, min(row, n - 1)) if n else 0
        if row != self.cursor:
            self.set_reactive(VirtualList.cursor, row)
            self.refresh()  # a jump repaints the page anyway
        self.scroll_cursor_into_view(center)
        self.cursor_moved(row, True)
        # virtual_size changes apply at the next layout; scroll again after it.
        self.call_after_refresh(self.scroll_cursor_into_view, center)

    def action_move(self, delta: int) -> None:
        n = self.row_count()
        if n:
            self.cursor = max(0, min(n - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(self.row_count() - 1)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.move_to(self.scroll_offset.y + offset.y)
