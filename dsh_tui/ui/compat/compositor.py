"""SparseCompositor: a partial frame renders only the widgets that lie under a dirty region.

Textual's ``Compositor.render_partial_update`` crops to the bounding box of all
dirty regions, and ``_get_renders`` renders every widget overlapping that box.
A key that changes the events list (top left) and the footer line (bottom), or
the detail pane (right) and the footer, makes that box the whole screen: every
pane is rendered again (each from its caches, but each costs lines through the
StylesCache and the line filters), ~2.5 ms of the detail pane alone per frame at
160x45 on a 2 GHz core, in each of the two frames of a jump.

This subclass keeps Textual's algorithm and output and narrows only the set of
widgets it renders. ``_render_chops`` paints front to back and the first widget
to cover a cell wins it, and ChopsUpdate writes only the dirty spans (skipping
cuts left empty). So a widget is rendered only if its visible part overlaps a
dirty region that no widget in front of it covers whole: a pane's scrollbar
repainted alone no longer re-renders the pane, nor the containers behind both.
Relies on Textual internals (used only in the versions compat/mode.py names);
tests/ui/test_compositor.py compares its output with the stock compositor's.
"""

from __future__ import annotations

from textual._compositor import Compositor
from textual.geometry import Region


class SparseCompositor(Compositor):
    def __init__(self) -> None:
        super().__init__()
        self._render_regions: list[Region] | None = None  # set only during a partial update

    def render_partial_update(self):
        self._render_regions = list(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._render_regions = None

    def _get_renders(self, crop: Region | None = None):
        regions = self._render_regions
        if not regions:
            return super()._get_renders(crop)
        everything = self.visible_widgets  # front to back: the first widget to cover a cell paints it
        needed: set = set()
        for dirty in regions:
            for widget, (region, clip) in everything.items():
                visible = region.intersection(clip)
                if visible.overlaps(dirty):
                    needed.add(widget)
                    if visible.contains_region(dirty):
                        break  # every cell of it is this widget's: those behind cannot show
        under = {widget: geometry for widget, geometry in everything.items() if widget in needed}
        # The stock generator reads visible_widgets; it sees only those under a dirty region.
        self._visible_widgets = under
        try:
            return list(super()._get_renders(crop))
        finally:
            self._visible_widgets = everything
