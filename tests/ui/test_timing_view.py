"""The timing view (T): slowest first, any column sorted (s S r), the waterfall of the row's turn,
Enter jumps to the row's event and closes, esc / q / T close. On the log dsh's writer wrote with known
sleeps (tests/parity/timing), its events' times given to the explorer's session (support/timed.py)."""

from __future__ import annotations

import threading
import time

import pytest
from textual.content import Content

from dsh_tui.model.presenting.timing_view import row_cells
from dsh_tui.ui.screens.explorer import ExplorerScreen
from dsh_tui.ui.screens.timing import TimingScreen

from ..support.app import make_app, ready
from ..support.logs import PARITY
from ..support.timed import give_times

pytestmark = pytest.mark.usefixtures("isolated_xdg")

TIMED = PARITY / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"


def plain(widget) -> str:
    r = widget.render()
    return r.plain if isinstance(r, Content) else str(r)


async def open_view(app, pilot):
    await pilot.press("T")
    await pilot.pause()
    assert isinstance(app.screen, TimingScreen)
    return app.screen


async def open_timed_view(app, pilot):
    """The view over TIMED with its events' times given (support/timed.py): (the timing, the view)."""
    await ready(app, pilot)
    timing = give_times(app, TIMED)
    await ready(app, pilot)
    return timing, await open_view(app, pilot)


async def test_slowest_first_sort_by_any_column_and_the_waterfall():
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        timing, view = await open_timed_view(app, pilot)
        table = view.table
        durations = [r.duration_ms for r in table.rows]
        assert durations == sorted(durations, reverse=True) and len(durations) == 5
        assert "slowest first" in plain(view.query_one("#timing-head"))
        assert "total▼" in plain(view.query_one("#timing-cols"))
        # the slowest: step 2's model call (a 400 ms stall inside its packed row); its turn's waterfall
        assert (table.row.kind, table.row.step) == ("model", 2)
        water = view.query_one("#waterfall").plain().splitlines()
        assert water[0].startswith("turn 1 · completed · ") and "approval" in water[0]
        assert [w[:9].strip() for w in water[1:6]] == ["TTFT", "decoding", "tool", "approval", "retry"]
        assert all(len(w) <= 78 for w in water[1:]) and all(w[10:].strip() for w in water[1:6])  # every lane drawn
        slowest = table.row
        await pilot.press("end")  # from the last row: a new order still opens at its top
        await pilot.press("s")  # the next column: TTFT, largest first
        await pilot.pause()
        assert table.sort == "ttft_ms" and "TTFT▼" in plain(view.query_one("#timing-cols"))
        assert table.rows[0].ttft_ms == max(c.ttft_ms for c in timing.calls) and table.rows[0].step == 1
        assert table.cursor == 0 and table.scroll_offset.y == 0 and table.row == table.rows[0] != slowest
        await pilot.press("end", "r")
        await pilot.pause()
        assert table.cursor == 0 and table.scroll_offset.y == 0
        assert table.sort == "ttft_ms" and not table.descending and "TTFT▲" in plain(view.query_one("#timing-cols"))
        assert [r.ttft_ms for r in table.rows][:3] == sorted(c.ttft_ms for c in timing.calls)
        assert table.rows[-1].ttft_ms is None  # rows without a value (tools, commands) come last either way
        await pilot.press("S", "S")  # back past total to the name
        await pilot.pause()
        assert table.sort == "name"


async def test_enter_jumps_to_the_rows_event_and_closes():
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        _timing, view = await open_timed_view(app, pilot)
        await pilot.press("down")  # the tool call, second slowest
        await pilot.pause()
        row = view.table.row
        assert row.kind == "tool" and row.call_id == "call_timed_ls"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExplorerScreen) and app.current_index == row.index
        assert app.log_.seq_of(app.current_index) == 35


@pytest.mark.parametrize("key", ["escape", "q", "T"])
async def test_esc_q_and_T_close_without_moving(key):
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        before = app.current_index
        view = await open_view(app, pilot)
        await pilot.press(key)
        await pilot.pause()
        assert app.screen is not view and isinstance(app.screen, ExplorerScreen) and app.current_index == before


async def test_T_again_opens_the_view_as_it_was_left_and_a_new_session_gets_its_own():
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        _timing, view = await open_timed_view(app, pilot)
        await pilot.press("s", "down", "escape")
        await pilot.pause()
        row = view.table.row
        again = await open_view(app, pilot)
        assert again is view and view.table.sort == "ttft_ms" and view.table.row == row
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ExplorerScreen)
        view.dismiss(3)  # a late second dismissal (a key typed twice) pops nothing
        await pilot.pause()
        assert isinstance(app.screen, ExplorerScreen) and app.current_index != 3
        app.explorer.reset_explorer(TIMED, None)  # another session (here: the same file read again)
        app.explorer.load()
        await ready(app, pilot)
        fresh = await open_view(app, pilot)
        assert fresh is not view and fresh.table.sort == "duration_ms"


