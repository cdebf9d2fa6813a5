"""The context (C), request header (I), files (D) and JSON tree (J) views, on the log dsh's writer wrote
with a prune, a compaction, a header change and fs edits (tests/parity/write_context.mjs)."""

from __future__ import annotations

import json

import pytest

from dsh_tui.ui import keys
from dsh_tui.ui.screens.context import ContextScreen, TokenChart
from dsh_tui.ui.screens.files import FilesScreen
from dsh_tui.ui.screens.jsontree import JsonTreeScreen, TreeList
from dsh_tui.ui.screens.explorer import ExplorerScreen
from dsh_tui.ui.screens.requests import RequestsScreen
from dsh_tui.ui.widgets.textrows import TextRows

from ..support.app import make_app, ready
from ..support.logs import PARITY, until

pytestmark = pytest.mark.usefixtures("isolated_xdg")

CASE = PARITY / "context" / "root" / "--home-user-context--" / "context" / "session.jsonl.zstd"


def test_the_views_use_the_tables_the_help_is_built_from():
    assert JsonTreeScreen.BINDINGS is keys.JSON_TREE_BINDINGS
    assert TreeList.BINDINGS[-len(keys.JSON_TREE_LIST_BINDINGS):] == keys.JSON_TREE_LIST_BINDINGS
    assert ContextScreen.BINDINGS is keys.CONTEXT_BINDINGS and TokenChart.BINDINGS is keys.CHART_BINDINGS
    assert RequestsScreen.BINDINGS is keys.REQUESTS_BINDINGS and FilesScreen.BINDINGS is keys.FILES_BINDINGS


async def filled(app, pilot, screen_type):
    await until(app, pilot, lambda: isinstance(app.screen, screen_type), screen_type.__name__)
    rows = app.screen.query_one(TextRows)
    await until(app, pilot, lambda: bool(rows.rows), "its rows")
    return app.screen, rows


async def test_context_view_shows_the_fold_and_enter_on_a_bar_jumps_to_its_request():
    app = make_app(CASE)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        app.jump_to(app.log_.index_of_seq(57))
        await pilot.pause()
        await pilot.press("X")
        view, rows = await filled(app, pilot, ContextScreen)
        text = [r[0] for r in rows.rows]
        assert any("shadowed  seq       1" in t and "compaction cmp-ctx-1" in t for t in text)
        assert any("shadowed  seq       6" in t and "by seq 41 (prune)" in t for t in text)
        assert any("replaced seqs 1, 4, 41, 10, 12" in t for t in text)
        chart = view.query_one(TokenChart)
        await until(app, pilot, lambda: bool(chart.reqs), "the chart")
        assert len(chart.starts) == 9  # nine requests, one column each at 80 columns
        await pilot.press("tab")
        assert chart.has_focus
        await pilot.press("left", "left", "enter")
        await until(app, pilot, lambda: isinstance(app.screen, ExplorerScreen), "the explorer")
        assert app.log_.seq_of(app.current_index) == 37  # the seventh request, two bars left of the last


async def test_request_view_shows_the_changes_and_the_header_in_force():
    app = make_app(CASE)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        app.jump_to(app.log_.index_of_seq(16))  # the edit call: offered by the header at seq 9
        await pilot.pause()
        await pilot.press("I")
        view, rows = await filled(app, pilot, RequestsScreen)
        text = [r[0] for r in rows.rows]
        assert text[0].startswith("in force at the cursor: header seq 9 (change): bash, edit, read")
        assert "+ tools edit" in " ".join(text) and "- tools write" in " ".join(text)
        assert rows.rows[rows.cursor][2] == app.log_.index_of_seq(9)
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, JsonTreeScreen), "the header as a tree")
        await pilot.press("p")  # its copy keys go through the explorer's copy path, as J's do
        await until(app, pilot, lambda: app.clipboard == "$", "the root's JSONPath on the clipboard")


