"""TimingScreen (T): where the time went. A table of model calls, tool calls and commands, slowest first,
sortable by any column (s / S pick the column, r reverses), and under it the waterfall of the selected
row's turn. Enter jumps to the row's event in the explorer and closes the view; esc, q or T close it."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ...model.diagnosing.timing import Timing
from ...model.presenting.timing_rows import SortOrders
from ...model.presenting.timing_view import header_cells, session_length, sort_title, stranded_calls
from ...safety import one_line
from ..keydocs import key_strip
from .view import ViewScreen
from ..keys import TIMING_BINDINGS
from ..widgets.timing_table import TimingTable
from ..widgets.waterfall import Waterfall
from textual.worker import Worker, WorkerState

HEADER_STYLES = {"title": "bold $text-muted", "sorted": "bold reverse"}


class ColumnTitles(Static):
    """The table's column titles, the sorted one reversed, at the table's width."""

    def __init__(self, table: TimingTable, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.table = table

    def render(self) -> Content:
        width = self.table.scrollable_content_region.width or self.content_region.width
        return Content.assemble(*header_cells(width, self.table.sort, self.table.descending))


class TimingScreen(ViewScreen[int | None]):
    """A full screen, not a modal: nothing of the explorer shows around it, so the screen under it is
    not drawn again when it opens (a modal's background is: ~40% of its opening on a big log)."""

    BINDINGS = TIMING_BINDINGS
    DEFAULT_CSS = """
    #timing-box { width: 100%; height: 100%; background: $surface; }
    #timing-head { height: 1; padding: 0 1; background: $panel; }
    #timing-cols { height: 1; padding: 0 1; background: $surface; }
    #timing-table { padding: 0 1; }
    #timing-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, timing: Timing, title: str = "") -> None:
        super().__init__()
        self.timing, self.title_text = timing, title
        # A big table's column is sorted on first use in a worker (timing_rows.EAGER_ROWS): the order
        # last asked for, and the column being made (one at a time: s held down asks for many).
        self._wanted: tuple[str, bool] | None = None
        self._making: str | None = None

    def compose(self) -> ComposeResult:
        table = TimingTable(SortOrders.of(self.timing), stranded=stranded_calls(self.timing), id="timing-table")
        with Vertical(id="timing-box"):
            yield Static(id="timing-head")
            yield ColumnTitles(table, id="timing-cols")
            yield table
            yield Waterfall(self.timing, id="waterfall")
            keymap = getattr(self.app, "current_keymap", dict)()  # the keys in effect after the user's keymap
            yield Static(Content.assemble(*key_strip("timing", keymap)), id="timing-keys")

    @property
    def table(self) -> TimingTable:
        return self.query_one(TimingTable)

    def on_mount(self) -> None:
        found = self.query(TimingTable)
        if not found:  # mounted as the app quits: nothing was composed
            return
        table = found.first()
        table.focus()
        self.show_head()
        self.show_row(table.row)

    def show_head(self) -> None:
        t, table = self.timing, self.table
        order = "slowest first" if (table.sort, table.descending) == ("duration_ms", True) else \
            f"by {sort_title(table.sort)} {'▼' if table.descending else '▲'}"
        parts = [("timing", "bold"), f" · {len(table.rows):,} rows · {order} · session {session_length(t)}"]
        if self._wanted is not None:
            column, descending = self._wanted
            parts.append((f" · sorting by {sort_title(column)} {'▼' if descending else '▲'}…", "$accent"))
        if t.missing:
            parts.append((f" · {one_line('; '.join(t.missing), 200)}", "$warning"))
        if self.title_text:
            parts.append((f" · {one_line(self.title_text, 80)}", "$text-muted"))
        self.query_one("#timing-head", Static).update(Content.assemble(*parts))
        self.query_one(ColumnTitles).refresh()

    def show_row(self, row) -> None:
        turn = None if row is None else self.timing.turn_at(row.index)
        self.query_one(Waterfall).show(turn, None if row is None else row.index)

    @on(TimingTable.Selected)
    def _selected(self, message: TimingTable.Selected) -> None:
        self.show_row(message.row)

    def action_sort(self, step: int) -> None:
        table = self.table
        keys = table.sort_keys()
        at = self._wanted[0] if self._wanted else table.sort  # (from the column being sorted by)
        k = keys.index(at) if at in keys else -1
        key = keys[(k + step) % len(keys)]
        self.sort_by(key, key not in ("kind", "name", "turn", "seq"))  # numbers: largest first; names, order: A first

    def action_reverse(self) -> None:
        table = self.table
        column, descending = self._wanted or (table.sort, table.descending)
        self.sort_by(column, not descending)

    def sort_by(self, column: str, descending: bool) -> None:
        """The table in this order now if it is made, else once the sort worker has made it."""
        table = self.table
        if table.orders.ready(column, descending):
            self._wanted = None
            table.sort_by(column, descending)
        else:
            self._wanted = (column, descending)
            if self._making is None:
                self._making = column
                self._make_order(table.orders, column)
        self.show_head()

    @work(thread=True, group="sort", exit_on_error=False)
    def _make_order(self, orders: SortOrders, column: str) -> None:
        orders.make(column)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "sort" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        self._making = None
        if event.state == WorkerState.ERROR:
            self._wanted = None
            self.app.notify_worker_error(event.worker)
            self.show_head()
        elif self._wanted is not None:
            self.sort_by(*self._wanted)  # the order made, or the one asked for since

    _dismissed = False

    def on_screen_resume(self) -> None:
        self._dismissed = False  # pushed again (the controller keeps one per session): dismissable once more

    def dismiss(self, result: int | None = None):
        """Once, and only while on top (as screens/modal.py's Modal: a second Enter or esc pops nothing)."""
        if self._dismissed or not self.is_attached or self.app.screen is not self:
            return None
        self._dismissed = True
        return super().dismiss(result)

    def action_jump(self) -> None:
        row = self.table.row
        if row is not None:
            self.dismiss(row.index)

    def action_close(self) -> None:
        self.dismiss(None)
