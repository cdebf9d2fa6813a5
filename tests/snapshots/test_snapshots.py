"""SVG snapshots of the explorer at 80x24 and 160x45 (pytest-textual-snapshot).

Deterministic: the demo log (fixed ids, times and createdAt) under a fixed file
name, the default theme, no clock on screen, no blinking cursor, and the loader
and the debounced detail pane awaited before the screenshot.
Regenerate with ``pytest tests/snapshots --snapshot-update``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dsh_tui.ui.app import ExplorerApp

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def loaded(pilot) -> None:
    app = pilot.app
    deadline = time.monotonic() + 30
    while not app.load_finished:  # run_before may start before on_mount started the loader
        assert time.monotonic() < deadline and app._exception is None, "the log never loaded"
        await app.workers.wait_for_complete()
        await pilot.pause(0.01)
    await pilot.pause()
    await pilot.pause(0.05)
    app.flush_detail()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_crash_verdict(snap_compare, demo_app, size):
    assert snap_compare(demo_app, terminal_size=size, run_before=loaded)


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(snap_compare, demo_app, size):
    assert snap_compare(demo_app, terminal_size=size, run_before=loaded, press=["question_mark"])


@pytest.mark.parametrize("size", SIZES)
def test_diff_detail(snap_compare, demo_app, size):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        app = pilot.app
        app.jump_to(app.log_.index_of_seq(132))  # the two-hunk edit of src/app.py
        await loaded(pilot)
        app.detail.focus()
        if size[0] < 120:  # the stacked detail pane is short: zoom it, as a user would (z)
            await pilot.press("z")
        await pilot.pause()

    assert snap_compare(demo_app, terminal_size=size, run_before=run_before)


PARITY = Path(__file__).resolve().parents[1] / "parity" / "cases" / "zstd" / "--home-user-parity--"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("case", ["src-fork", "resumed-crashed-again"])
def test_fork_and_resumed_session(snap_compare, case, size):
    """A user fork (FORK of its source at seq 22, the seed rows marked, its source apart from children)
    and a session dsh resumed after a crash it repaired, crashed again: the verdict is the latest run's."""
    app = ExplorerApp(PARITY / case / "session.jsonl.zstd", native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"
    assert snap_compare(app, terminal_size=size, run_before=loaded)
