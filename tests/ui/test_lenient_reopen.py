"""L on the error screen of a log dsh refuses: read it again as --lenient does, shown marked UNVERIFIED.
An unreadable log's error screen does not offer it."""

from __future__ import annotations

import pytest

from dsh_tui.ui.screens.error import ErrorScreen

from ..support.app import make_app, notices, ready
from ..support.logs import until
from ..support.session_roots import T0, header, turn_batches, write_session

pytestmark = pytest.mark.usefixtures("isolated_xdg")


@pytest.fixture
def refused(tmp_path):
    h = header("55555555-0000-4000-8000-000000000001", T0, "/home/user/projects/demo-app")
    del h["delegationDepth"]  # dsh's load refuses a header without it
    return write_session(tmp_path / "sessions", h, turn_batches("completed"))


async def test_l_reopens_a_refused_log_lenient_and_marks_it_unverified(refused):
    app = make_app(refused)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert isinstance(app.screen, ErrorScreen) and app.log_ is None
        assert "L open it anyway (UNVERIFIED)" in app.screen.query_one("#error-keys").render().plain
        await pilot.press("L")
        await until(app, pilot, lambda: app.log_ is not None and app.load_finished, "the lenient reopen")
        await ready(app, pilot)
        assert not isinstance(app.screen, ErrorScreen) and app.lenient
        assert "UNVERIFIED: dsh rejects this log" in app.query_one("#header").plain()
        assert app.sub_title == "UNVERIFIED" and len(app.log_) > 0
        header_text = app.query_one("#header").plain()
        assert app.diag.verdict is None and "No failure found" not in header_text  # no ✓ over a refused log
        assert "no failure found in" in header_text and "but dsh refuses this log" in header_text
        await pilot.press("v")  # the verdict key says the same
        await pilot.pause()
        assert any("but dsh refuses this log" in n for n in notices(app))
        await pilot.press("q")
    assert app.return_code == 0


async def test_an_unreadable_log_offers_no_lenient_reopen(tmp_path):
    path = tmp_path / "garbage.jsonl.zstd"
    path.write_bytes(b"\x28\xb5\x2f\xfd not a frame at all")
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert isinstance(app.screen, ErrorScreen) and not app.screen.refused
        assert " L " not in app.screen.query_one("#error-keys").render().plain
        await pilot.press("L")
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen) and not app.lenient
