"""FleetScreen: a scan's sessions grouped by verdict kind and by the tool that failed, with a per-day
strip of sessions and failures; Enter on a session opens it in the explorer at its verdict
(`dsh-tui SCAN-FOLDER`). What it shows is computed by `fleet.overview` (DuckDB); this only renders."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from ...fleet.overview import Group, Overview, SessionRow, day_strip, overview, sessions_of
from ...safety import one_line
from ..keydocs import fleet_help
from ..keys import FLEET_BINDINGS
from .help import HelpScreen


class FleetScreen(Screen[None]):
    BINDINGS = FLEET_BINDINGS
    DEFAULT_CSS = """
    FleetScreen #fleet-head { height: auto; padding: 0 1; }
    FleetScreen #fleet-panes { height: 1fr; }
    FleetScreen #fleet-groups { width: 34; border: round $primary-darken-2; }
    FleetScreen #fleet-sessions { width: 1fr; border: round $primary-darken-2; }
    FleetScreen OptionList:focus { border: round $accent; }
    FleetScreen OptionList { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class Open(Message):
        """Open ``path`` in the explorer at ``seq``."""

        def __init__(self, path: str, seq: int | None) -> None:
            super().__init__()
            self.path, self.seq = path, seq

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.view: Overview | None = None
        self.rows: list[SessionRow] = []

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-head", markup=False)
        with Horizontal(id="fleet-panes"):
            yield OptionList(id="fleet-groups")
            yield OptionList(id="fleet-sessions")
        yield Footer(compact=True)

    @property
    def groups(self) -> OptionList:
        return self.query_one("#fleet-groups", OptionList)

    @property
    def sessions(self) -> OptionList:
        return self.query_one("#fleet-sessions", OptionList)

    def on_mount(self) -> None:
        self.groups.border_title = "verdicts and tools"
        self.sessions.border_title = "sessions"
        self.query_one("#fleet-head", Static).update(f"fleet: reading {one_line(str(self.folder), 200)}…")
        self.groups.focus()
        self.load_overview()

    def on_resize(self) -> None:
        self.show_head()

    @work(thread=True, exclusive=True, group="fleet-overview", exit_on_error=False)
    def load_overview(self) -> Overview:
        return overview(self.folder)

    @work(thread=True, exclusive=True, group="fleet-sessions", exit_on_error=False)
    def load_sessions(self, group: Group) -> list[SessionRow]:
        return sessions_of(self.folder, group)

    @on(Worker.StateChanged)
    def _worker(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.state == WorkerState.ERROR:
            self.query_one("#fleet-head", Static).update(
                f"fleet: cannot read {one_line(str(self.folder), 200)}: {one_line(str(worker.error), 300)}")
        elif worker.state == WorkerState.SUCCESS and worker.group == "fleet-overview":
            self.view = worker.result
            self.groups.set_options(Option(Content(f"{g.count:>6,}  {one_line(g.label, 40)}")) for g in self.view.groups)
            self.show_head()
            if self.view.groups:
                self.groups.highlighted = 0
        elif worker.state == WorkerState.SUCCESS and worker.group == "fleet-sessions":
            self.rows = worker.result
            self.sessions.set_options(Option(Content(self._session_line(r))) for r in self.rows)
            if self.rows:
                self.sessions.highlighted = 0

    @staticmethod
    def _session_line(r: SessionRow) -> str:
        tool = f" {r.tool}" if r.tool else ""
        return one_line(f"{r.created}  {r.verdict}{tool}  {r.session_id}  {r.project}", 300)

    def show_head(self) -> None:
        if self.view is None:
            return
        v = self.view
        width = max(10, self.size.width - 14)
        total, failed = day_strip(v.days, width)
        first = next((d for d, _n, _f in v.days if d != "unknown"), "?")
        lines = [f"fleet: {v.total:,} sessions, {v.failed:,} failed or unreadable, {len(v.days):,} days from {first}"
                 f"  ({one_line(str(self.folder), 120)})"]
        if total:
            lines += [f"sessions/day {total}", f"failed/day   {failed}"]
        self.query_one("#fleet-head", Static).update("\n".join(lines))

    @on(OptionList.OptionHighlighted, "#fleet-groups")
    def _group(self, event: OptionList.OptionHighlighted) -> None:
        if self.view is not None and 0 <= event.option_index < len(self.view.groups):
            group = self.view.groups[event.option_index]
            self.sessions.border_title = f"sessions: {one_line(group.label, 40)} ({group.count:,})"
            self.load_sessions(group)

    @on(OptionList.OptionSelected, "#fleet-groups")
    def _group_chosen(self, _event) -> None:
        self.sessions.focus()

    @on(OptionList.OptionSelected, "#fleet-sessions")
    def _session_chosen(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self.rows):
            row = self.rows[event.option_index]
            self.post_message(self.Open(row.path, row.seq))

    def action_select_cursor(self) -> None:
        focused = self.focused
        if isinstance(focused, OptionList):
            focused.action_select()

    def action_switch(self) -> None:
        (self.sessions if self.groups.has_focus else self.groups).focus()

    def action_reload(self) -> None:
        self.load_overview()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(fleet_help(self.app.current_keymap())))
