"""The events list's count, as in vim: digits then G go to that seq (widgets/event_list.py)."""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from dsh_tui.ui.app import ExplorerApp
from dsh_tui.ui.widgets.cmdline import CommandLine

from ..support.app import make_app, ready, settle  # noqa: F401  (fixtures)
from ..support.app import bottom_row, notices, record_repaints

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def line(app) -> CommandLine:
    return app.query_one(CommandLine)


def note_text(app) -> str:
    return str(app.query_one("#prompt-label").render())


def seq(app) -> int:
    return app.log_.seq_of(app.current_index)


async def test_digits_then_G_go_to_that_seq_and_the_count_shows_meanwhile(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        start = app.current_index
        footer = app.query_one(Footer)
        await pilot.press("6", "5")
        assert app.events.count == "65" and app.current_index == start  # nothing moved yet
        assert line(app).noting and line(app).visible and footer.covered
        assert "go to seq 65" in bottom_row(app) and "Quit" not in bottom_row(app)
        assert not line(app).input.display and "go to seq 65" in note_text(app)
        assert app.focused is app.events and not line(app).is_open  # the focus never moved
        await pilot.press("G")
        await settle(app, pilot)
        assert seq(app) == 65 and app.events.count == ""
        assert not line(app).noting and not line(app).visible and not footer.covered
        assert "go to seq" not in bottom_row(app) and "Quit" in bottom_row(app)
        assert app.detail_shown == app.current_index
        await pilot.press("1", "3", "2", "G")
        await settle(app, pilot)
        assert seq(app) == 132
        await pilot.press("G")  # no count: the last event, as always
        assert app.current_index == len(app.log_) - 1


async def test_an_out_of_range_count_lands_on_the_nearest_seq_with_a_notice(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("home", *"99999", "G")
        await settle(app, pilot)
        assert app.current_index == len(app.log_) - 1
        assert any("no event has seq 99999" in n and "after the last" in n for n in notices(app))


async def test_escape_clears_a_pending_count_and_never_means_back(demo, monkeypatch):
    app = make_app(demo)
    backs: list[int] = []
    monkeypatch.setattr(app.explorer, "can_go_back", lambda: True)  # as in a session root
    monkeypatch.setattr(app.explorer, "back", lambda: backs.append(1))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("home", "1", "2", "escape")
        assert app.events.count == "" and not line(app).noting and not app.query_one(Footer).covered
        assert not backs
        await pilot.press("G")  # the count is gone: G is the last event again
        assert app.current_index == len(app.log_) - 1
        await pilot.press("escape")  # no count: nothing (esc never leaves the session: b does)
        assert backs == []
        await pilot.press("b")
        assert backs == [1]


async def test_escape_clears_the_count_before_it_restores_a_zoomed_pane(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("z", "4")
        assert app.screen.maximized is app.events and line(app).visible  # the note shows over a zoom too
        await pilot.press("escape")
        assert app.events.count == "" and app.screen.maximized is app.events
        await pilot.press("escape")
        assert app.screen.maximized is None


async def test_any_other_key_drops_the_count_then_does_its_own_thing(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("home", "1", "2", "j")  # j moves one row, not twelve
        assert app.current_index == 1 and app.events.count == "" and not line(app).noting
        await pilot.press("5", "end")  # End is always the last event
        assert app.current_index == len(app.log_) - 1 and app.events.count == ""
        await pilot.press("3", "colon")  # the prompt replaces the note, and stays open
        await pilot.pause()
        cmd = line(app)
        assert cmd.is_open and cmd.kind == "goto" and app.focused is cmd.input and cmd.input.display
        await pilot.press(*"65", "enter")
        await settle(app, pilot)
        assert seq(app) == 65 and not cmd.visible and not app.query_one(Footer).covered
        await pilot.press("7", "tab")  # the focus leaves the list: the count goes with it
        assert app.events.count == "" and not line(app).noting and app.focused is not app.events


async def test_digits_elsewhere_do_nothing(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        start = app.current_index
        app.detail.focus()
        await pilot.press("4", "2")
        assert app.events.count == "" and not line(app).visible and app.current_index == start


async def test_typing_a_count_repaints_only_the_bottom_line(demo, monkeypatch):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        seen = record_repaints(app, monkeypatch)
        await pilot.press("1", "2", "3")
        await pilot.pause(0.05)
        await pilot.press("escape")
        await pilot.pause(0.05)
        assert seen and all(r.y == 29 and r.height == 1 for r in seen), seen


async def test_a_jump_shows_its_detail_at_once_a_step_after_the_debounce(demo):
    from ..support.app import detail_text
    app = ExplorerApp(demo, native_clipboard=False, detail_delay=60.0)  # the debounce never fires here
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        for keys, target in ((("6", "5", "G"), 65), (("colon", "1", "2", "enter"), 12), (("home",), None)):
            await pilot.press(*keys)
            await pilot.pause()
            if target is not None:
                assert seq(app) == target
            assert app.detail_shown == app.current_index, keys  # a jump: its detail in the same frames
            assert f"seq {seq(app)}" in str(app.detail.border_title)
        shown = app.detail_shown
        await pilot.press("down")  # a step (a held key repeats it): the detail waits for the debounce
        await pilot.pause()
        assert app.current_index != shown and app.detail_shown == shown
        assert detail_text(app) and f"seq {seq(app) - 1}" in str(app.detail.border_title)
