"""Keys typed quickly (ui/keygate.py): each is taken by the screen it was typed for, in order,
modals take the focus before they take keys, and no burst of keys strands or crashes the app.

A burst is posted to the app at once, as a terminal delivers keys read together (a paste, a
fast typist over SSH); Pilot's press would wait for the app to settle after each key.
"""

from __future__ import annotations

import threading
import time

import pytest
from textual import events
from textual.command import CommandPalette
from textual.keys import _character_to_key

from dsh_tui.ui.controllers import copy as copy_module
from dsh_tui.ui import keygate
from dsh_tui.ui.screens.checklist import ChecklistScreen
from dsh_tui.ui.screens.help import HelpScreen
from dsh_tui.ui.screens.report import ReportModal
from dsh_tui.ui.widgets.cmdline import CommandLine

from ..support.logs import until
from ..support.app import make_app, ready, settle  # noqa: F401  (fixtures)

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def burst(app, *keys: str) -> None:
    """Post ``keys`` to the app in one go, without waiting between them."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(_character_to_key(key), key))
        else:
            app.post_message(events.Key(key, None))


async def quiet(app, pilot) -> None:
    await until(app, pilot, lambda: not app.key_gate.pending and app.key_gate.replay is None, "the held keys")
    await settle(app, pilot)


async def test_an_enter_typed_before_ctrl_p_is_not_taken_by_the_palette(demo):
    # The Enter reached the App after the palette was pushed, so the palette took it and closed;
    # two Enters closed it twice, and the second dismissal popped the main screen: a crash.
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        burst(app, "enter", "enter", "ctrl+p")
        await quiet(app, pilot)
        assert isinstance(app.screen, CommandPalette) and app._exception is None
        assert app.focused is not None and app.focused.screen is app.screen  # it took the focus first
        assert app.screen_stack[0].focused is app.events  # both Enters went to the list: detail, then back
        burst(app, *"first event", "enter")
        await quiet(app, pilot)
        assert len(app.screen_stack) == 1 and app.current_index == 0


async def test_keys_typed_as_a_modal_opens_go_to_the_modal(demo):
    # The downs came back to the App after the checklist was pushed but before it had a focus,
    # so nothing took them and Enter jumped to the first step's event instead of the third's.
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        burst(app, "t", "down", "down", "enter")
        await quiet(app, pilot)
        assert not isinstance(app.screen, ChecklistScreen)
        from dsh_tui.ui.screens.checklist import ten_minute_pass
        third = ten_minute_pass(app.log_, app.diag)[2]
        assert third.index is not None and app.current_index == third.index


async def test_a_search_typed_in_one_go_then_q_quits(demo):
    # The letters after / reached the list before the prompt had the focus (lost), and q after
    # Enter went into the closing prompt (searched "…q") instead of quitting.
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        burst(app, "slash", *"call_06_tag", "enter")
        await quiet(app, pilot)
        assert app.explorer.search.needle == "call_06_tag" and not app.query_one(CommandLine).is_open
        burst(app, "slash", *"deploy", "enter", "q")
        await until(app, pilot, lambda: not app.is_running, "q to quit", timeout=10)
        assert app.explorer.search.needle == "deploy" and app.return_code == 0


async def test_escape_typed_while_the_copy_window_is_coming_closes_it(demo, monkeypatch):
    # y copies in a thread; an esc typed before its window came went to the main screen (Back)
    # and the window then stayed open.
    real = copy_module.copy_layered

    def slow_copy(*args, **kw):
        time.sleep(0.2)
        return real(*args, **kw)

    monkeypatch.setattr(copy_module, "copy_layered", slow_copy)
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        app.clear_notifications()
        shown: list = []
        real_push = app.push_screen

        def recording_push(screen, *args, **kw):
            shown.append(type(screen))
            return real_push(screen, *args, **kw)

        monkeypatch.setattr(app, "push_screen", recording_push)
        burst(app, "y", "escape")
        await until(app, pilot, lambda: ReportModal in shown, "the copy window")
        await quiet(app, pilot)
        assert len(app.screen_stack) == 1  # the window came, and esc closed it
        assert not [n for n in app._notifications if "go back" in str(n.message)]


async def test_keys_typed_while_the_copy_window_is_coming_do_not_move_the_list_below(demo, monkeypatch):
    real = copy_module.copy_layered

    def slow_copy(*args, **kw):
        time.sleep(0.2)
        return real(*args, **kw)

    monkeypatch.setattr(copy_module, "copy_layered", slow_copy)
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        start = app.current_index
        burst(app, "y", "k", "k", "k")  # meant for the window: they scroll it, not the events list under it
        await until(app, pilot, lambda: isinstance(app.screen, ReportModal), "the copy window")
        await quiet(app, pilot)
        assert isinstance(app.screen, ReportModal) and app.current_index == start


async def test_a_modal_that_never_comes_holds_keys_only_for_a_while(demo, monkeypatch):
    monkeypatch.setattr(keygate, "EXPECT_MAX", 0.3)
    release = threading.Event()

    def stuck_copy(*args, **kw):
        release.wait(10)
        raise OSError("no clipboard today")

    monkeypatch.setattr(copy_module, "copy_layered", stuck_copy)
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        burst(app, "y", "q")  # the window never comes: q waits for it at most EXPECT_MAX, then quits
        try:
            await until(app, pilot, lambda: not app.is_running, "q to quit", timeout=10)
        finally:
            release.set()
    assert app.return_code == 0


async def test_a_modal_dismissed_twice_pops_only_itself(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        help_screen.dismiss()
        help_screen.dismiss()  # popped the main screen: ScreenStackError
        await settle(app, pilot)
        assert len(app.screen_stack) == 1 and app._exception is None and app.is_running


async def test_a_count_then_a_modal_key_leaves_no_count_behind(demo):
    # "1 f": f reached the list (which clears a count on any other key) before the 1 was counted,
    # so after the filter list the footer still said "go to seq 1".
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        burst(app, "1", "f")
        await quiet(app, pilot)
        assert app.events.count == ""
        await pilot.press("escape")
        await settle(app, pilot)
        assert not app.query_one(CommandLine).noting


async def test_a_notice_goes_when_the_user_moves_or_opens_something(demo):
    # Notices stayed ~5 s over the detail pane and over the checklist opened after them.
    app = make_app(demo)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # toasts drawn, as in a terminal
        await ready(app, pilot)
        await pilot.press("b")  # nowhere to go back to: a notice
        await settle(app, pilot)
        assert app._notifications and app.screen.query("Toast")
        for toast in app.screen.query("Toast"):  # no blank rows around its text (it had two, and a gap)
            assert toast.region.height == toast.content_region.height and toast.styles.margin.top == 0
        await pilot.press("t")
        await settle(app, pilot)
        assert isinstance(app.screen, ChecklistScreen)
        assert not app._notifications and not app.screen.query("Toast")  # not over the checklist
        await pilot.press("escape", "b")
        await settle(app, pilot)
        assert app._notifications
        await pilot.press("k")
        await settle(app, pilot)
        assert not app._notifications and not app.screen.query("Toast")
