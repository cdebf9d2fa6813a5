"""DetailView: the sections of one event, wrapped to the pane width, virtualised.

Lines come from ``model.presenting.detail.detail_sections`` (sanitised, capped per section);
only the visible wrapped lines become strips. Diff lines are coloured by
their prefix (green +, red -), which NO_COLOR still leaves readable.
"""

from __future__ import annotations

from rich.cells import cell_len, chop_cells, get_character_cell_size
from rich.segment import Segment
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.content import Content
from textual.strip import Strip
from textual.widget import Widget

from ...model.presenting.hits import match_spans
from ...model.presenting.summary import Section
from ...safety import clean, one_line
from ..keys import LIST_BINDINGS
from .pane import Pane, component_names

KIND_CLASS = {"kv": "detail--kv", "text": "detail--text", "json": "detail--json", "args": "detail--args",
              "error": "detail--error", "finding": "detail--finding", "raw": "detail--raw", "note": "detail--note"}


def _diff_class(k: int, line: str) -> str:
    if k < 2:
        return "detail--diff-head"
    if line.startswith("@@"):
        return "detail--diff-hunk"
    if line.startswith("+"):
        return "detail--diff-add"
    if line.startswith("-"):
        return "detail--diff-del"
    return "detail--diff-ctx"


def section_lines(sections: list[Section]) -> list[tuple[str, str]]:
    """(text, component class) per logical line, section titles included.

    Each becomes one Segment, so each must be one line: ``one_line`` (no cut: the model caps
    sections) keeps a line break in a value from reaching the terminal and drawing below.
    """
    out: list[tuple[str, str]] = []
    for sec in sections:
        if out:
            out.append(("", "detail--text"))
        out.append((f"▌{one_line(sec.title, None)}", "detail--title"))
        for k, line in enumerate(sec.lines):
            line = one_line(line, None)
            if line.startswith("… capped at 64 KiB"):
                cls = "detail--note"
            elif sec.kind == "diff":
                cls = _diff_class(k, line)
            else:
                cls = KIND_CLASS.get(sec.kind, "detail--text")
            out.append((line, cls))
    return out


def wrap(text: str, width: int, words: bool = False) -> list[str]:
    """``text`` cut into rows of ``width`` cells: at the width (a line of code keeps its columns), or
    with ``words`` at the last space that fits (the space is dropped; a longer word is cut)."""
    if words and width > 0:
        return word_wrap(text, width)
    if width <= 0:
        return [text]
    if text.isascii():
        return [text[i:i + width] for i in range(0, len(text), width)] or [""]
    if cell_len(text) <= width:
        return [text]
    return chop_cells(text, width) or [""]


def word_wrap(text: str, width: int) -> list[str]:
    if cell_len(text) <= width:
        return [text]
    if text.isascii():  # one cell a character (lines are sanitised): slices and rfind, no per-character loop
        rows, start = [], 0
        while len(text) - start > width:
            end = start + width
            if text[end] == " ":
                rows.append(text[start:end])
                start = end + 1
                continue
            cut = text.rfind(" ", start + 1, end)
            if cut > start and _longer_than_a_row(text, cut + 1, width):
                cut = -1  # a word no row holds (a path, a hash) goes on here, cut at the width
            rows.append(text[start:cut if cut > start else end])
            start = cut + 1 if cut > start else end
        rows.append(text[start:])
        return rows
    return _word_wrap_cells(text, width)


def _longer_than_a_row(text: str, at: int, width: int) -> bool:
    """The word starting at ``at`` is wider than ``width``: moved to a row of its own it would be cut anyway."""
    end = text.find(" ", at)
    word = text[at:end if end != -1 else len(text)]
    return len(word) > width if word.isascii() else cell_len(word) > width


def _word_wrap_cells(text: str, width: int) -> list[str]:
    rows: list[str] = []
    start, col, space, after_space = 0, 0, -1, 0  # after_space: the row's cells up to and with the last space
    for i, ch in enumerate(text):
        w = get_character_cell_size(ch)
        if col + w > width and i > start:
            if ch == " ":
                rows.append(text[start:i])
                start, col, space = i + 1, 0, -1
                continue
            if space > start and not _longer_than_a_row(text, space + 1, width):
                rows.append(text[start:space])
                start, col = space + 1, col - after_space
            else:
                rows.append(text[start:i])
                start, col = i, 0
            space = -1
        if ch == " ":
            space, after_space = i, col + w
        col += w
    rows.append(text[start:])
    return rows


_TITLE = vars(Widget)["border_title"]  # Textual's border-title descriptor (public name), for the wrap note


