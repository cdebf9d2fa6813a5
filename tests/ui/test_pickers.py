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


def test_a_step_line_wraps_under_its_own_indent():
    """A step's line longer than the width is cut into parts that each start under the line's indent;
    the parts hold the line's words in order, and the title wraps as it is."""
    from textual.content import Content

    from dsh_tui.ui.screens.checklist import INDENT
    from dsh_tui.ui.widgets.hanging import HangingLines

    words = [f"word{k}" for k in range(40)]
    visual = HangingLines(Content("title of the step"), [Content("short"), Content(" ".join(words))], INDENT)
    for width in (20, 33, 80):
        rows = visual.laid_out(width).plain.split("\n")
        assert rows[0] == "title of the step"
        assert all(row.startswith(" " * INDENT) and len(row) <= width for row in rows[1:])
        assert rows[1].strip() == "short" and " ".join(row.strip() for row in rows[2:]).split() == words
        assert len(rows) > 3
    assert str(visual) == "title of the step\n" + " " * INDENT + "short\n" + " " * INDENT + " ".join(words)


async def test_the_ten_minute_pass_wraps_a_long_line_under_its_indent(demo):
    """At 80 columns the demo's advice (step 4) is longer than the picker: its second part starts under
    its first, not at the left edge under the step's title."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        options.highlighted = 3
        await pilot.pause()
        rows = [options.render_line(y).text for y in range(options.size.height)]
        start = next(k for k, row in enumerate(rows) if "Retry only if" in row or "durably" in row)
        assert rows[start].startswith(" " * 6) and rows[start + 1].startswith(" " * 6), rows[start - 1:start + 2]
        assert rows[start + 1].strip(), "the advice goes on on the next row"
