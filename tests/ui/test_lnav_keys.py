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
        assert app.explorer.search.query.regex and not app.explorer.search.query.case
        assert "re:hel+o|wor.d " in title(app) and " of " in title(app) and "(case)" not in title(app)
        row = next(r for r in range(app.events.row_count()) if "hello" in app.events.row_plain(r).lower())
        segs = app.events.render_row(row, 100, False)
        match = app.events.style("eventlist--match")
        assert any("hello" in s.text.lower() and s.style == s.style + match for s in segs
                   if s.style and s.style.reverse)
        await pilot.press("slash")
        assert app.query_one("#prompt-label").render().plain.startswith("regex")  # the mode stays
        await pilot.press("ctrl+r", *"hel+o", "enter")
        await settle(app, pilot)
        assert app.explorer.search.query.text == "hel+o" and not app.explorer.search.query.regex


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
        assert app.is_running and not app.explorer.search.searching


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


async def test_shift_scrolls_the_rows_text_and_the_title_says_the_column(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        row = app.events.cursor
        before = app.events.row_plain(row)
        await pilot.press("greater_than_sign")
        after = app.events.row_plain(row)
        assert "text from col 21 (< >)" in title(app)
        text = app.events.summary(app.current_index).text
        assert after.endswith("«" + text[20:]) and after[:20] == before[:20]  # the columns stay
        await pilot.press("right", "left", "less_than_sign")
        assert app.events.row_plain(row) == before and "text from col" not in title(app)
        await pilot.press("left")  # at the left end: nothing moves
        assert app.events.shift == 0
        await pilot.press("slash", "a", "b", "left", "X")  # in a prompt the arrows move its cursor
        assert prompt(app).input.value == "aXb" and app.events.shift == 0
        await pilot.press("escape")


async def test_o_writes_the_filtered_view_as_jsonl_never_over_a_file(demo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # names typed relative to it: a key press each, ~0.1 s apiece
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        await pilot.press("plus", *"type:tool/*", "enter")  # a chip: the tool events only
        await settle(app, pilot)
        shown = [app.log_.seq_of(app.events.source.index(r)) for r in range(app.events.row_count())]
        out = tmp_path / "tools.jsonl"
        await pilot.press("o", *out.name, "enter")
        await settle(app, pilot)
        lines = out.read_bytes().splitlines()
        import orjson
        assert [orjson.loads(x)["seq"] for x in lines] == shown and 0 < len(shown) < len(app.log_)
        await pilot.press("o", *out.name, "enter")
        await settle(app, pilot)
        assert any("never overwritten" in n for n in notices(app)) and out.read_bytes().count(b"\n") == len(shown)
        await pilot.press("o", *demo.name, "enter")  # the log being read
        await settle(app, pilot)
        assert any("log being read" in n for n in notices(app))
        await pilot.press("o", "enter")  # empty: the state dir
        await settle(app, pilot)
        written = list((tmp_path / "state" / "dsh-tui" / "exports").glob("*.jsonl"))
        assert len(written) == 1 and written[0].read_bytes() == out.read_bytes()


async def test_pipe_shows_the_commands_output_in_a_window(demo):
    from dsh_tui.ui.screens.output import OutputModal
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("vertical_line", *"wc -l", "enter")
        for _ in range(200):
            if isinstance(app.screen, OutputModal):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, OutputModal)
        result = app.screen.result
        assert result.output.split() == [str(len(app.log_.res.rec_start)).encode()] and result.returncode == 0
        assert "exit 0" in str(app.screen.query_one("#report-status").render())
        await pilot.press("escape")
        assert not isinstance(app.screen, OutputModal) and app.is_running


async def test_C_merges_the_children_by_time_and_enter_opens_one_there(tmp_path):
    from ..support.session_roots import TREE_KID_B, build_tree_family
    paths = build_tree_family(tmp_path / "dsh" / "sessions")
    app = make_app(paths["parent"])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        for _ in range(200):
            if app.explorer.family.lineage is not None:
                break
            await pilot.pause(0.05)
        await pilot.press("C")
        for _ in range(200):
            if app.explorer.timeline.timeline is not None:
                break
            await pilot.pause(0.05)
        t = app.explorer.timeline.timeline
        tl = app.explorer.timeline.widget()
        assert app.focused is tl and not app.events.display
        assert len(t.members) == 4 and "main + 3 children" in str(tl.border_title)
        times = [t.members[t.session[r]].log.event(t.index[r]).time for r in range(len(t))]
        assert times == sorted(times)  # interleaved by time
        assert {t.members[t.session[r]].tag for r in range(len(t))} == {"main", "↳1 000a", "↳1 000b", "↳2 00a1"}
        seed_a = [m for m in t.members if m.depth == 1 and m.first > 0]
        assert seed_a  # kid_a's seed (the parent's history) is left out
        assert len(t) == sum(len(m.log) - m.first for m in t.members)
        r = next(r for r in range(len(t)) if t.members[t.session[r]].log.session_id == TREE_KID_B
                 and t.index[r] > 0)
        want = t.members[t.session[r]].log.seq_of(t.index[r])
        tl.move_to(r)
        await pilot.pause()
        assert "↳1 000b" in str(app.detail.border_title)  # the detail pane follows the timeline
        await pilot.press("enter")
        await ready(app, pilot)
        assert app.log_.session_id == TREE_KID_B and app.log_.seq_of(app.current_index) == want
        await pilot.press("b")
        await ready(app, pilot)
        await pilot.press("C")
        await pilot.pause(0.2)
        await pilot.press("C")  # off again: the events list is back
        assert app.events.display and app.focused is app.events


async def test_the_new_keys_follow_the_keymap(demo):
    from dsh_tui.settings import Settings
    app = make_app(demo, settings=Settings(keymap={"write-view": "O", "shift-right": "ctrl+l"}))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("o")
        assert not prompt(app).is_open
        await pilot.press("O")
        assert prompt(app).kind == "write"
        await pilot.press("escape", "ctrl+l")
        assert app.events.shift == 20
        groups = dict(__import__("dsh_tui.ui.keydocs", fromlist=["x"]).explorer_help(app.current_keymap()))
        assert any(keys == "O" and "JSONL" in text for keys, text in groups["Report"])


async def test_a_jump_while_the_timeline_is_shown_brings_the_events_back(tmp_path):
    from ..support.session_roots import build_tree_family
    paths = build_tree_family(tmp_path / "dsh" / "sessions")
    app = make_app(paths["parent"])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        for _ in range(200):
            if app.explorer.family.lineage is not None:
                break
            await pilot.pause(0.05)
        await pilot.press("C")
        await pilot.pause(0.2)
        assert app.explorer.timeline.shown
        await pilot.press("colon", "0", "enter")
        await settle(app, pilot)
        assert not app.explorer.timeline.shown and app.events.display and app.current_index == 0


async def test_C_without_children_says_so_and_keeps_the_events(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(app, pilot)
        for _ in range(200):
            if app.explorer.family.lineage is not None:
                break
            await pilot.pause(0.05)
        await pilot.press("C")
        assert not app.explorer.timeline.shown and app.events.display
        assert any("no subagent children" in n for n in notices(app))
