"""Tiny terminals: every pane shown keeps rows (P at 40x12 left the events and the pairs none), the
events list keeps 6 rows with P at 80x24 (it had 3), and the footer shows no stray
letter of the keys scrolled under the palette key ("^p palettep" at 40 columns)."""

from __future__ import annotations

import pytest

from ..support.app import bottom_row, make_app, ready

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def rows(widget) -> int:
    """The rows a pane shows under its titled rule (0 when hidden)."""
    return max(0, widget.region.height - 1) if widget.display else 0


@pytest.mark.parametrize("size, events_min, pairs_min", [((40, 12), 2, 1), ((50, 12), 2, 1), ((80, 24), 6, 2)])
async def test_P_leaves_every_pane_rows(demo, size, events_min, pairs_min):
    app = make_app(demo)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        await pilot.press("P")
        await pilot.pause()
        assert rows(app.events) >= events_min and rows(app.pairs_pane) >= pairs_min
        top = app.events.scroll_offset.y
        assert top <= app.events.cursor < top + rows(app.events)  # the cursor's row is one of them
        await pilot.press("P")  # back: the detail pane again
        await pilot.pause()
        assert rows(app.events) >= 2 and rows(app.detail) >= 1


@pytest.mark.parametrize("width", [40, 50, 60, 80])
async def test_the_footer_ends_with_the_palette_key(demo, width):
    app = make_app(demo)
    async with app.run_test(size=(width, 12)) as pilot:
        await ready(app, pilot)
        assert bottom_row(app).rstrip().endswith("▏^p palette")
