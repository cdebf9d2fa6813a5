"""A title and indented lines whose wrapped parts stay under their line's indent (a Textual Visual).

A picker's option (the ten-minute pass's steps) shows a title and a few lines under it, indented. As
plain Content a long line (a cwd, a call's arguments, advice) wraps back to the left edge, under the
title, where it reads as a line of its own at 80 columns. Here each line is wrapped to the width left
after its indent, every part of it indented alike. Public Textual API only: `Content.wrap` and the
Visual protocol, which an OptionList renders as any prompt.
"""

from __future__ import annotations

from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual


class HangingLines(Visual):
    """``head`` and ``lines``, each line ``indent`` cells in, its wrapped parts too."""

    def __init__(self, head: Content, lines: list[Content], indent: int) -> None:
        self.head, self.lines, self.indent = head, lines, indent
        self._laid: tuple[int, Content] | None = None  # (width, the text laid out at that width)

    def __str__(self) -> str:
        pad = " " * self.indent
        return "\n".join([self.head.plain, *(pad + line.plain for line in self.lines)])

    def laid_out(self, width: int) -> Content:
        """The text at ``width``: the head wrapped as it is, each line's parts under its indent."""
        if self._laid is not None and self._laid[0] == width:
            return self._laid[1]
        pad = Content(" " * self.indent)
        rows = self.head.wrap(max(1, width))
        for line in self.lines:
            rows += [pad + part for part in line.wrap(max(1, width - self.indent))]
        laid = Content("\n").join(rows)
        self._laid = (width, laid)
        return laid

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return self.laid_out(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max([self.head.cell_length, *(self.indent + line.cell_length for line in self.lines)])

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.laid_out(width).get_height(rules, width)
