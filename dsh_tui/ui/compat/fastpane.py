"""FastPane: what a scrolling pane (VirtualList, DetailView) overrides in Textual so a key repaints little.

A mixin placed before ``ScrollView`` in the bases (chosen in compat/__init__.py). It calls the
pane's two hooks from the layout pass that resizes it: ``layout_resizing`` before Textual lays
out its scrollbars, ``layout_resized`` after. Four Textual 8.2 costs, measured on the 936k-event
log at 160x45:

- Focus. A pane losing focus to the docked prompt (``:``, ``/``) repainted itself whole
  (``Widget._on_blur``) and re-applied the styles of itself and its scrollbars
  (``watch_has_focus``; a scrollbar restyle always refreshes, one with a layout
  pass), and again when the focus came back. The pane keeps its focused look
  meanwhile (class PROMPT_ORIGIN, styled like ``:focus`` in app.tcss), so
  while it has that class a focus change repaints and restyles nothing: the
  blur skips it, and the focus coming back drops the class instead.
- Layout. ``ScrollView._size_updated`` compares the compositor's virtual size
  (the content height of the layout pass) with the pane's own (its row count),
  which always differ, so every layout pass of the screen, even one that only
  swaps the footer for the prompt, repainted the pane's scrollbar column, and
  the repaint then spanned from that column down to the bottom line. A pane sizes
  itself (``virtual_size`` is set where its rows change), so here the scrollbars
  are updated after a layout pass only when that size, or the pane's size or
  container size, changed since they were last updated.
- Styles. A pane resolved its component styles (row colours, the cursor) every
  frame; ``component_rich_styles`` resolves them again only when they can differ.
- Scrollbar. The stock vertical bar went through a Rich console on each scroll
  (~2.5 ms a goto on a 2 GHz core); a pane's is a ``LineScrollBar`` (scrollbar.py).
"""

from __future__ import annotations

from rich.style import Style
from textual import events
from textual.geometry import Size

from .pane import PROMPT_ORIGIN
from .scrollbar import LineScrollBar


class FastPane:
    def _on_blur(self, event: events.Blur) -> None:
        if not self.has_class(PROMPT_ORIGIN):
            return  # Widget._on_blur follows (repaint, restyle)
        event.prevent_default()
        self.has_focus = False  # watch_has_focus below: no restyle
        if self.parent is not None:
            self.parent.post_message(events.DescendantBlur(self))

    def _on_focus(self, event: events.Focus) -> None:
        if not self.has_class(PROMPT_ORIGIN):
            return  # Widget._on_focus follows
        event.prevent_default()
        self.has_focus = True  # with the class still set: no restyle
        self.remove_class(PROMPT_ORIGIN, update=False)  # :focus now gives the same look
        if self.parent is not None:
            self.parent.post_message(events.DescendantFocus(self))

    def watch_has_focus(self, has_focus: bool) -> None:
        if not self.has_class(PROMPT_ORIGIN):
            super().watch_has_focus(has_focus)

    _scrollbars_for: Size | None = None  # the virtual size the scrollbars were last updated for

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        if size != self._size:
            self.layout_resizing(size)
        own = self.virtual_size
        if own != self._scrollbars_for:  # rows changed since: ScrollView updates the scrollbars (it always
            self._scrollbars_for = own   # does when the compositor's virtual size differs from ours)
        else:
            virtual_size = own  # only a new size or container size updates them now
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        if resized:
            self.layout_resized()
        return resized

    @property
    def vertical_scrollbar(self) -> LineScrollBar:
        """Widget.vertical_scrollbar with a LineScrollBar (scrollbar.py): made the same way on first use."""
        if self._vertical_scrollbar is None:
            bar = self._vertical_scrollbar = LineScrollBar(vertical=True, name="vertical",
                                                           thickness=self.scrollbar_size_vertical)
            bar.display = False
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    _resolved: tuple[Style, tuple, dict[str, Style]] | None = None

    def component_rich_styles(self, names: tuple[str, ...]) -> tuple[Style, dict[str, Style]]:
        """This pane's rich style and its components' (``names``), resolved again only when they can differ.

        That is when the pane's own rich style changed (its or an ancestor's styles), or the
        pane was restyled: Textual gives every component a new styles object then. A frame
        used to resolve them all (~1 ms per pane at 160x45) though a key seldom restyles anything.
        """
        base = self.rich_style
        sources = tuple(self._component_styles.values())  # kept: an identity test, no id() reuse
        done = self._resolved
        if done is None or done[0] != base or len(done[1]) != len(sources) \
                or any(a is not b for a, b in zip(done[1], sources)):
            done = self._resolved = (base, sources, {n: self.get_component_rich_style(n) for n in names})
        return base, done[2]
