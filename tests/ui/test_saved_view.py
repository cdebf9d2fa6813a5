"""Saved views (controllers/views.py): marks, chips and the cursor's seq kept per log on quit or leaving it,
restored on the next opening with a notice; --at wins over the saved position; a failed save is a notice."""

from __future__ import annotations

import pytest

from dsh_tui.sessions import viewstate

from ..support.app import make_app, notices, ready, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def seq(app) -> int:
    return app.log_.seq_of(app.current_index)


async def mark_filter_and_quit(demo) -> None:
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        for s in (10, 61):
            app.jump_to(app.log_.index_of_seq(s))
            await settle(app, pilot)
            await pilot.press("m")
        await pilot.press("minus", *"type:assistant/chunk", "enter")
        await settle(app, pilot)
        app.jump_to(app.log_.index_of_seq(65))
        await settle(app, pilot)
        await pilot.press("q")


async def test_marks_chips_and_position_come_back_on_the_next_run(demo):
    await mark_filter_and_quit(demo)
    assert viewstate.load(demo).marks == [10, 61]
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        assert "restored 2 marks, 1 filter, position seq 65" in notices(app)
        assert app.explorer.marks.seqs() == [10, 61] and [c.label for c in app.explorer.chips.chips] == ["-type:assistant/chunk"]
        assert seq(app) == 65 and len(app.events.source) < len(app.log_)  # the chip applied
        assert app.query_one("#chips").display


async def test_an_explicit_seq_wins_over_the_saved_position(demo):
    await mark_filter_and_quit(demo)
    app = make_app(demo, at_seq=131)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        assert seq(app) == 131 and app.explorer.marks.seqs() == [10, 61]
        assert "restored 2 marks, 1 filter" in notices(app)


async def test_an_untouched_log_saves_nothing_and_a_failed_save_is_one_notice(demo, isolated_xdg, monkeypatch):
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        app.explorer.saved_view.save()
        assert not (isolated_xdg / "state" / "dsh-tui" / "views").exists()
        blocker = isolated_xdg / "not-a-dir"
        blocker.write_text("x")
        monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
        await pilot.press("m")
        app.explorer.saved_view.save()
        await pilot.pause()
        said = [n for n in notices(app) if "not saved" in n]
        assert len(said) == 1 and app.is_running
