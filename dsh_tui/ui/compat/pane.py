"""Pane bases: PROMPT_ORIGIN, and StockPane, the scrolling panes' base with the stock render.

A pane (widgets/pane.py) supplies two hooks: ``layout_resizing(size)``, called by the fast base
(fastpane.py) in the layout pass that gives the pane a new size, before Textual lays out its
scrollbars, and ``layout_resized()`` after it. With StockPane they are not called: the pane's
``on_resize`` does the same, a frame later.
"""

from __future__ import annotations

from rich.style import Style

PROMPT_ORIGIN = "-prompt-origin"  # set by CommandLine on the widget that had the focus, styled like :focus


class StockPane:
    """Textual's own focus, layout, styles and scrollbar; only what the pane's look needs."""

    def on_focus(self) -> None:
        if self.has_class(PROMPT_ORIGIN):  # CommandLine leaves dropping it to a Pane (FastPane._on_focus)
            self.remove_class(PROMPT_ORIGIN)

    def component_rich_styles(self, names: tuple[str, ...]) -> tuple[Style, dict[str, Style]]:
        return self.rich_style, {n: self.get_component_rich_style(n) for n in names}
