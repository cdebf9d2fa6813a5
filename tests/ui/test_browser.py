"""Issue 6 through Pilot: the session browser, parent/child, export ZIP children, permalinks, back."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from textual.worker import WorkerFailed

from dsh_tui.sessions.browse import browser_rows, root_has_sessions
from dsh_tui.cli import ui_target
from dsh_tui.demo import DEMO_SESSION_ID, EventBuilder, demo_batches
from dsh_tui.gen.builder import ToolCall
from dsh_tui.gen.storage import encode_log
from dsh_tui.model.sessions.discovery import build_tree, list_sessions
from dsh_tui.ui.app import ExplorerApp
from dsh_tui.ui.screens.browser import BrowserScreen
from dsh_tui.ui.screens.error import ErrorScreen
from dsh_tui.ui.screens.family import ChildrenScreen, ConfirmScreen
from dsh_tui.ui.screens.report import ReportModal

from ..support.logs import until
from ..support.hostile_listings import bad_names_zip, chain_id, chain_root, truncated_zip
from ..support.session_roots import (APP, OTHER, T0, TREE_GRANDKID, TREE_KID_A, TREE_KID_B, TREE_PARENT, build_root,
                            build_tree_family, header, turn_batches, write_session)


@pytest.fixture(autouse=True)
def _isolated(isolated_xdg, monkeypatch):
    monkeypatch.setenv("DSH_HOME", str(isolated_xdg / "dsh"))
    monkeypatch.setenv("HOME", str(isolated_xdg))


@pytest.fixture
def built(tmp_path):
    return build_root(tmp_path / "dsh" / "sessions")


def browser_app(root: Path, **kw) -> ExplorerApp:
    app = ExplorerApp(root, native_clipboard=False, detail_delay=0.01, **kw)
    app.browse_root = root
    return app


def explorer_app(path: Path, **kw) -> ExplorerApp:
    return ExplorerApp(path, native_clipboard=False, detail_delay=0.01, **kw)


async def _workers(app) -> None:
    try:
        await app.workers.wait_for_complete()
    except WorkerFailed:
        pass



async def browser_ready(app, pilot) -> BrowserScreen:
    def done():
        s = app.screen
        return isinstance(s, BrowserScreen) and s.listing is not None and s.pending == 0 and not any(
            w.group in ("listing", "fill") and not w.is_finished for w in app.workers)
    await until(app, pilot, done, "the browser to list and fill")
    await pilot.pause()
    return app.screen


async def explorer_ready(app, pilot, session_id: str | None = None) -> None:
    def done():
        return (app.load_finished and app.log_ is not None and not app.browser_active()
                and (session_id is None or app.log_.session_id == session_id)
                and not any(w.group in ("load", "lineage") and not w.is_finished for w in app.workers))
    await until(app, pilot, done, f"the explorer to show {session_id or 'a log'}")
    await pilot.pause(0.03)
    app.flush_detail()
    await pilot.pause()


def rows_of(screen: BrowserScreen) -> list[tuple[str, int, str]]:
    return [(r.kind, r.depth, r.title if r.entry is None else r.entry.display_id) for r in screen.sessions.rows]


def select(screen: BrowserScreen, session_id: str) -> None:
    row = next(k for k, r in enumerate(screen.sessions.rows)
               if r.entry is not None and r.entry.session_id == session_id)
    screen.sessions.move_to(row)


# -- the browser ------------------------------------------------------------------------------------


async def test_browser_groups_by_project_nests_children_and_fills_statuses(built):
    app = browser_app(built.root)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await browser_ready(app, pilot)
        rows = rows_of(screen)
        groups = [title for kind, _d, title in rows if kind == "group"]
        assert groups == [APP, "(no cwd)  _no-cwd", OTHER]  # newest project first; the cwd, decoded
        ids = [t for k, _d, t in rows if k == "session"]
        assert len(ids) == 10 and len(set(ids)) == 10
        # the child (in another project dir) and the grandchild nest under the demo session
        k = ids.index(DEMO_SESSION_ID)
        assert rows[k + 1] == ("session", 0, DEMO_SESSION_ID)
        assert rows[k + 2] == ("session", 1, built.ids["child"])
        assert rows[k + 3] == ("session", 2, built.ids["grandchild"])
        by_id = {r.entry.session_id: r.entry for r in screen.sessions.rows if r.entry is not None}
        assert by_id[DEMO_SESSION_ID].status == "open-turn"
        assert by_id[DEMO_SESSION_ID].verdict_kind == "TOOL_OUTCOME_UNKNOWN"
        assert by_id[built.ids["done"]].status == "completed" and by_id[built.ids["done"]].preset == "minimal"
        assert by_id[built.ids["error"]].status == "error"
        assert by_id[built.ids["torn"]].status == "torn"
        assert by_id[built.ids["rejected"]].status == "rejected"
        assert by_id[built.ids["aborted"]].status == "aborted"
        assert by_id[DEMO_SESSION_ID].events == 320
        # the same facts on screen, and the leftovers only in the footer note
        plain = [screen.sessions.row_plain(r, 200) for r in range(screen.sessions.row_count())]
        demo_row = next(p for p in plain if DEMO_SESSION_ID in p)
        assert "open turn" in demo_row and "TOOL_OUTCOME_UNKNOWN" in demo_row and "320" in demo_row
        assert any("↳ " + built.ids["child"] in p for p in plain)
        note = screen.query_one("#browser-note").plain()
        assert "2 legacy flat file(s)" in note and "4 *.tmp leftover(s)" in note
        assert not any("55555555" in p or ".tmp" in p for p in plain)
        head = screen.query_one("#browser-head").plain()
        assert "10 sessions in 3 projects" in head and "~/dsh/sessions" in head
        assert str(built.root) not in app.export_screenshot().replace("&#160;", " ")


async def test_filter_narrows_and_keeps_ancestors_for_context(built):
    app = browser_app(built.root)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser_ready(app, pilot)
        await pilot.press("slash", *"interrupted")
        await pilot.pause()
        sessions = [(d, t) for k, d, t in rows_of(screen) if k == "session"]
        # the grandchild matches; its parent and grandparent stay, dimmed, for context
        assert sessions == [(0, DEMO_SESSION_ID), (1, built.ids["child"]), (2, built.ids["grandchild"])]
        assert [r.context for r in screen.sessions.rows if r.entry is not None] == [True, True, False]
        assert "1 match" in screen.query_one("#browser-head").plain()
        await pilot.press("enter")  # back to the list, filter kept
        assert screen.filter_text == "interrupted" and app.focused is screen.sessions
        await pilot.press("slash", *"ctrl+u".split(), *"café")
        await pilot.pause()
        matched = {r.entry.session_id for r in screen.sessions.rows if r.entry is not None and not r.context}
        # the child and grandchild live under the café project too: their parent is shown for context
        assert matched == {built.ids[k] for k in ("error", "aborted", "child", "grandchild")}
        await pilot.press("escape")
        await pilot.pause()
        assert screen.filter_text == "" and len([r for r in screen.sessions.rows if r.kind == "session"]) == 10


async def test_filter_to_one_match_under_context_parents_enter_opens_the_match(built):
    app = browser_app(built.root)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await browser_ready(app, pilot)
        await pilot.press("slash", *"interrupted")
        await pilot.pause()
        # the match is the grandchild, listed under its parent and grandparent (context rows)
        assert screen.sessions.current.entry.session_id == built.ids["grandchild"]
        assert built.ids["grandchild"] in screen.query_one("#browser-detail").plain()
        await pilot.press("enter", "enter")  # leave the filter bar, then open
        await explorer_ready(app, pilot, built.ids["grandchild"])
        await pilot.press("b")
        await pilot.pause()
        assert app.screen is screen
        # Enter on the group heading goes to its first match, past the context rows
        screen.sessions.move_to(0)
        assert screen.sessions.current.kind == "group"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.sessions.current.entry.session_id == built.ids["grandchild"]


async def test_enter_opens_the_session_and_back_returns_with_the_place_kept(built):
    app = browser_app(built.root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await browser_ready(app, pilot)
        await pilot.press("slash", *"11111111", "enter")
        select(screen, built.ids["aborted"])
        cursor = screen.sessions.cursor
        await pilot.press("enter")
        await explorer_ready(app, pilot, built.ids["aborted"])
        assert app.screen is app.screen_stack[0]
        assert "TURN_NOT_COMPLETED" in app.query_one("#header").plain() or app.diag.verdict is not None
        await pilot.press("y")  # explorer keys work here
        await _workers(app)
        await pilot.pause()
        assert isinstance(app.screen, ReportModal)
        await pilot.press("escape", "b")
        await pilot.pause()
        assert app.screen is screen
        assert screen.sessions.cursor == cursor and screen.filter_text == "11111111"
        await pilot.press("y", "t")  # the explorer's keys are off while browsing
        assert app.screen is screen
        await pilot.press("enter")  # the same session again: shown at once, no re-read
        await pilot.pause()
        assert not app.browser_active() and app.log_.session_id == built.ids["aborted"]
        await pilot.press("escape", "escape")  # esc never leaves the explorer: b does
        await pilot.pause()
        assert not app.browser_active() and app.screen is app.screen_stack[0]
        await pilot.press("b")
        await pilot.pause()
        assert app.screen is screen
        select(screen, built.ids["done"])
        await pilot.press("enter")
        await explorer_ready(app, pilot, built.ids["done"])
        await pilot.press("q")
    assert app.return_code == 0


async def test_rejected_session_error_screen_goes_back(built):
    app = browser_app(built.root)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await browser_ready(app, pilot)
        select(screen, built.ids["rejected"])
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, ErrorScreen), "the error screen")
        assert "b esc back" in app.screen.query_one("#error-keys").render().plain
        await pilot.press("b")
        await pilot.pause()
        assert app.screen is screen


async def test_rescan_lists_new_sessions_and_keeps_the_cursor(built):
    app = browser_app(built.root)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser_ready(app, pilot)
        select(screen, built.ids["done"])
        write_session(built.root, header("99999999-0000-4000-8000-000000000009", T0 + 50_000, APP),
                      turn_batches("completed"))
        await pilot.press("r")
        await browser_ready(app, pilot)
        ids = [r.entry.session_id for r in screen.sessions.rows if r.entry is not None]
        assert len(ids) == 11 and "99999999-0000-4000-8000-000000000009" in ids
        assert screen.sessions.current.entry.session_id == built.ids["done"]


def test_rows_and_root_check_are_textual_free(built, tmp_path):
    listing = list_sessions(built.root)
    roots = build_tree(listing.entries)
    rows = browser_rows(roots, listing.entries, "code")  # header agentPreset (unfilled)
    assert [r.entry.session_id for r in rows if r.kind == "session"] == [built.ids["done"]]
    assert root_has_sessions(built.root)
    assert root_has_sessions(built.paths["done"].parent)  # a session directory
    assert root_has_sessions(built.paths["done"].parents[1])  # a project directory
    empty = tmp_path / "empty"
    (empty / "--x--").mkdir(parents=True)
    assert not root_has_sessions(empty) and not root_has_sessions(tmp_path / "missing")


def test_cli_dispatch(built, tmp_path, monkeypatch):
    assert ui_target(None, False)[:2] == ("browse", built.root)  # $DSH_HOME/sessions holds sessions
    assert ui_target(str(built.root), False)[0] == "browse"
    kind, path, *_ = ui_target(str(built.paths["done"]), False)
    assert (kind, path) == ("explore", built.paths["done"])
    kind, _path, notice, _at = ui_target(None, True)
    assert kind == "explore" and notice is None
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "nowhere"))
    kind, path, notice, _at = ui_target(None, False)
    assert kind == "explore" and path.name == "session.jsonl.zstd" and "~/nowhere/sessions" in notice


# -- parent and children --------------------------------------------------------------------------

TOOLS = [{"name": "read", "description": "", "parameters": {}}]


def family(root: Path) -> tuple[Path, Path]:
    b = EventBuilder(T0, seed=1)
    b.turn_start(1)
    b.model_step(1, 1, user="go", header={"tools": TOOLS},
                 calls=[ToolCall("call_sub", "subagent_deploy", '{"task":"deploy"}', "child finished")])
    b.turn_end(1, "completed")
    parent = write_session(root, header("parent-1", T0, APP), b.finish())
    c = EventBuilder(T0 + 1000, seed=2)
    c.emit("session/end-seed", {})
    c.turn_start(1)
    c.model_step(1, 1, user="deploy", header={"tools": [{"name": "subagent_deploy", "description": "",
                                                        "parameters": {}}]},
                 calls=[ToolCall("call_child", "subagent_deploy", '{"x":1}', None)], end=False)
    child = write_session(root, header("child-1", T0 + 1000, OTHER, parentSession="parent-1", origin="subagent",
                                       delegationDepth=1, seedLength=1), c.finish())
    return parent, child


async def test_children_key_opens_a_child_and_back_restores_the_parent(tmp_path):
    parent, _child = family(tmp_path / "dsh" / "sessions")
    app = explorer_app(parent)
    async with app.run_test(size=(160, 45)) as pilot:
        await explorer_ready(app, pilot, "parent-1")
        head = app.query_one("#header").plain()
        assert "1 child" in head and "child child-1 failed: TOOL_OUTCOME_UNKNOWN" in head
        finding = next(f for f in app.diag.findings if f.kind == "NOT_IN_TOOL_SET")
        assert finding.child_session == "child-1"
        await pilot.press("home")
        place = app.current_index
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChildrenScreen)
        assert "child-1" in app.export_screenshot()
        await pilot.press("enter")
        await explorer_ready(app, pilot, "child-1")
        head = app.query_one("#header").plain()
        assert "parent parent-1" in head and "depth 1" in head and "seedLength 1" in head
        assert "session/end-seed at seq 0: the 0 events before it are the parent's history" in head
        assert app.events.seed_end == 0 and app.events.row_plain(0).startswith("┴")
        await pilot.press("b")
        await explorer_ready(app, pilot, "parent-1")
        assert app.current_index == place
        # Enter on the NOT_IN_TOOL_SET finding offers the child that calls the tool
        app.jump_to(finding.index)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")
        await explorer_ready(app, pilot, "child-1")
        await pilot.press("u")  # up to the parent
        await explorer_ready(app, pilot, "parent-1")
        await pilot.press("b", "b")
        await explorer_ready(app, pilot, "parent-1")
        assert not app.explorer.history.places
        await pilot.press("b")  # nothing left: the browser on the file's root
        await browser_ready(app, pilot)


def screen_lines(app) -> list[str]:
    """The screen as text, one string per row (what the terminal shows)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_children_screen_draws_a_grandchild_under_its_own_parent(tmp_path):
    """Regression: the first child's child was drawn under the LAST child (rows listed level by
    level, indented by depth only). Now the list is the tree, each row under its own parent."""
    paths = build_tree_family(tmp_path / "dsh" / "sessions")
    app = explorer_app(paths["parent"])
    async with app.run_test(size=(80, 24)) as pilot:
        await explorer_ready(app, pilot, TREE_PARENT)
        assert "family 2 children, 3 descendants ⟨c⟩" in app.query_one("#header").plain()
        await pilot.press("c")
        await until(app, pilot, lambda: isinstance(app.screen, ChildrenScreen), "the children list")
        await pilot.pause()
        kids = (TREE_KID_A, TREE_KID_B, TREE_GRANDKID)
        rows = [line for line in screen_lines(app) if any(sid in line for sid in kids)]
        ids = [next(sid for sid in kids if sid in line) for line in rows]
        assert ids == [TREE_KID_A, TREE_GRANDKID, TREE_KID_B], rows  # the grandchild right under its parent
        guides = [line.split("│ ", 1)[1].split(sid)[0] for line, sid in zip(rows, ids)]  # after the box's │
        assert guides == ["├─ ", "│  └─ ", "└─ "], rows
        await pilot.press("down", "enter")  # the second row: the grandchild
        await explorer_ready(app, pilot, TREE_GRANDKID)
        head = app.query_one("#header").plain()
        assert "parent aaaaaaaa-…00000000a ⟨u⟩" in head  # its parent is kid A, not kid B


