"""Filter chips (controllers/chips.py): + and - add include / exclude chips from the docked prompt, the bar
shows them with the marks and the count in view, x toggles and removes, and they narrow f's filter."""

from __future__ import annotations

import pytest

from dsh_tui.ui.screens.chips import ChipsScreen

from ..support.app import make_app, notices, ready, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def types_shown(app) -> set[str]:
    src = app.events.source
    return {app.log_.event(src.index(r)).type for r in range(len(src))}


def bar(app) -> str:
    return app.query_one("#chips").render().plain


async def test_plus_and_minus_stack_chips_and_the_bar_shows_them(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        assert not app.query_one("#chips").display  # no chips, no marks: no bar
        await pilot.press("plus")
        assert app.query_one("#prompt-label").render().plain == "+"
        await pilot.press(*"type:tool/*", "enter")
        await settle(app, pilot)
        assert types_shown(app) and all(t.startswith("tool/") for t in types_shown(app))
        n_tools = len(app.events.source)
        await pilot.press("minus", *"bash", "enter")  # a text chip: a whole-log search in the worker
        await settle(app, pilot)
        assert 0 < len(app.events.source) < n_tools
        assert all("bash" not in bytes(app.log_.event(app.events.source.index(r)).raw).decode().lower()
                   for r in range(len(app.events.source)))
        assert app.query_one("#chips").display
        text = bar(app)
        assert f"{len(app.events.source):,} of {len(app.log_):,} events" in text
        assert "+type:tool/*" in text and "-text:bash" in text
        assert "+type:tool/* -text:bash" in str(app.events.border_title)


async def test_x_toggles_and_removes_chips(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("minus", *"type:assistant/chunk", "enter")
        await settle(app, pilot)
        assert "assistant/chunk" not in types_shown(app)
        await pilot.press("x")
        assert isinstance(app.screen, ChipsScreen)
        await pilot.press("space", "escape")  # off: every event again, the chip kept
        await settle(app, pilot)
        assert len(app.events.source) == len(app.log_) and len(app.explorer.chips.chips) == 1 and not app.explorer.chips.chips[0].on
        await pilot.press("x", "delete")  # the last chip removed: the window closes
        await settle(app, pilot)
        assert not isinstance(app.screen, ChipsScreen) and app.explorer.chips.chips == []
        assert not app.query_one("#chips").display


async def test_chips_narrow_the_f_filter_and_a_bad_chip_is_refused(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        app.explorer.filters.apply("pairs", "pairs", app.current_index)
        await settle(app, pilot)
        pairs = set(app.events.source.indices)
        await pilot.press("minus", *"type:tool/result", "enter")
        await settle(app, pilot)
        shown = set(app.events.source.indices)
        assert shown and shown < pairs and "tool/result" not in types_shown(app)
        await pilot.press("F")  # the filter cleared: the chip alone
        await settle(app, pilot)
        assert set(app.events.source.indices) > shown and "tool/result" not in types_shown(app)
        await pilot.press("plus", *"type:", "enter")
        await settle(app, pilot)
        assert any("needs something to match" in n for n in notices(app)) and len(app.explorer.chips.chips) == 1


async def test_the_bar_counts_marks(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("m")
        assert app.query_one("#chips").display and "● 1 mark" in bar(app)
