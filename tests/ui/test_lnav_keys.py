"""The lnav / less habits in the explorer: ctrl+r for a regex in the search line (smart case, hits
highlighted and counted, a bad or catastrophic pattern a notice), ``:`` with a time or +5m."""

from __future__ import annotations

import pytest

from dsh_tui.model.presenting.summary import time_text

from ..support.app import make_app, notices, prompt, ready, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def title(app) -> str:
    return str(app.events.border_title)


def seq(app) -> int:
    return app.log_.seq_of(app.current_index)


async def test_ctrl_r_makes_the_search_a_regex_with_smart_case(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("slash", "ctrl+r")
        assert app.query_one("#prompt-label").render().plain == "regex ?"
        assert "ctrl+r literal" in prompt(app).input.placeholder
        await pilot.press(*"hel+o|wor.d", "enter")
        await settle(app, pilot)
        assert app.search.query.regex and not app.search.query.case
        assert "re:hel+o|wor.d (any case)" in title(app) and " of " in title(app)
        row = next(r for r in range(app.events.row_count()) if "hello" in app.events.row_plain(r).lower())
        segs = app.events.render_row(row, 100, False)
        match = app.events.style("eventlist--match")
        assert any("hello" in s.text.lower() and s.style == s.style + match for s in segs
                   if s.style and s.style.reverse)
        await pilot.press("slash")
        assert app.query_one("#prompt-label").render().plain.startswith("regex")  # the mode stays
        await pilot.press("ctrl+r", *"hel+o", "enter")
        await settle(app, pilot)
        assert app.search.query.text == "hel+o" and not app.search.query.regex


async def test_a_bad_pattern_is_a_notice_and_a_catastrophic_one_does_not_hang(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        at = app.current_index
        await pilot.press("slash", "ctrl+r", *"bash(", "enter")
        await settle(app, pilot)
        assert any(n.startswith("not a valid regex") for n in notices(app)), notices(app)
        assert app.current_index == at and app.is_running
        await pilot.press("slash", *"(.|..)*$x", "enter")  # exponential backtracking on every record
        await settle(app, pilot)
        assert any("took too long" in n for n in notices(app)), notices(app)
        assert app.is_running and not app.search.searching


async def test_colon_takes_a_time_or_an_offset(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        log = app.log_
        t0 = log.event(0).time
        i = next(k for k in range(len(log)) if (log.event(k).time or 0) >= t0 + 60_000)
        await pilot.press("colon", *"+1m", "enter")
        await settle(app, pilot)
        assert app.current_index == i
        clock = time_text(log.event(i).time)[:8]
        app.jump_to(0)
        await settle(app, pilot)
        await pilot.press("colon", *clock, "enter")
        await settle(app, pilot)
        assert log.event(app.current_index).time >= log.event(i).time - 999
        await pilot.press("colon", *"+100h", "enter")
        await settle(app, pilot)
        assert app.current_index == len(log) - 1 and any("after the session's last event" in n for n in notices(app))
        await pilot.press("colon", *"soon", "enter")
        await settle(app, pilot)
        assert any(n.startswith("not a seq, a time") for n in notices(app))
