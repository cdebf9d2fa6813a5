"""SVG snapshots of the full header (H) at 80x24 and 160x45, on a delegated session whose cwd is longer
than 80 columns. Deterministic: fixed ids, times and a fixed file path (the view shows the path whole)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsh_tui.ui.app import ExplorerApp

from ..support.logs import until
from ..support.long_cwd import long_cwd_session
from .test_snapshots import SIZES
from .test_snapshots import loaded as log_loaded

pytestmark = pytest.mark.usefixtures("isolated_xdg")

ROOT = Path("/tmp/dsh-tui-snapshots/header-view")  # fixed: the file path is on screen


async def loaded(pilot) -> None:
    """The log, then the family line under the header (the lineage worker's), as drawn."""
    await log_loaded(pilot)
    app = pilot.app
    await until(app, pilot, lambda: bool(app.query_one("#header").extra), "the header's family line")
    await pilot.pause(0.05)


@pytest.fixture
def long_cwd_app() -> ExplorerApp:
    shutil.rmtree(ROOT, ignore_errors=True)
    app = ExplorerApp(long_cwd_session(ROOT), native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"
    return app


@pytest.mark.parametrize("size", SIZES)
def test_header_bar_hint(snap_compare, long_cwd_app, size):
    """The header bar cuts the delegated line and ends it with "… H" where the cwd would be."""
    assert snap_compare(long_cwd_app, terminal_size=size, run_before=loaded)


@pytest.mark.parametrize("size", SIZES)
def test_full_header_view(snap_compare, long_cwd_app, size):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("H")
        await pilot.pause()

    assert snap_compare(long_cwd_app, terminal_size=size, run_before=run_before)
