"""Pane: what the explorer's scrolling panes (VirtualList, DetailView) share so a key repaints little.

The overrides of Textual that make that so (focus, layout, styles, scrollbar) are in ui/compat
(compat/fastpane.py), used only with the fast render; with the stock render the base is
compat's StockPane. A pane implements the two hooks below and reads its styles through
``component_rich_styles`` (from the base); ``component_names`` lists what it may ask for.
"""

from __future__ import annotations

from textual.geometry import Size

from ..compat import PROMPT_ORIGIN, PaneBase

__all__ = ["PROMPT_ORIGIN", "Pane", "component_names"]


def component_names(cls: type) -> tuple[str, ...]:
    """The component classes of ``cls`` and its bases, sorted (none of ours turns inheriting them off)."""
    return tuple(sorted(set().union(*(vars(c).get("COMPONENT_CLASSES", ()) for c in cls.__mro__))))


class Pane(PaneBase):
    """Mixin, placed before ``ScrollView`` in the bases."""

    def layout_resizing(self, size: Size) -> None:
        """The layout pass gives the pane ``size`` (outer); Textual lays out its scrollbars next."""

    def layout_resized(self) -> None:
        """The layout pass resized the pane (the Resize event comes a frame later)."""