async def test_a_big_tables_column_is_sorted_in_a_worker_the_last_asked_for_shown(monkeypatch):
    """Past EAGER_ROWS a column's order is made on its first sort, in a worker (~1 s at 240k rows): the
    head says so meanwhile, the keys typed meanwhile are not lost, and the last order asked for shows."""
    from dsh_tui.model.diagnosing.timerows import sort_rows
    from dsh_tui.model.presenting import timing_rows
    monkeypatch.setattr(timing_rows, "EAGER_ROWS", 0)
    gate, made = threading.Event(), []
    make = timing_rows.SortOrders.make

    def held(self, column):
        assert gate.wait(10)
        made.append(column)
        make(self, column)
    monkeypatch.setattr(timing_rows.SortOrders, "make", held)
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        timing, view = await open_timed_view(app, pilot)
        table = view.table
        every = list(table.rows)
        await pilot.press("r")  # the default order, reversed: made ahead both ways
        await pilot.pause()
        assert not table.descending and made == [] and "sorting" not in plain(view.query_one("#timing-head"))
        await pilot.press("r", "s")
        await pilot.pause()
        assert table.sort == "duration_ms" and "sorting by TTFT ▼…" in plain(view.query_one("#timing-head"))
        await pilot.press("s", "r")  # asked for while TTFT is being made: the next column, smallest first
        await pilot.pause()
        assert "sorting by decode ▲…" in plain(view.query_one("#timing-head"))
        gate.set()
        deadline = time.monotonic() + 10
        while table.sort != "decode_ms" or "sorting" in plain(view.query_one("#timing-head")):
            assert time.monotonic() < deadline, "the sort asked for last never showed"
            await pilot.pause(0.02)
        assert made == ["ttft_ms", "decode_ms"] and not table.descending  # a column at a time, none twice
        assert list(table.rows) == sort_rows(every, "decode_ms", False) and len(timing.calls)
        await pilot.press("S")  # TTFT, made on the way: at once
        await pilot.pause()
        assert table.sort == "ttft_ms" and made == ["ttft_ms", "decode_ms"]
        assert list(table.rows) == sort_rows(every, "ttft_ms", True)


@pytest.mark.fast_render("the screen is started ahead through Textual's private calls (compat/premount.py); "
                        "the stock render starts it on the first T, as before")
async def test_the_view_is_started_once_the_timing_is_made_and_T_only_pushes_it(monkeypatch):
    composed = []
    compose = TimingScreen.compose
    monkeypatch.setattr(TimingScreen, "compose", lambda self: composed.append(self) or compose(self))
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        deadline = time.monotonic() + 10
        while app.explorer.timing_view.started is None:  # the timing worker, then the screen started while no key is typed
            assert time.monotonic() < deadline, "the timing view was not started ahead of T"
            await pilot.pause(0.02)
        view = app.explorer.timing_view.started
        assert composed == [view] and view.is_running and view not in app.screen_stack
        assert view.size == app.size and view.table.size.width > 0  # laid out at the app's size
        table = view.table
        assert table.orders is app.explorer.timing_view.orders and table.orders.rows is table.rows  # sorted by the worker
        assert await open_view(app, pilot) is view
        assert composed == [view] and view.table is table and table.has_focus
        await pilot.press("escape")
        await pilot.pause()
        app.explorer.reset_explorer(TIMED, None)  # another session: the old view is dropped, and stopped
        app.explorer.load()
        await ready(app, pilot)
        assert not view.is_running and not app.is_screen_installed(view)


async def test_a_new_timing_while_the_view_is_open_leaves_it_open_and_T_later_shows_the_new_one():
    """Live follow makes a new timing (its worker, then the screen started ahead): the open view stays."""
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        view = await open_view(app, pilot)
        app.diag.__dict__["timing"] = timing = type(app.diag.timing).from_plain(app.diag.timing.plain())
        app.explorer.timing_view.log_shown()  # as a grown log's: the worker, then the screen prepared
        await ready(app, pilot)
        await pilot.pause(0.3)
        assert app.screen is view and app._exception is None
        await pilot.press("escape")
        await pilot.pause()
        fresh = await open_view(app, pilot)
        assert fresh is not view and fresh.timing is timing


async def test_a_tool_call_the_log_has_no_result_for_reads_no_result(demo):
    """The demo's crash stranded call_05_deploy: its total says why it has none (not "no clock")."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        table = (await open_view(app, pilot)).table
        k = next(k for k, r in enumerate(table.rows) if r.call_id == "call_05_deploy")
        line = "".join(s.text for s in table.render_row(k, table.scrollable_content_region.width, False))
        assert "no result" in line and "no clock" not in line and table.rows[k].duration_ms is None


async def test_a_log_without_its_clock_reads_no_clock():
    """The timing the scan gives a log (times or not): where a time is missing the view says "no clock",
    never 0, and the waterfall says why."""
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        app.diag.__dict__["timing"] = timing = type(app.diag.timing).from_plain(app.diag.timing.plain())
        timing.calls = list(timing.calls)  # records to change in place: a packed list makes them anew on each read
        timing.turns = list(timing.turns)  # (and so does the turns')
        for c in timing.calls:  # as a log whose events carry no time
            c.start = c.first_output = c.last_output = c.end = c.attempt_start = None
        for t in timing.turns:
            t.start = t.end = None
            t.missing = ["its turn/end has no time"]
        view = await open_view(app, pilot)
        first = [r for r in view.table.rows if r.kind == "model"][0]
        view.table.move_to(view.table.rows.index(first))
        await pilot.pause()
        line = "".join(t for t, _ in row_cells(first, 78))
        assert line.count("no clock") == 3 and " 0 ms" not in line
        assert "no clock: its turn/end has no time" in view.query_one("#waterfall").plain()
