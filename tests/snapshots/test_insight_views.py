"""SVG snapshots of the context (C), request header (I), files (D) and JSON tree (J) views at 80x24 and
160x45, on the log dsh's writer wrote with a prune, a compaction, a header change and fs edits (the
committed tests/parity/context log: fixed ids and times). The views' workers are awaited."""

from __future__ import annotations

import time

import pytest

from dsh_tui.ui.app import ExplorerApp
from dsh_tui.ui.widgets.textrows import TextRows

from ..support.logs import PARITY
from .test_snapshots import SIZES, loaded

pytestmark = pytest.mark.usefixtures("isolated_xdg")

CASE = PARITY / "context" / "root" / "--home-user-context--" / "context" / "session.jsonl.zstd"


def app_for() -> ExplorerApp:
    app = ExplorerApp(CASE, native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"
    return app


def opened(seq: int, *keys: str):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        app = pilot.app
        app.jump_to(app.log_.index_of_seq(seq))
        await pilot.pause()
        await pilot.press(*keys)
        deadline = time.monotonic() + 30
        while True:
            await app.workers.wait_for_complete()
            await pilot.pause(0.02)
            rows = app.screen.query(TextRows)
            chart = app.screen.query("#context-chart")
            if (not rows or rows.first().rows) and (not chart or chart.first().reqs):
                break
            assert time.monotonic() < deadline, "the view never filled"
        await pilot.pause()
    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_context_view(snap_compare, size):
    assert snap_compare(app_for(), terminal_size=size, run_before=opened(50, "X"))


@pytest.mark.parametrize("size", SIZES)
def test_request_view(snap_compare, size):
    assert snap_compare(app_for(), terminal_size=size, run_before=opened(16, "I"))


@pytest.mark.parametrize("size", SIZES)
def test_files_view(snap_compare, size):
    assert snap_compare(app_for(), terminal_size=size, run_before=opened(16, "D", "j", "enter"))


@pytest.mark.parametrize("size", SIZES)
def test_json_tree_view(snap_compare, size):
    assert snap_compare(app_for(), terminal_size=size, run_before=opened(11, "J", *"jjjjjjjjj", "L"))
