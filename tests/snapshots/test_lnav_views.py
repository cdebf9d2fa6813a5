"""SVG snapshots at 80x24 of the lnav / less habits: a regex search (ctrl+r), the rows' text scrolled
(>), a pipe's output window (|) and the merged timeline of a parent and its children (C).

Regenerate with ``pytest tests/snapshots/test_lnav_views.py --snapshot-update`` (and look at each SVG).
"""

from __future__ import annotations

import time

import pytest

from dsh_tui.ui.app import ExplorerApp

from ..support.session_roots import build_tree_family
from .test_snapshots import loaded

pytestmark = pytest.mark.usefixtures("isolated_xdg")
SIZE = (80, 24)


async def _until(pilot, cond) -> None:
    deadline = time.monotonic() + 30
    while not cond():
        assert time.monotonic() < deadline and pilot.app._exception is None
        await pilot.pause(0.02)
    await pilot.pause(0.05)


def test_regex_search(snap_compare, demo_app):
    """/ ctrl+r call_0[56]_\\w+: the regex's hits highlighted in the rows, "re:... k of n" in the title."""
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("slash", "ctrl+r", *r"call_0[56]_\w+", "enter")
        await loaded(pilot)

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_rows_text_scrolled(snap_compare, demo_app):
    """> twice: the rows' text from column 41, « on each row, the columns kept, the title says so."""
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await loaded(pilot)

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_pipe_output_window(snap_compare, demo_app):
    """| with a command: its output, its exit status and the records it got, in a window."""
    from dsh_tui.ui.screens.output import OutputModal

    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("vertical_line", *"wc -l; printf 'done\\n'", "enter")
        await _until(pilot, lambda: isinstance(pilot.app.screen, OutputModal))

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_merged_timeline(snap_compare, tmp_path):
    """C on a parent with two children and a grandchild: one list by time, each row tagged."""
    paths = build_tree_family(tmp_path / "dsh" / "sessions")
    app = ExplorerApp(paths["parent"], native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"

    async def run_before(pilot) -> None:
        await loaded(pilot)
        await _until(pilot, lambda: app.explorer.family.lineage is not None)
        await pilot.press("C")
        await _until(pilot, lambda: app.explorer.timeline.timeline is not None)
        await pilot.press("home")
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
