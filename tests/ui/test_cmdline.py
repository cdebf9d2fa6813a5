"""The docked goto/search prompt (widgets/cmdline.py) and search through the hit list, via Pilot."""

from __future__ import annotations

import threading

import pytest
from textual import events
from textual.widgets import Footer

from dsh_tui.model.presenting.hits import collapse_chunk_runs
from dsh_tui.model.reading.source import Cancelled
from dsh_tui.ui.controllers import search as search_module

from ..support.app import bottom_row, make_app, notices, prompt, ready, record_repaints, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def test_goto_prompt_is_docked_not_modal_and_escape_cancels(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        start = app.current_index
        footer = app.query_one(Footer)
        regions = [(w, w.region) for w in app.screen.query("*") if w.display and w.region]
        await pilot.press("colon")
        cmd = prompt(app)
        assert cmd.is_open and cmd.kind == "goto" and cmd.visible and footer.covered
        assert bottom_row(app).startswith("go to: ") and "Quit" not in bottom_row(app)
        assert [(w, w.region) for w, _ in regions] == regions  # it lies over the footer: nothing moves
        assert len(app.screen_stack) == 1  # the main screen: nothing dimmed or pushed
        assert app.focused is cmd.input
        assert app.events.has_class("-prompt-origin")  # keeps its focused look meanwhile
        await pilot.press(*"12!_", "3")  # only a seq's, a time's or an offset's characters get in
        assert cmd.input.value == "123"
        await pilot.press("escape")
        assert not cmd.is_open and not cmd.visible and not footer.covered
        assert "go to" not in bottom_row(app) and "Quit" in bottom_row(app)
        assert app.focused is app.events and not app.events.has_class("-prompt-origin")
        assert app.current_index == start and app.is_running

async def test_opening_typing_and_cancelling_the_prompt_repaint_only_the_bottom_line(demo, monkeypatch):
    # The panes keep their look while the prompt has the focus (widgets/pane.py) and a focus
    # change does not repaint the screen (screens/explorer.py): only the footer's line changes.
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        seen = record_repaints(app, monkeypatch)
        await pilot.press("colon")
        await pilot.pause(0.05)
        await pilot.press(*"12", "backspace", "escape")
        await pilot.pause(0.05)
        assert not prompt(app).is_open and app.focused is app.events
        assert seen and all(r.y == 29 and r.height == 1 for r in seen), seen
        await pilot.press("slash", "escape", "tab")  # a real focus change still repaints the panes' looks
        await pilot.pause(0.05)
        assert app.focused is not app.events and any(r.y < 29 for r in seen)


async def test_goto_enter_jumps_and_a_missing_seq_gives_a_notice(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("colon", *"65", "enter")
        await settle(app, pilot)
        assert app.log_.seq_of(app.current_index) == 65 and app.focused is app.events
        await pilot.press("colon", *"99999", "enter")
        await settle(app, pilot)
        last = len(app.log_) - 1
        assert app.current_index == last
        assert any("no event has seq 99999" in n and "after the last" in n for n in notices(app))
        await pilot.press("colon", "enter")  # empty: nothing happens
        assert app.current_index == last and not prompt(app).is_open


async def test_prompt_refuses_control_characters_and_tab_cancels(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("slash")
        cmd = prompt(app)
        assert cmd.kind == "search"
        cmd.input.post_message(events.Paste("evil\x1b]52;c;ZXZpbA==\x07"))
        await pilot.pause()
        assert "\x1b" not in cmd.input.value and "\x07" not in cmd.input.value
        assert "\x1b" not in app.export_screenshot()
        await pilot.press("tab")  # focus leaves the prompt: it closes, focus stays where it went
        await pilot.pause()
        assert not cmd.is_open and app.focused is not cmd.input and app.explorer.search.needle is None


async def test_search_builds_a_hit_list_once_then_n_and_N_bisect(demo, monkeypatch):
    calls: list[str] = []
    real = search_module.find_all

    def counted(log, needle, **kw):
        calls.append(needle)
        return real(log, needle, **kw)

    monkeypatch.setattr(search_module, "find_all", counted)
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        # On a crash log / searches up from the cursor; \\ searches down (test_search_direction.py).
        await pilot.press("home", "backslash", *"call_05_deploy", "enter")
        await settle(app, pilot)
        hits = list(collapse_chunk_runs(app.log_, real(app.log_, "call_05_deploy")).indices)  # a block: one hit
        assert len(hits) >= 3 and app.current_index == hits[0]
        await pilot.press("n")
        assert app.current_index == hits[1]
        await pilot.press("n", "N", "N")
        assert app.current_index == hits[0]
        await pilot.press("N")  # before the first hit: wraps to the last
        assert app.current_index == hits[-1]
        assert "search wrapped around" in notices(app)
        assert calls == ["call_05_deploy"]  # one scan; every n/N after it was a bisect
        await pilot.press("slash", *"no such text anywhere", "enter")
        await settle(app, pilot)
        assert any("not found: no such text anywhere" in n for n in notices(app))
        assert "searching" not in str(app.events.border_title)


async def test_a_new_search_starts_empty_and_up_recalls_the_last_one(demo):
    # /call_06_tag Enter, then / and "deploy" searched "call_06_tagdeploy": the prompt kept the old needle.
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("home", "slash", *"call_06_tag", "enter")
        await settle(app, pilot)
        await pilot.press("slash")
        cmd = prompt(app)
        assert cmd.input.value == "" and "call_06_tag" in cmd.input.placeholder  # named, one key away
        await pilot.press(*"deploy", "enter")
        await settle(app, pilot)
        assert app.explorer.search.needle == "deploy"
        await pilot.press("slash", *"typed", "up")  # Up: the newest needle first, then older ones
        assert cmd.input.value == "deploy"
        await pilot.press("up")
        assert cmd.input.value == "call_06_tag"
        await pilot.press("up")  # the oldest stays
        assert cmd.input.value == "call_06_tag"
        await pilot.press("down", "down")  # past the newest: what was typed before Up
        assert cmd.input.value == "typed"
        await pilot.press("up", "enter")
        await settle(app, pilot)
        assert app.explorer.search.needle == "deploy"
        assert cmd.history["search"] == ["call_06_tag", "deploy"]  # a value searched again is not kept twice
        await pilot.press("colon", "up")  # each prompt has its own history
        assert cmd.input.value == "" and cmd.kind == "goto"
        await pilot.press("escape")


async def test_a_new_needle_cancels_the_running_search(demo, monkeypatch):
    started = threading.Event()
    real = search_module.find_all

    def slow_for_first(log, needle, *, cancel=None, **kw):
        if needle == "slow":
            started.set()
            if cancel.wait(10):
                raise Cancelled()
        return real(log, needle, cancel=cancel, **kw)

    monkeypatch.setattr(search_module, "find_all", slow_for_first)
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("home", "slash", *"slow", "enter")
        assert started.wait(5)
        await pilot.pause()
        assert "searching “slow”" in str(app.events.border_title)
        slow = [w for w in app.workers if w.group == "search"]
        await pilot.press("n")  # still scanning the same needle: no second scan
        assert [w for w in app.workers if w.group == "search"] == slow
        await pilot.press("slash", *"call_06_tag", "enter")
        await settle(app, pilot)
        assert slow[0].is_cancelled
        assert b"call_06_tag" in app.log_.record_bytes(app.log_.res.record_of(app.current_index))
        assert "searching" not in str(app.events.border_title)


async def test_prompt_works_with_a_zoomed_pane_and_escape_cancels_it_first(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("z")
        assert app.screen.maximized is app.events
        await pilot.press("colon")
        cmd = prompt(app)
        assert cmd.is_open and cmd.region.height == 1  # laid out in the maximized view
        await pilot.press("escape")
        assert not cmd.is_open and app.screen.maximized is app.events
        await pilot.press("escape")
        assert app.screen.maximized is None