async def test_child_header_keeps_depth_seed_and_family_at_narrow_widths(tmp_path):
    """With full UUIDs the parent id is cut in the middle and the family badge precedes the long
    seed-boundary text, so depth, seedLength and family survive the cut at 80 and 120 columns."""
    paths = build_tree_family(tmp_path / "dsh" / "sessions")
    for size in ((80, 24), (120, 36)):
        app = explorer_app(paths["kid_a"])
        async with app.run_test(size=size) as pilot:
            await explorer_ready(app, pilot, TREE_KID_A)
            head = app.query_one("#header").plain()
            line = next(x for x in head.splitlines() if x.startswith("parent "))
            assert line.startswith("parent aaaaaaaa-…000000001 ⟨u⟩  depth 1  seedLength 1  family 1 child ⟨c⟩"), line
            if size[0] >= 120:
                assert f"DELEGATED child session: depth 1, parent {TREE_PARENT} " in head  # the full id


async def test_export_zip_children_are_read_in_memory(tmp_path):
    h, b = demo_batches()
    child_id = "22222222-0000-4000-8000-000000000001"
    ch = header(child_id, T0, "/srv/app", parentSession=DEMO_SESSION_ID, origin="subagent", delegationDepth=1)
    zpath = tmp_path / f"dsh-session-{DEMO_SESSION_ID}.zip"
    with zipfile.ZipFile(zpath, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("session.jsonl", encode_log(h, b, encoding="jsonl"))
        zf.writestr(f"subagents/{child_id}/session.jsonl",
                    encode_log(ch, turn_batches({"kind": "error", "error": {"code": "X", "message": "boom"}}),
                               encoding="jsonl"))
    before = sorted(p.name for p in tmp_path.iterdir())
    app = explorer_app(zpath)
    async with app.run_test(size=(160, 45)) as pilot:
        await explorer_ready(app, pilot, DEMO_SESSION_ID)
        assert not app.log_.followable
        assert app.query_one("#header").plain().startswith("not followed")
        assert "1 child" in app.query_one("#header").plain()
        await pilot.press("c", "enter")
        await explorer_ready(app, pilot, child_id)
        assert str(app.log_.path).endswith(f"!subagents/{child_id}/session.jsonl")
        assert "parent " + DEMO_SESSION_ID in app.query_one("#header").plain()
        await pilot.press("b")
        await explorer_ready(app, pilot, DEMO_SESSION_ID)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing unpacked


# -- permalink and the markdown report ----------------------------------------------------------------


async def test_permalink_and_markdown_report(tmp_path):
    from dsh_tui.demo import write_demo
    path = write_demo(tmp_path / "demo.jsonl.zstd")
    app = explorer_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await explorer_ready(app, pilot)
        await pilot.press("colon", *"65", "enter")
        await pilot.pause()
        await pilot.press("l")
        await _workers(app)
        await pilot.pause()
        assert app.clipboard == f"{DEMO_SESSION_ID}@65"
        assert not isinstance(app.screen, ReportModal)  # a notice: no window, no file
        await pilot.press("y")
        await _workers(app)
        await pilot.pause(0.05)
        await pilot.press("m")
        await _workers(app)
        await pilot.pause(0.05)
        assert isinstance(app.screen, ReportModal) and app.screen.kind == "markdown"
        assert app.clipboard.startswith("# dsh session report") and "## Pairs around it" in app.clipboard
        await pilot.press("m")  # back to the plain snippet
        await _workers(app)
        await pilot.pause(0.05)
        assert app.screen.kind == "snippet" and app.clipboard.startswith("dsh session failure")


# -- safety ---------------------------------------------------------------------------------------------

EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x1b\\\x1b[2J\x9b31m[/][@click=app.quit]x[/]\u202e"


async def test_hostile_ids_and_cwds_render_inert(tmp_path):
    root = tmp_path / "dsh" / "sessions"
    write_session(root, header("evil-" + EVIL, T0, "/home/" + EVIL + "/proj", agentPreset=EVIL),
                  turn_batches("completed"))
    write_session(root, header("kid-" + EVIL, T0 + 5, "/srv/" + EVIL, parentSession="evil-" + EVIL,
                               origin="subagent", delegationDepth=1, agentPreset=[EVIL]),
                  turn_batches({"kind": EVIL}))
    app = browser_app(root)
    shots = []
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await browser_ready(app, pilot)
        shots.append(app.export_screenshot())
        await pilot.press("down", "down")
        shots.append(app.export_screenshot())
        await pilot.press("slash", *"evil")
        await pilot.pause()
        shots.append(app.export_screenshot())
        await pilot.press("enter")
        select(screen, "evil-" + EVIL)
        await pilot.press("enter")
        await explorer_ready(app, pilot)
        shots.append(app.export_screenshot())
        await pilot.press("c")
        await pilot.pause()
        shots.append(app.export_screenshot())
        await pilot.press("enter")  # dsh rejects the child's header (its agentPreset is not a string)
        await until(app, pilot, lambda: isinstance(app.screen, ErrorScreen), "the error screen")
        shots.append(app.export_screenshot())
        await pilot.press("b")
        await explorer_ready(app, pilot, "evil-" + EVIL)
        shots.append(app.export_screenshot())
        assert app.is_running
    for svg in shots:
        assert "\x1b" not in svg and "\x9b" not in svg and "\u202e" not in svg
    assert "[@click=app.quit]x[/]" in "".join(shots).replace("&#160;", " ")


# -- hostile listings ------------------------------------------------------------------------------------


async def test_a_long_parent_chain_lists_and_q_quits(tmp_path):
    """1,500 sessions each the child of the one before: the tree is built in the listing's worker,
    without recursion (a RecursionError took the screen down before), rows keep a bounded indent,
    and q quits while the statuses are still being read."""
    root = tmp_path / "dsh" / "sessions"
    chain_root(root, 1500)
    app = browser_app(root)
    async with app.run_test(size=(160, 45)) as pilot:
        await until(app, pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.listing is not None,
                    "the chain to be listed")
        screen = app.screen
        assert [d for k, d, _t in rows_of(screen) if k == "session"] == list(range(1500))
        await pilot.press("end")
        await pilot.pause()
        last = screen.sessions.row_plain(screen.sessions.cursor, 200)
        assert f"↳1499 {chain_id(1499)}" in last and len(last) < 200
        await pilot.press("slash", *chain_id(1499)[-6:], "enter")
        await pilot.pause()
        assert [r.context for r in screen.sessions.rows if r.entry is not None] == [True] * 1499 + [False]
        await pilot.press("q")
        await until(app, pilot, lambda: not app.is_running, "q to quit", timeout=20)
    assert app.return_code == 0


async def test_a_zip_listing_shows_what_it_skipped_and_a_truncated_zip_says_so(tmp_path):
    path = bad_names_zip(tmp_path / "dsh-session-bad.zip")
    app = browser_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await browser_ready(app, pilot)
        assert [t for k, _d, t in rows_of(screen) if k == "session"] == [chain_id(0), chain_id(1)]
        note = screen.query_one("#browser-note").plain()
        assert 'problem: unsafe member name "subagents/../../evil/session.jsonl" skipped (+3 more)' in note
    cut = truncated_zip(tmp_path / "dsh-session-cut.zip")
    app = browser_app(cut)
    async with app.run_test(size=(160, 45)) as pilot:
        await until(app, pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.error is not None,
                    "the listing to fail")
        assert "is not a readable ZIP archive (truncated?)" in app.screen.query_one("#browser-head").plain()
        await pilot.press("q")
    assert app.return_code == 0
