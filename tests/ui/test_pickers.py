"""The pickers (anomaly kind, filter, checklist, chips, children) move with j / k as the explorer's lists
do (the anomaly picker ignored them)."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from dsh_tui.ui.screens.anomaly_kind import AnomalyKindScreen
from dsh_tui.ui.screens.checklist import ChecklistScreen
from dsh_tui.ui.screens.filter import FilterScreen

from ..support.app import make_app, ready

pytestmark = pytest.mark.usefixtures("isolated_xdg")


@pytest.mark.parametrize("key, screen", [("a", AnomalyKindScreen), ("f", FilterScreen), ("t", ChecklistScreen)])
async def test_j_and_k_move_in_a_picker(demo, key, screen):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, screen)
        options = app.screen.query_one(OptionList)
        start = options.highlighted
        await pilot.press("j", "j")
        await pilot.pause()
        assert options.highlighted == start + 2
        await pilot.press("k")
        await pilot.pause()
        assert options.highlighted == start + 1


async def test_j_picks_the_next_anomaly_kind(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("a", "j", "enter")  # the row under "any": error results
        await pilot.pause()
        assert app.explorer.anomalies.kind == "error"
