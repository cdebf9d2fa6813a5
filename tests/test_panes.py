"""The explorer's panes (widgets/pane.py): component styles resolved once per change, not per frame."""

from __future__ import annotations

import pytest

from .test_app import demo, make_app, ready  # noqa: F401  (fixtures)

pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def test_the_styles_a_pane_paints_with_are_the_current_ones_after_every_kind_of_change(demo):
    app = make_app(demo)
    async with app.run_test(size=(130, 30)) as pilot:
        await ready(app, pilot)

        async def check(after: str) -> None:
            await pilot.pause(0.05)
            for pane in (app.events, app.pairs_pane, app.detail):
                if not pane.display or not pane.size.area:  # not painted (the pairs pane when narrow)
                    continue
                fresh = {name: pane.get_component_rich_style(name) for name in pane._styles}
                assert pane._base == pane.rich_style and pane._styles == fresh, (after, pane.id)

        await check("start")
        cursor = app.events._styles["vlist--cursor"]
        await pilot.press("tab")  # events -> pairs: the events cursor loses its focused look
        await check("tab")
        assert app.events._styles["vlist--cursor"] != cursor
        await pilot.press("shift+tab", "colon")  # the prompt: the events list keeps its focused look
        await check("prompt open")
        assert app.events._styles["vlist--cursor"] == cursor
        await pilot.press("escape")
        await check("prompt closed")
        await pilot.press("colon", "shift+tab")  # the focus leaves the prompt elsewhere: the look goes
        await check("prompt left by tab")
        assert app.focused is not app.events and app.events._styles["vlist--cursor"] != cursor
        app.theme = "textual-light"
        await check("theme")
        assert app.events._styles["vlist--cursor"] != cursor
        await pilot.press("z")
        await check("zoom")
        await pilot.press("z")
        await pilot.resize_terminal(100, 30)  # narrow: the panes stack, the screen's classes change
        await check("narrow")