class DetailView(Pane, ScrollView, can_focus=True, inherit_bindings=False):
    ALLOW_SELECT = False
    ALLOW_MAXIMIZE = True
    COMPONENT_CLASSES = {"detail--title", "detail--kv", "detail--text", "detail--json", "detail--args",
                         "detail--error", "detail--finding", "detail--raw", "detail--note", "detail--diff-head",
                         "detail--diff-hunk", "detail--diff-add", "detail--diff-del", "detail--diff-ctx",
                         "detail--match"}
    BINDINGS = LIST_BINDINGS  # the lists' own table (ui/keys.py): one keymap entry moves every pane
    DEFAULT_CSS = """
    DetailView { overflow-x: hidden; overflow-y: auto; }
    DetailView > .detail--match { color: $warning; text-style: bold reverse; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._logical: list[tuple[str, str]] = [("select an event to see its details", "detail--note")]
        self._visual: list[tuple[str, str]] = []
        self._width = -1
        self._strips: LRUCache[int, Strip] = LRUCache(1024)
        self._styles: dict = {}
        self._base = None
        self._names = component_names(type(self))
        self.word_wrap = True  # long lines wrap at spaces (prose reads whole); W: cut at the width (code)
        self._title: object = None  # the title as set; shown with " · char wrap" while cutting at the width
        self.highlight = None  # the search's pattern (model/presenting/hits.py): its matches styled

    @property
    def border_title(self):
        return _TITLE.__get__(self, type(self))

    @border_title.setter
    def border_title(self, title) -> None:
        self._title = title
        if not self.word_wrap and title is not None:
            title = Content.assemble(Content(title) if isinstance(title, str) else title, (" · char wrap", "bold"))
        _TITLE.__set__(self, title)

    def set_highlight(self, pattern) -> None:
        """Style the matches of ``pattern`` (a compiled regex; None: none) in the rows drawn."""
        if pattern != self.highlight:
            self.highlight = pattern
            self._strips.clear()
            self.refresh()

    def toggle_wrap(self) -> None:
        """Wrap at words, or cut at the width; the rows (and so the virtual height) follow."""
        self.word_wrap = not self.word_wrap
        self.border_title = self._title
        top = self.scroll_offset.y
        self._rewrap(self.scrollable_content_region.width, force=True)
        self.scroll_to(y=min(top, max(0, len(self._visual) - 1)), animate=False, force=True)

    def set_sections(self, sections: list[Section]) -> None:
        self._logical = section_lines(sections)
        self._rewrap(self.scrollable_content_region.width, force=True)
        self.scroll_to(y=0, animate=False, force=True)

    def set_message(self, text: str) -> None:
        self._logical = [(line, "detail--note") for line in clean(text).split("\n")]
        self._rewrap(self.scrollable_content_region.width, force=True)

    def plain_lines(self) -> list[str]:
        return [t for t, _ in self._logical]

    def shown_rows(self) -> list[str]:
        """The rows as drawn at the pane's width (after the wrap)."""
        return [t for t, _ in self._visual]

    def _rewrap(self, width: int, force: bool = False) -> None:
        if width == self._width and not force:
            return
        self._width = width
        words = self.word_wrap
        self._visual = [(part, cls) for text, cls in self._logical for part in wrap(text, width, words)]
        self._strips.clear()
        self._fit()
        self.refresh()

    def _fitted_height(self, pane: int) -> int:
        # Never shorter than the pane (rows past the text are blank, and no scrollbar shows either
        # way): moving between events whose detail fits changes no size, so it costs no layout pass.
        # Not while the scrollbar shows: Textual re-checks a ScrollView's scrollbars only when its
        # virtual size differs from its content region, and the bar would stay over short text.
        rows = len(self._visual)
        return rows if self.show_vertical_scrollbar else max(rows, pane)

    def _fit(self) -> None:
        size = Size(max(1, self._width), self._fitted_height(self.scrollable_content_region.height))
        if size != self.virtual_size:
            self.virtual_size = size

    def layout_resizing(self, size: Size) -> None:
        # Refit to the new height before Textual judges the scrollbar on it: Resize comes after the
        # frame, and a height kept from a taller pane showed a bar (and the text wrapped narrower) in it.
        if not self.show_vertical_scrollbar:
            height = self._fitted_height(size.height - self.styles.gutter.height)
            if height != self.virtual_size.height:
                self.set_reactive(DetailView.virtual_size, Size(self.virtual_size.width, height))

    def on_resize(self) -> None:
        self._rewrap(self.scrollable_content_region.width)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._rewrap(self.scrollable_content_region.width)
        base, styles = self.component_rich_styles(self._names)
        if base != self._base or styles != self._styles:  # a theme or CSS change, not a mere focus change
            self._strips.clear()
        self._base, self._styles = base, styles
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        if row >= len(self._visual):
            return Strip.blank(self._width, self._base)
        strip = self._strips.get(row)
        if strip is None:
            text, cls = self._visual[row]
            style = self._styles.get(cls, self._base)
            segments, at = [], 0
            for a, b in match_spans(text, self.highlight):  # per drawn row: a match cut by a wrap is not styled
                segments += [Segment(text[at:a], style), Segment(text[a:b], style + self._styles.get("detail--match", style))]
                at = b
            segments.append(Segment(text[at:], style))
            strip = Strip([seg for seg in segments if seg.text] or [Segment("", style)]).crop_extend(0, self._width,
                                                                                                  self._base)
            self._strips[row] = strip
        return strip

    def action_move(self, delta: int) -> None:
        self.scroll_to(y=self.scroll_offset.y + delta, animate=False, force=True)

    def action_page(self, direction: int) -> None:
        self.action_scroll_by(direction * max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.scroll_to(y=0, animate=False, force=True)

    def action_last(self) -> None:
        self.scroll_to(y=max(0, len(self._visual) - self.scrollable_content_region.height), animate=False, force=True)
