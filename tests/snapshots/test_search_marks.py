"""SVG snapshots of search, marks and filter chips at 80x24 and 160x45 (the demo log, as test_snapshots.py).

Regenerate with ``pytest tests/snapshots/test_search_marks.py --snapshot-update`` (and look at each SVG).
"""

from __future__ import annotations

import pytest

from .test_snapshots import SIZES, loaded

pytestmark = pytest.mark.usefixtures("isolated_xdg")


@pytest.mark.parametrize("size", SIZES)
def test_search_count_and_highlight(snap_compare, demo_app, size):
    """/bash on the crash log: up from the verdict, "11 of 12" in the events title, the matches highlighted."""
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("slash", *"bash", "enter")
        await loaded(pilot)

    assert snap_compare(demo_app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_marks_and_filter_chips_bar(snap_compare, demo_app, size):
    """A mark on the verdict, a chip hiding the chunk deltas (on) and one showing only "deploy" (off)."""
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("m", "minus", *"type:assistant/chunk", "enter")
        await loaded(pilot)
        await pilot.press("plus", *"deploy", "enter")
        await loaded(pilot)
        await pilot.press("x", "down", "space", "escape")
        await loaded(pilot)

    assert snap_compare(demo_app, terminal_size=size, run_before=run_before)
