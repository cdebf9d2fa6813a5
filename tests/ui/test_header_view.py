"""H: the full header over the explorer (every field, the whole cwd, the raw header line), y copies that line;
the header bar says the full header is one key away when it cuts the cwd line; checklist step 1 names the cwd."""

from __future__ import annotations

import json

import pytest

from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checklist import ten_minute_pass
from dsh_tui.model.reading.session import load_session
from dsh_tui.ui.screens.header import HeaderScreen
from dsh_tui.ui.screens.report import ReportModal

from ..support.app import make_app, ready, settle
from ..support.long_cwd import LONG_CWD, LONG_ID, PARENT_ID, long_cwd_session

pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def test_h_opens_the_full_header_and_y_copies_the_raw_line(tmp_path):
    path = long_cwd_session(tmp_path / "sessions")
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        bar = app.query_one("#header").plain().splitlines()
        cut = next(line for line in bar if "DELEGATED" in line)
        assert cut.endswith("… H") and LONG_CWD not in app.query_one("#header").plain()  # cut, and says so
        await pilot.press("H")
        await pilot.pause()
        assert isinstance(app.screen, HeaderScreen)
        view = app.screen.query_one("#header-view")
        lines = view.plain_lines()
        assert f"cwd: {LONG_CWD}" in lines and f"parentSession: {PARENT_ID}" in lines
        assert "delegationDepth: 1" in lines and "origin: subagent" in lines
        raw = lines[lines.index("▌Raw header line") + 1]
        assert json.loads(raw)["cwd"] == LONG_CWD
        assert app.focused is view  # its keys scroll it
        await pilot.press("end")
        await pilot.pause()
        assert view.scroll_offset.y > 0  # longer than the window at 80x24
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, ReportModal)  # the one copy path's window
        assert json.loads(app.screen.text)["id"] == LONG_ID
        assert json.loads(app.clipboard)["cwd"] == LONG_CWD and app.screen.result.path is None  # no file
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HeaderScreen)
        await pilot.press("H")  # H closes it too (as do esc and q)
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
        await pilot.press("H", "q")
        await pilot.pause()
        assert app.screen is app.screen_stack[0] and app.return_code is None  # q closed the window, not the app


async def test_a_wide_header_bar_shows_the_whole_cwd_and_no_hint(tmp_path):
    path = long_cwd_session(tmp_path / "sessions")
    app = make_app(path)
    async with app.run_test(size=(300, 40)) as pilot:
        await ready(app, pilot)
        text = app.query_one("#header").plain()
        assert LONG_CWD in text and "… H" not in text


def test_checklist_step_one_names_the_cwd(tmp_path):
    log = load_session(long_cwd_session(tmp_path / "sessions"))
    step = ten_minute_pass(log, diagnose(log))[0]
    assert f"cwd {LONG_CWD}" in step.lines
