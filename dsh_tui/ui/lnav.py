"""The explorer's actions for the lnav / less habits: scroll the rows' text (< >), write or pipe the view
(o, |), the merged timeline of a session and its children (C). A mixin of ExplorerApp, so the app's
own module only names it; the work is in the controllers (controllers/viewout.py, timeline.py)."""

from __future__ import annotations


class LnavActions:
    def action_shift_rows(self, direction: int) -> None:
        if self.log_ is None:
            return
        target = self.timeline.list_shown() or self.events
        if target.shift_text(direction):
            self.set_events_title()
            self.timeline.set_title()

    def action_write_view(self) -> None:
        self.view_out.ask_write()

    def action_pipe_view(self) -> None:
        self.view_out.ask_pipe()

    def action_merged_timeline(self) -> None:
        self.timeline.toggle()
