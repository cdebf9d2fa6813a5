"""SVG snapshots of the timing view (T) with the waterfall of the slowest row's turn, at 80x24 and 160x45,
on the log dsh's writer wrote with known sleeps (tests/parity/timing), its events' times given to the
session (support/timed.py: the diagnosis's own timing once the scan keeps the times). Deterministic: the
log's own times, the default theme, the loader, the timing worker and the detail pane awaited."""

from __future__ import annotations

import pytest

from dsh_tui.ui.app import ExplorerApp

from ..support.logs import PARITY
from ..support.timed import give_times
from .test_snapshots import SIZES, loaded

pytestmark = pytest.mark.usefixtures("isolated_xdg")

TIMED = PARITY / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"


@pytest.mark.parametrize("size", SIZES)
def test_timing_view_and_waterfall(snap_compare, size):
    app = ExplorerApp(TIMED, native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"

    async def run_before(pilot) -> None:
        await loaded(pilot)
        give_times(pilot.app, TIMED)
        await loaded(pilot)
        await pilot.press("T")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_activity_sparkline_in_the_header(snap_compare, size):
    app = ExplorerApp(TIMED, native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"

    async def run_before(pilot) -> None:
        await loaded(pilot)
        give_times(pilot.app, TIMED)
        await loaded(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
