"""The explorer screen's side of the controllers' ports (controllers/ports.py): what a controller may
read and call, as thin forwards to the app, the panes and the controllers that own the state. A mixin
of ExplorerScreen (screens/explorer.py), kept apart so the screen's own module holds what it does:
compose, the session shown, the messages and the keys. tests/unit/test_controller_ports.py checks that
the screen has every member of every port."""

from __future__ import annotations

from pathlib import Path

from ..compat.premount import premount
from ..views import RowSource
from ..widgets.chips import ChipsBar
from ..widgets.cmdline import CommandLine
from ..widgets.detail import DetailView
from ..widgets.event_list import EventList
from ..widgets.footer import StableFooter
from ..widgets.header import HeaderPanel
from ..widgets.pairs import PairsPane
from ..widgets.progress import LoadBar
from ..widgets.sparkline import ActivityBar


class ExplorerPortSide:
    """Forwards only: the state stays with the app, the panes and the controllers (``self.search``,
    ``self.chips``, ...), which ExplorerScreen makes."""

    @property
    def settings(self):
        return self.app.settings

    @property
    def key_gate(self):
        return self.app.key_gate

    @property
    def last_input(self) -> float:
        """When the last key or click came (the quiet-time GC's clock)."""
        return self.app.quiet_gc.last_input

    @property
    def screen_stack(self) -> list:
        return self.app.screen_stack

    @property
    def is_open(self) -> bool:
        """The app runs and shows screens (False once it is closing: late messages and timers stop)."""
        return bool(self.app.screen_stack)

    @property
    def needle(self) -> str | None:
        """The current search (the search controller's)."""
        return self.search.needle

    @needle.setter
    def needle(self, value: str | None) -> None:
        self.search.needle = value

    @property
    def lineage(self):
        return self.family.lineage

    @property
    def filter_base(self) -> RowSource:
        return self.filters.base

    def push_screen(self, screen, callback=None):
        return self.app.push_screen(screen, callback)

    def install_screen(self, screen, name: str) -> None:
        self.app.install_screen(screen, name)

    def uninstall_screen(self, screen) -> None:
        self.app.uninstall_screen(screen)

    async def premount(self, screen, quiet) -> bool:
        return await premount(self.app, screen, quiet)

    def batch_update(self):
        return self.app.batch_update()

    def call_from_thread(self, callback, *args):
        return self.app.call_from_thread(callback, *args)

    def copy_to_clipboard(self, text: str) -> None:
        self.app.copy_to_clipboard(text)

    def dismiss_notices(self) -> None:
        self.app.dismiss_notices()

    def busy(self, *groups: str) -> bool:
        """A worker of one of ``groups`` runs."""
        return any(w.group in groups and not w.is_finished for w in self.app.workers)

    def cancel_workers(self, group: str) -> None:
        self.app.workers.cancel_group(self, group)

    def browser_active(self) -> bool:
        return self.app.browser_active()

    def has_home(self) -> bool:
        return self.app.has_home()

    def show_browser(self, root: Path) -> None:
        self.app.show_browser(root)

    def go_home(self) -> None:
        self.app.go_home()

    def can_go_back(self) -> bool:
        return self.history.can_go_back()

    def show_rows(self, focus: int | None) -> None:
        """The list shows the filter's events narrowed by the chips (after either changed)."""
        self.chips.show_rows(focus)

    def show_chips_bar(self) -> None:
        self.chips.show_bar()

    def mark_count(self) -> int:
        return len(self.marks)

    def copy_marked(self, indices: list[int]) -> None:
        self.copy.marked(indices)

    def copy_request(self, request) -> None:
        """A copy asked for by a screen over the explorer (the JSON tree's keys): the one copy path."""
        self.copy.copy(request)

    def session_insight(self):
        """The session's `Insight` (model/context/export.py), or None without a log."""
        return self.insight.insight()

    def restore_view(self, marks: list[int], chips: list, focus: int | None) -> None:
        """A saved view's marks and chips (controllers/views.py), brought back."""
        if marks:
            self.marks.set_marks(marks)
        if chips:
            self.chips.set_chips(chips, focus=focus)

    def view_state(self) -> tuple[list[int], list]:
        """The marks (as seqs) and the chips, to save."""
        return (self.marks.seqs() if self.marks.marks else []), list(self.chips.chips)

    # -- the panes, as the controllers reach them -----------------------------------------------------
    @property
    def events(self) -> EventList:
        return self.query_one("#events", EventList)

    @property
    def pairs_pane(self) -> PairsPane:
        return self.query_one("#pairs", PairsPane)

    @property
    def detail(self) -> DetailView:
        return self.query_one("#detail", DetailView)

    @property
    def header(self) -> HeaderPanel:
        return self.query_one("#header", HeaderPanel)

    @property
    def load_bar(self) -> LoadBar:
        return self.query_one(LoadBar)

    def activity_bar(self) -> ActivityBar | None:
        """None while the screen has none (the app closing when a timing worker ends)."""
        found = self.query(ActivityBar)
        return found.first() if found else None

    def chips_bar(self) -> ChipsBar | None:
        found = self.query("#chips")
        return found.first() if found else None

    def timeline_list(self):
        """The merged timeline's list (widgets/timeline.py), once it was mounted."""
        found = self.query("#timeline")
        return found.first() if found else None

    def mount_beside_events(self, widget) -> None:
        self.query_one("#left").mount(widget, after=self.events)

    def command_line(self) -> CommandLine | None:
        """The docked line (the events list's count shows there)."""
        found = self.query(CommandLine)
        return found.first() if found else None

    def footers(self) -> tuple:
        return tuple(self.query(StableFooter))

    def ask(self, kind: str, label: str, callback, **kw) -> bool:
        """Open the docked prompt of the screen on top; False when that screen has none."""
        found = self.app.screen.query(CommandLine)
        if not found:
            return False
        found.first().ask(kind, label, callback, cover=tuple(self.app.screen.query(StableFooter)), **kw)
        return True
