"""The pretty/raw toggle (r): the rows show each event's raw record, sanitised to one line, and the events
title says so; r again brings the summaries back."""

from __future__ import annotations

import pytest

from ..support.app import make_app, ready, settle
from .test_copy_keys import crafted  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def test_r_shows_raw_records_and_back(demo):
    app = make_app(demo)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(app, pilot)
        row = app.events.cursor
        pretty = app.events.row_plain(row)
        await pilot.press("r")
        await settle(app, pilot)
        raw = app.events.row_plain(row)
        assert '{"type":"tool/call"' in raw.replace(" ", "") and raw != pretty
        assert "raw records" in str(app.events.border_title)
        assert "\n" not in raw and "\x1b" not in raw
        await pilot.press("r")
        await settle(app, pilot)
        assert app.events.row_plain(row) == pretty and "raw" not in str(app.events.border_title)


async def test_raw_rows_of_a_hostile_log_hold_no_terminal_controls(crafted):  # noqa: F811
    app = make_app(crafted)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("r")
        rows = [app.events.row_plain(r) for r in range(app.events.row_count())]
        assert any("pwned" in r for r in rows)  # the record with the escape sequence is shown
        assert not any(set(r) & set("\x1b\x07\x9b\u202e\r\n") for r in rows)
