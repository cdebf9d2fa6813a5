"""The header's activity sparkline: the session's events over its time, the cursor's moment marked,
the mark moved by a cursor move without counting the buckets again; hidden for a log without a clock."""

from __future__ import annotations

import pytest

from dsh_tui.model.diagnosing.timing import Timing
from dsh_tui.ui.widgets.sparkline import LABEL, ActivityBar

from ..support.app import make_app, ready
from ..support.logs import PARITY
from ..support.timed import give_times

pytestmark = pytest.mark.usefixtures("isolated_xdg")

TIMED = PARITY / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"


def marked(bar: ActivityBar) -> int | None:
    """The cell the reverse mark is drawn at, from the rendered row."""
    content = bar.render()
    at = [s.start for s in content.spans if "reverse" in str(s.style)]
    return at[0] - len(LABEL) if at else None


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_sparkline_marks_the_cursor_and_pushes_nothing_off(size, monkeypatch):
    app = make_app(TIMED)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        timing = give_times(app, TIMED)
        await ready(app, pilot)
        bar = app.query_one(ActivityBar)
        assert bar.display and bar.region.height == 1 and bar.region.y == app.query_one("#header").region.bottom
        text = bar.plain()
        assert text.startswith(LABEL) and text.endswith(" 2.05 s") and len(text) == size[0] - 2
        cells = bar.row.cells(bar.content_region.width)
        counted = []
        monkeypatch.setattr(Timing, "activity", lambda self, n: counted.append(n) or [1] * n)
        app.jump_to(0)
        await pilot.pause()
        assert marked(bar) == timing.position(0, cells) == 0
        app.jump_to(len(app.log_) - 1)
        await pilot.pause()
        assert marked(bar) == timing.position(len(app.log_) - 1, cells) == cells - 1
        await pilot.press("up")
        await pilot.pause(0.05)
        assert marked(bar) == timing.position(app.current_index, cells)
        assert counted == []  # a cursor move: a bisect, not a recount
        # the panes keep their rows and the footer its place
        assert app.events.region.height >= 5 and app.screen.query("StableFooter").first().region.bottom == size[1]


async def test_no_clock_no_sparkline():
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        bar = app.query_one(ActivityBar)
        bar.set_timing(Timing(missing=["a projected fixture: its events carry no times"]))
        await pilot.pause()
        assert not bar.display and bar.region.height == 0


async def test_a_short_terminal_gives_the_activity_row_to_the_events():
    app = make_app(TIMED)
    async with app.run_test(size=(80, 12)) as pilot:
        await ready(app, pilot)
        bar = app.query_one(ActivityBar)
        assert bar.has_class("-clock") and bar.region.height == 0  # a clock, but under 20 rows: no row
        assert app.events.scrollable_content_region.height >= 1
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert bar.region.height == 1


async def test_a_timing_worker_ending_as_the_app_closes_does_not_crash():
    """The worker can end after the screen's widgets are gone (the app closing under load): the
    controller then has no bar to give the timing to, and says nothing."""
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await app.query_one(ActivityBar).remove()
        timing = app.explorer.timing_view
        assert timing.bar() is None
        timing.cursor_moved(0)
        timing.reset()
        timing.log_shown()  # a worker whose result finds no bar
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
