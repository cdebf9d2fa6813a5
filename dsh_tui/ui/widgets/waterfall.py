"""Waterfall: one turn's time in lanes (model TTFT, decoding, tool, approval wait, retry wait) drawn
with block characters at the widget's width (model/presenting/timing_view.py draws the text)."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from ...model.diagnosing.timing import Timing, TurnTiming
from ...model.presenting.timing_view import LANES, waterfall_lines

STYLES = {"title": "bold", "dim": "$text-muted", "missing": "bold $warning", "label": "bold", "span": "$primary-lighten-1",
          "selected": "bold $accent", "gap": ""}  # the row's own spans stand out in the accent


class Waterfall(Widget):
    DEFAULT_CSS = """
    Waterfall { height: auto; padding: 0 1; background: $surface; border-top: solid $panel-lighten-2;
                border-title-color: $text-muted; }
    """

    def __init__(self, timing: Timing, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.timing = timing
        self.turn: TurnTiming | None = None
        self.selected: int | None = None
        self.shown = False  # nothing drawn before the first row is selected

    def show(self, turn: TurnTiming | None, selected: int | None) -> None:
        if self.shown and turn == self.turn and selected == self.selected:  # (a turn read is made anew: equal)
            return
        self.turn, self.selected, self.shown = turn, selected, True
        self.border_title = "waterfall of the row's turn"
        self.refresh(layout=True)

    def lines(self, width: int) -> list[list[tuple[str, str]]]:
        return waterfall_lines(self.timing, self.turn, width, self.selected) if self.shown else [[("", "dim")]]

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(LANES) + 2  # a title, the lanes, the axis: the same height whatever the row

    def render(self) -> Content:
        no_color = self.app.no_color
        out = []
        for line in self.lines(self.content_region.width):
            parts = []
            for text, name in line:
                style = STYLES.get(name, "")
                if no_color and name == "selected":  # the row's own span: a texture, not a grey of yellow
                    text, style = text.replace("█", "▓"), "bold"
                parts.append((text, style))
            out.append(Content.assemble(*parts).truncate(self.content_region.width, ellipsis=True))
        return Content("\n").join(out)

    def plain(self) -> str:
        return "\n".join(Content.assemble(*[t for t, _ in line]).plain
                         for line in self.lines(self.content_region.width))
