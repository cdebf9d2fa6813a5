"""Marks (controllers/marks.py): m toggles, ' and " jump (wrapping), M copies the marked raw records masked
through the one copy path, ctrl+x clears; the gutter shows ● and the seq reversed."""

from __future__ import annotations

import pytest

from dsh_tui.ui.screens.report import ReportModal

from ..support.app import make_app, notices, ready, settle
from .test_copy_keys import SECRET, crafted  # noqa: F401  (crafted is a fixture)

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def seq(app) -> int:
    return app.log_.seq_of(app.current_index)


async def goto(app, pilot, s: int) -> None:
    app.jump_to(app.log_.index_of_seq(s))
    await settle(app, pilot)


async def test_m_marks_and_the_quote_keys_jump_between_marks(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        for s in (10, 61, 200):
            await goto(app, pilot, s)
            await pilot.press("m")
        assert app.explorer.marks.seqs() == [10, 61, 200]
        row = app.events.row_plain(app.events.cursor)
        assert row.startswith("●200 ")  # the gutter glyph, then the seq
        await goto(app, pilot, 100)
        await pilot.press("apostrophe")
        assert seq(app) == 200
        await pilot.press("apostrophe")  # past the last: wraps to the first
        assert seq(app) == 10 and "marks wrapped around" in notices(app)
        await pilot.press("quotation_mark")
        assert seq(app) == 200
        await pilot.press("quotation_mark")
        assert seq(app) == 61
        await pilot.press("m")  # m again unmarks
        assert app.explorer.marks.seqs() == [10, 200] and not app.events.row_plain(app.events.cursor).startswith("●")
        await pilot.press("ctrl+x")
        assert app.explorer.marks.seqs() == [] and "cleared 2 marks" in notices(app)
        await pilot.press("apostrophe")
        assert seq(app) == 61 and any("no marks" in n for n in notices(app))


async def test_the_verdict_row_keeps_its_diamond_and_shows_the_mark_on_its_seq(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("m")  # on the verdict
        segs = app.events.render_row(app.events.cursor, 100, False)
        assert segs[0].text == "◆" and segs[1].text.strip() == "319" and segs[1].style.reverse


async def test_M_copies_the_marked_raw_records_masked(crafted):  # noqa: F811
    app = make_app(crafted)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.press("v", "m")  # the bash call holding the secrets
        await goto(app, pilot, 0)
        await pilot.press("m", "M")
        await settle(app, pilot)
        assert isinstance(app.screen, ReportModal)
        modal = app.screen
        saved = app.clipboard  # (no file: only the bug report is written to one)
        assert modal.result.path is None
        assert "2 marked events" in modal.title_text
        assert len(saved.strip().splitlines()) == 2 and '"seq":0' in saved.replace(" ", "")
        assert SECRET not in saved and "bash" in saved  # masked, as every copy is
