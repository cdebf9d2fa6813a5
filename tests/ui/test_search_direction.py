"""Search as a crash reader uses it (controllers/search.py): up from the verdict by default, \\ the other way,
n on in the search's direction and N back, "k of n" in the events pane title, matches highlighted in the rows,
and chunk deltas of one block counted as one hit."""

from __future__ import annotations

import pytest

from dsh_tui.ui.widgets.detail import DetailView

from ..support.app import WRITTEN, make_app, ready, settle, shared
from ..support.logs import chunk, ev

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def seq(app) -> int:
    return app.log_.seq_of(app.current_index)


def title(app) -> str:
    return str(app.events.border_title)


async def search(app, pilot, key: str, needle: str) -> None:
    await pilot.press(key, *needle, "enter")
    await settle(app, pilot)


async def test_slash_on_a_crash_log_searches_up_from_the_verdict_and_n_goes_on_up(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        assert seq(app) == 319  # the verdict, the log's last event
        await pilot.press("slash")
        assert app.query_one("#prompt-label").render().plain == "?"  # up, as less says it
        assert "up from here" in app.query_one("#prompt-input").placeholder
        await pilot.press(*"bash", "enter")
        await settle(app, pilot)
        assert seq(app) == 318  # the nearest hit above, not the first in the log
        assert "?bash 11 of 12" in title(app)
        await pilot.press("n")
        await settle(app, pilot)
        assert seq(app) == 306 and "10 of 12" in title(app)
        await pilot.press("N", "N")
        await settle(app, pilot)
        assert seq(app) == 319 and "12 of 12" in title(app)


async def test_backslash_searches_the_other_way_and_wraps(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await ready(app, pilot)
        await pilot.press("backslash")
        assert app.query_one("#prompt-label").render().plain == "/"
        await pilot.press(*"hello", "enter")
        await settle(app, pilot)
        assert seq(app) == 61 and "/hello 1 of 4" in title(app)  # down from the last event: wrapped to the top
        await pilot.press("n")
        await settle(app, pilot)
        assert seq(app) == 64 and "2 of 4" in title(app)


async def test_a_log_without_a_verdict_searches_down_from_the_cursor():
    app = make_app(shared(WRITTEN / "child-subagent__session.jsonl.zstd"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        assert app.diag.verdict is None
        app.jump_to(0)
        await settle(app, pilot)
        await search(app, pilot, "slash", "seq")  # in every record
        assert app.current_index == 1 and "/seq 2 of " in title(app)  # down: the next event
        await pilot.press("N")
        await settle(app, pilot)
        assert app.current_index == 0 and "1 of" in title(app)


async def test_matches_are_highlighted_in_the_rows(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await search(app, pilot, "slash", "BASH")
        row = app.events.cursor
        match = app.events.style("eventlist--match")
        hit = [s for s in app.events.render_row(row, 100, False) if s.style and s.style.reverse]
        assert hit and {s.text.lower() for s in hit} == {"bash"} and match.reverse
        await search(app, pilot, "slash", "zzz-nowhere")
        assert not [s for s in app.events.render_row(row, 100, False) if s.style and s.style.reverse]


async def test_chunk_deltas_of_one_block_count_as_one_hit(write_jsonl):
    deltas = [chunk(k, "the answer" if k % 2 else " more") for k in range(1, 21)]
    records = [ev("user/message", 0, {"text": "what is the answer"}), *deltas, chunk(21, "answer", index=1)]
    app = make_app(write_jsonl(records), lenient=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        app.jump_to(0)
        await settle(app, pilot)
        await search(app, pilot, "backslash" if app.explorer.search.default_direction() < 0 else "slash", "answer")
        assert seq(app) == 1 and "2 of 3" in title(app)  # the message, block 0's first delta, block 1
        await pilot.press("n" if app.explorer.search.direction > 0 else "N")
        await settle(app, pilot)
        assert seq(app) == 21 and "3 of 3" in title(app)


@pytest.mark.skipif(not hasattr(DetailView, "set_highlight"), reason="the detail pane's highlight: widgets/detail.py")
async def test_matches_are_highlighted_in_the_detail_pane(demo):
    app = make_app(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        await search(app, pilot, "slash", "Deploy")
        strips = [app.detail.render_line(y) for y in range(app.detail.scrollable_content_region.height)]
        hits = [s.text for strip in strips for s in strip if s.style and s.style.reverse and s.text.lower() == "deploy"]
        assert hits
