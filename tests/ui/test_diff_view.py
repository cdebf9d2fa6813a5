"""The diff explorer (`dsh-tui diff A B`): keys as data (help, palette, keymap, README), both cursors
moving together, next / previous difference, stacked when narrow. On pairs dsh's writer wrote."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsh_tui.settings import Settings
from dsh_tui.ui import keys
from dsh_tui.ui.diffapp import DiffApp
from dsh_tui.ui.actions import help_rows
from dsh_tui.ui.keydocs import TABLES, all_bindings, diff_key_table_markdown
from dsh_tui.ui.palette import diff_palette_entries
from dsh_tui.ui.screens.diff import DiffScreen
from dsh_tui.ui.widgets.diff_list import DiffList

from ..support.diffs import DIFF_CASES, built, pair_logs

pytestmark = pytest.mark.usefixtures("isolated_xdg")
README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_diff_keys_are_data():
    assert DiffScreen.BINDINGS is keys.DIFF_BINDINGS
    assert DiffList.BINDINGS is keys.LIST_BINDINGS
    assert keys.DIFF_BINDINGS in TABLES  # a keymap may name them (settings are checked against these ids)
    ids = [b.id for table in TABLES for b in table]
    assert all(ids) and len(ids) == len(set(ids))
    documented = {i for row in help_rows("diff") for i in row.ids}
    assert {b.id for b in keys.DIFF_BINDINGS} <= documented
    assert documented <= set(all_bindings())
    assert all(b.tooltip for b in keys.DIFF_BINDINGS)
    for _title, _help, action in diff_palette_entries():
        name = action.removeprefix("screen.").split("(", 1)[0]
        assert hasattr(DiffScreen, f"action_{name}"), action


def test_the_readme_has_the_diff_key_table():
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^\| group \| keys \| action \(`dsh-tui diff`\) \|\n(?:\|.*\|\n)+", text, re.MULTILINE)
    assert found is not None and found.group(0) == diff_key_table_markdown()


def _app(name: str = "args", **kw) -> DiffApp:
    result, left, right = built(*pair_logs(name)) if name != "runs" else _runs()
    return DiffApp(result, left[0], right[0], native_clipboard=False, **kw)


def _runs():
    from dsh_tui.cli import _common
    from dsh_tui.diffcmd import build, diff_parser
    args = diff_parser(_common).parse_args([str(DIFF_CASES / "resumed" / "session.jsonl.zstd"), "--runs", "--no-cache"])
    result, left, right, _l, _r = build(args)
    return result, left, right


async def test_both_cursors_move_together_and_n_steps_through_differences():
    app = _app("runs")
    result = app.result
    diffs = result.differences
    assert len(diffs) >= 2
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        left, right = app.screen.query_one("#diff-left", DiffList), app.screen.query_one("#diff-right", DiffList)
        assert left.cursor == right.cursor == result.first
        await pilot.press("n")
        assert left.cursor == right.cursor == diffs[1]
        await pilot.press("N")
        assert left.cursor == right.cursor == diffs[0]
        await pilot.press("g")
        assert left.cursor == right.cursor == 0
        await pilot.press("tab", "down")  # the right list has the focus now: the left follows it
        await pilot.pause()
        assert right.has_focus and left.cursor == right.cursor == 1
        await pilot.press("v")
        assert left.cursor == right.cursor == result.first
        assert "stopped" in str(app.screen.query_one("#diff-detail-text").render())


async def test_narrow_stacks_the_lists_and_wide_puts_them_side_by_side():
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        left, right = app.screen.query_one("#diff-left"), app.screen.query_one("#diff-right")
        assert app.screen.query_one("#diff-sides").has_class("stacked")
        assert left.region.x == right.region.x and left.region.y < right.region.y
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        assert not app.screen.query_one("#diff-sides").has_class("stacked")
        assert left.region.y == right.region.y and left.region.x < right.region.x


async def test_a_keymap_moves_a_diff_key():
    app = _app("runs", settings=Settings(keymap={"diff-next": "x"}))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        left = app.screen.query_one("#diff-left", DiffList)
        await pilot.press("x")
        assert left.cursor == app.result.differences[1]


async def test_help_lists_the_diff_keys_and_the_palette_runs_them():
    from dsh_tui.ui.screens.help import HelpScreen
    app = _app("runs")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        assert "next / previous difference" in text and "n ] N [" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        left = app.screen.query_one("#diff-left", DiffList)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Next difference" in commands
        await commands["Next difference"].callback()  # (the palette awaits it)
        await pilot.pause()
        assert left.cursor == app.result.differences[1]