async def test_files_view_opens_a_file_and_jumps_to_an_operation():
    app = make_app(CASE)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("D")
        view, rows = await filled(app, pilot, FilesScreen)
        assert rows.rows[1][0].startswith("▸ src/app.py  (write 1, edit 2)".replace(",", ""))
        rows.move_to(1)
        await pilot.press("enter")
        assert [r[0].split()[0] for r in rows.rows[2:5]] == ["write", "edit", "-x"]
        rows.move_to(3)  # the first edit
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, ExplorerScreen), "the explorer")
        assert app.log_.seq_of(app.current_index) == 12


async def test_json_tree_copies_a_jq_path_and_the_raw_arguments():
    app = make_app(CASE)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        call = app.log_.index_of_seq(11)
        app.jump_to(call)
        await pilot.pause()
        await pilot.press("J")
        await until(app, pilot, lambda: isinstance(app.screen, JsonTreeScreen), "the tree")
        tree = app.screen.jtree
        k = next(k for k, r in enumerate(tree.rows) if r.key == "arguments")
        app.screen.tree_list.move_to(k)
        await pilot.press("L")  # everything under the parsed arguments
        assert [r.key for r in tree.rows[k + 1:k + 4]] == ["file_path", "old", "new"]
        await pilot.press("r")
        raw = app.log_.event(call).event["data"]["arguments"]
        await until(app, pilot, lambda: app.clipboard == raw, "the raw arguments on the clipboard")
        app.screen.tree_list.move_to(k + 1)
        await pilot.press("P")
        await until(app, pilot, lambda: app.clipboard == ".data.arguments | fromjson | .file_path", "the jq path")
        await pilot.press("p")
        await until(app, pilot, lambda: app.clipboard == "$.data.arguments.file_path", "the JSONPath")
        await pilot.press("c")
        await until(app, pilot, lambda: app.clipboard == json.loads(raw)["file_path"], "the value")
        app.screen.tree_list.move_to(k)
        await pilot.press("c")  # an object's value: its JSON text, as the model writes it
        await until(app, pilot, lambda: app.clipboard == tree.value_text(tree.rows[k]), "the arguments as JSON")
        assert json.loads(app.clipboard) == json.loads(raw)
        app.screen.tree_list.move_to(k + 1)
        await pilot.press("h")  # on a leaf: its parent folds
        assert not tree.rows[app.screen.tree_list.cursor].open
        await pilot.press("escape")
        await until(app, pilot, lambda: isinstance(app.screen, ExplorerScreen), "the explorer")


async def test_the_loop_anomaly_kind_reaches_the_repeated_calls():
    from dsh_tui.model.presenting.timing_view import LOOP
    app = make_app(CASE)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        app.jump_to(0)
        await pilot.pause()
        app.explorer.anomalies.kind = LOOP
        await pilot.press("e")  # the first time reads the tool calls in a worker
        await until(app, pilot, lambda: "loops" in app.explorer.insight.insight().__dict__, "the loop findings")
        await app.workers.wait_for_complete()
        await pilot.pause()
        seqs = []
        for _ in range(6):
            await pilot.press("e")
            seqs.append(app.log_.seq_of(app.current_index))
        # the bash calls repeated (23, 28, 33) and the writes of src/app.py (6, 12, 17), in log order
        assert sorted(set(seqs)) == [6, 12, 17, 23, 28, 33]


@pytest.mark.parametrize("key,screen_type", [("X", ContextScreen), ("I", RequestsScreen), ("D", FilesScreen),
                                             ("T", None)])
async def test_question_mark_over_a_view_opens_the_help_and_esc_returns_to_the_view(key, screen_type):
    """The explorer's keys do not reach through a full-screen view; `?` still opens the help there."""
    from dsh_tui.ui.screens.help import HelpScreen
    from dsh_tui.ui.screens.timing import TimingScreen
    screen_type = screen_type or TimingScreen
    app = make_app(CASE)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press(key)
        await until(app, pilot, lambda: isinstance(app.screen, screen_type), screen_type.__name__)
        await pilot.press("question_mark")
        await until(app, pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.press("escape")
        await until(app, pilot, lambda: isinstance(app.screen, screen_type), "back to the view")
