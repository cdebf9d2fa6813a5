"""LineScrollBar: Textual's vertical ScrollBar, its strips made directly.

The stock bar renders a Rich renderable (``ScrollBarRender``) through a console
and the styles cache on every scroll: ~2.5 ms for a 26-row bar on a 2 GHz core,
a tenth of a goto or a page down on the 936k-event log. Here the same segments
(``ScrollBarRender.render_bar``: the same glyphs, colours and mouse meta) become
one-segment strips, through the app's line filters as every other line is.
Anything else (a horizontal bar, a custom renderer) renders the stock way.

The last strips are kept: a bar is often repainted unchanged (its own Update
message lands a frame after its pane's, which drew it already), and equal
segments share one filtered strip (a bar is two kinds of cell).
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

_BACK, _BAR = Color.parse("#555555"), Color.parse("bright_magenta")  # ScrollBarRender's own defaults


class LineScrollBar(ScrollBar):
    _last: tuple[tuple, list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        if not self.vertical or type(bar) is not ScrollBarRender:
            return super().render_lines(crop)
        width, height = self.size
        style = bar.style
        filters, background, base = self.get_line_filters(), self.background_colors[1], self.rich_style
        key = (crop, width, height, bar.virtual_size, bar.window_size, bar.position, style, tuple(filters),
               background, base)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        segments = ScrollBarRender.render_bar(
            size=height, virtual_size=bar.virtual_size, window_size=bar.window_size, position=bar.position,
            thickness=width, vertical=True, back_color=style.bgcolor or _BACK, bar_color=style.color or _BAR,
        ).segments
        made: dict[Segment, Strip] = {}
        strips = []
        for segment in segments[crop.y:crop.bottom]:  # under each its widget's style, as the styles cache does
            strip = made.get(segment)
            if strip is None:
                strip = Strip([Segment(segment.text, base + segment.style)], width)
                for line_filter in filters:
                    strip = strip.apply_filter(line_filter, background)
                made[segment] = strip = strip.crop(crop.x, crop.right)
            strips.append(strip)
        self._last = (key, strips)
        return strips
