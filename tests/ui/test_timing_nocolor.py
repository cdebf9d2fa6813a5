"""NO_COLOR in the timing view and the activity sparkline: every text cell stays readable, the selected
row's spans in the waterfall are told apart by their texture (▓), and the sparkline's cursor mark by
reverse, not by a colour NO_COLOR greys."""

from __future__ import annotations

import pytest

from dsh_tui.ui.widgets.sparkline import ActivityBar

from ..support.app import make_app, ready
from ..support.logs import PARITY
from ..support.timed import give_times
from .test_nocolor import hard_to_read

pytestmark = pytest.mark.usefixtures("isolated_xdg")

TIMED = PARITY / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_no_color_timing_view_and_sparkline(monkeypatch, size):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(TIMED)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        give_times(app, TIMED)
        await ready(app, pilot)
        bar = app.query_one(ActivityBar)
        assert any("reverse" in str(s.style) for s in bar.render().spans)
        assert hard_to_read(app, app.query_one("#header").region) == []
        await pilot.press("T")
        await pilot.pause()
        water = app.screen.query_one("#waterfall")
        drawn = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "▓" in drawn and "█" in drawn  # the slowest row's spans apart from the others'
        assert "▓" not in water.plain()  # a texture of the drawing, not of the text
        assert hard_to_read(app) == []
