"""Opening on the verdict shows what came after it: every later event when they fit in the events
pane, else the verdict near the top and, in the pane's title, how many later events are below.
Read off the screen, on a log built here (a failed read, then the model's answer, the turn's end, a
title and a todo list: 14 events after the verdict) and on the log dsh's writer wrote whose verdict
(seq 50 of 70) has an approval and a turn's end after it."""

from __future__ import annotations

import re

import pytest

from dsh_tui.demo import EventBuilder, ToolCall, demo_header, write_log

from ..support.app import make_app, ready
from ..support.logs import shared_log

pytestmark = pytest.mark.usefixtures("isolated_xdg")


@pytest.fixture(params=["built", "written"])
def log_path(request, tmp_path):
    if request.param == "written":
        return shared_log("written/live-zstd__session.jsonl.zstd")
    b = EventBuilder(1_796_218_179_615, seed=5)
    b.turn_start(1)
    b.model_step(1, 1, user="read it", text="reading", calls=[ToolCall(
        "call_read_missing", "read", '{"file_path":"missing.txt"}', "not found", is_error=True,
        error={"name": "FsError", "code": "FS_NOT_FOUND"})])
    b.model_step(1, 2, text="Not found.")
    b.turn_end(1, "completed")
    b.session_title("Read a file", [0])
    b.todo_write([("read the file", "completed")])
    path = tmp_path / "later.jsonl.zstd"
    write_log(path, demo_header(), b.finish())
    return path


def pane_lines(app) -> list[str]:
    region = app.events.region
    strips = app.screen._compositor.render_strips()
    return [strips[y].text[region.x:region.right] for y in range(region.y, region.bottom)]


def seqs_shown(app) -> list[int]:
    return [int(m[1]) for line in pane_lines(app)[1:] if (m := re.match(r".\s*(\d+) ", line))]


async def test_every_later_event_is_in_view_when_they_fit(log_path):
    app = make_app(log_path)
    async with app.run_test(size=(160, 45)) as pilot:  # 25 rows: the verdict and its 14 or 19 later events fit
        await ready(app, pilot)
        log, verdict = app.log_, app.diag.verdict.index
        later = [log.seq_of(i) for i in range(verdict + 1, len(log))]
        assert later and app.current_index == verdict
        shown = seqs_shown(app)
        assert log.seq_of(verdict) in shown and set(later) <= set(shown)
        assert "later event" not in pane_lines(app)[0]


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (160, 45)])
async def test_the_later_events_out_of_view_are_counted_in_the_title(log_path, size):
    app = make_app(log_path)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        log, verdict = app.log_, app.diag.verdict.index
        shown = seqs_shown(app)
        hidden = len(log) - 1 - log.index_of_seq(shown[-1])
        title = pane_lines(app)[0]
        if not hidden:  # they fit: every one is in view, and nothing to say
            assert "later event" not in title
            return
        assert log.seq_of(verdict) in shown and shown.index(log.seq_of(verdict)) <= len(shown) // 3
        assert f"↓ {hidden} later events below" in title
        await pilot.press("j")  # moved: the note goes
        await pilot.pause()
        assert "later event" not in pane_lines(app)[0]
