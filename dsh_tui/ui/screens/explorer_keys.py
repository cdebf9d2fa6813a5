"""The explorer's key handlers: what ui/actions.py's registry runs on the screen for a key or palette
command (``do``), where no controller owns it. A mixin of ExplorerScreen (screens/explorer.py), as its
ports' side is (explorer_ports.py): the screen's own module holds compose, the session shown and the
messages; this one what each of its keys does."""

from __future__ import annotations

from ...model.presenting.headerview import header_sections
from ..keydocs import explorer_help
from .header import HeaderScreen
from .help import HelpScreen


class ExplorerKeys:
    """Handlers by the registry's names (ui/actions.py); the screen's state, panes and controllers are
    ExplorerScreen's."""

    def help(self) -> None:
        self.push_screen(HelpScreen(explorer_help(self.app.current_keymap())))

    def full_header(self) -> None:
        if self.log_ is not None:
            self.push_screen(HeaderScreen(header_sections(self.log_, self.diag), self.copy.header_line))

    def toggle_pairs(self) -> None:
        self.toggle_class("-pairs-flip")

    def zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    def enter(self) -> None:
        if self.timeline.enter():  # the merged timeline: open the child at that event
            return
        if self.focused is self.events:
            if self.family.offer_child():  # a NOT_IN_TOOL_SET finding a child calls: open it?
                return
            self.detail.focus()
            return
        if self.focused is self.pairs_pane and self.pairs_pane.pair is not None:
            p = self.pairs_pane.pair
            self.jump_to(next(i for i in (p.open, p.ask, p.close) if i is not None))
        self.events.focus()

    def first_event(self) -> None:
        if self.log_ is not None:
            self.events.action_first()

    def last_event(self) -> None:
        if self.log_ is not None:
            self.events.action_last()

    def toggle_raw(self) -> None:
        self.events.toggle_raw()
        self.set_events_title()

    def next_hit(self, direction: int) -> None:
        if not self.search.next_hit(direction):
            self.jumps.finding(direction)  # no search: n and N step through the findings

    def shift_rows(self, direction: int) -> None:
        """< and >: scroll the rows' text (the events list's, or the merged timeline's)."""
        if self.log_ is None:
            return
        target = self.timeline.list_shown() or self.events
        if target.shift_text(direction):
            self.set_events_title()
            self.timeline.set_title()

    def checklist(self) -> None:
        if self.log_ is not None:
            from ...model.presenting.checklist import ten_minute_pass
            from .checklist import ChecklistScreen
            self.push_screen(ChecklistScreen(ten_minute_pass(self.log_, self.diag)), self.jump_to)

    def back(self) -> None:
        """b (back, or try-back where there is nowhere to go: it says so)."""
        if not self.load_finished:  # still reading: stop, so no error screen pops up later
            self.cancel_event.set()
            self.cancel_workers("load")
        self.history.back()
