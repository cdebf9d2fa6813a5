"""The fleet view (`dsh-tui SCAN-FOLDER`): a scan's sessions by verdict kind and failing tool, a
per-day strip; Enter opens a session in the explorer at its verdict, back returns to the view."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")

from dsh_tui.cli import ui_target  # noqa: E402
from dsh_tui.fleet.overview import day_strip, overview  # noqa: E402
from dsh_tui.ui.app import ExplorerApp  # noqa: E402
from dsh_tui.ui.screens.fleet import FleetScreen  # noqa: E402
from tests.support.session_roots import build_root  # noqa: E402
from tests.support.app import settle  # noqa: E402
from tests.support.logs import until  # noqa: E402

from .conftest import dsh  # noqa: E402


@pytest.fixture
def scan(tmp_path, isolated_xdg):  # noqa: ARG001 - the user's dirs untouched
    built = build_root(tmp_path / "root")
    out = tmp_path / "scan"
    assert dsh("scan", str(built.root), "--out", str(out), "--quiet").returncode == 0
    return built, out


def test_a_scan_folder_opens_the_fleet_view(scan):
    _built, out = scan
    kind, path, _note, _seq = ui_target(str(out), False)
    assert kind == "fleet" and path == out
    assert ui_target(str(out.parent / "root"), False)[0] == "browse"


def test_overview_counts_match_the_tables(scan):
    built, out = scan
    v = overview(out)
    assert v.total == len(built.paths) + len(built.flat)
    assert sum(g.count for g in v.kinds) == v.failed
    kinds = {g.kind for g in v.kinds}
    assert {"TOOL_OUTCOME_UNKNOWN", "TURN_NOT_COMPLETED", "REJECTED"} <= kinds
    total, failed = day_strip(v.days, 80)
    assert len(total) == len(failed) == len([d for d in v.days if d[0] != "unknown"])


async def test_enter_opens_the_session_at_its_verdict_and_back_returns(scan):
    built, out = scan
    app = ExplorerApp(out, native_clipboard=False, detail_delay=0.01)
    app.fleet_dir = out
    async with app.run_test(size=(100, 30)) as pilot:
        await until(app, pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.view is not None, "the view")
        screen = app.screen
        labels = [g.label for g in screen.view.groups]
        k = labels.index("TOOL_OUTCOME_UNKNOWN")
        screen.groups.highlighted = k
        await until(app, pilot, lambda: screen.rows and screen.rows[0].verdict == "TOOL_OUTCOME_UNKNOWN", "the group")
        await pilot.press("tab")
        assert screen.sessions.has_focus
        row = screen.rows[0]
        await pilot.press("enter")
        await until(app, pilot, lambda: app.load_finished, "the session")
        await settle(app, pilot)
        assert str(app.path) == row.path == str(built.paths["demo"])
        assert app.log_.seq_of(app.current_index) == row.seq
        await pilot.press("b")
        await until(app, pilot, lambda: isinstance(app.screen, FleetScreen), "back")
        await pilot.press("q")
