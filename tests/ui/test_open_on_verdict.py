"""Opening on the verdict shows what came after it: every later event when they fit in the events
pane, else the verdict near the top and, in the pane's title, how many later events are below.
Read off the screen, on the log dsh's writer wrote whose verdict (seq 50 of 70) has an approval and a
turn's end after it."""

from __future__ import annotations

import re

import pytest

from ..support.app import make_app, ready
from ..support.logs import shared_log

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def pane_lines(app) -> list[str]:
    region = app.events.region
    strips = app.screen._compositor.render_strips()
    return [strips[y].text[region.x:region.right] for y in range(region.y, region.bottom)]


def seqs_shown(app) -> list[int]:
    return [int(m[1]) for line in pane_lines(app)[1:] if (m := re.match(r".\s*(\d+) ", line))]


async def test_every_later_event_is_in_view_when_they_fit():
    app = make_app(shared_log("written/live-zstd__session.jsonl.zstd"))
    async with app.run_test(size=(160, 45)) as pilot:  # 25 rows: the verdict and its 19 later events fit
        await ready(app, pilot)
        log, verdict = app.log_, app.diag.verdict.index
        later = [log.seq_of(i) for i in range(verdict + 1, len(log))]
        assert later and app.current_index == verdict
        shown = seqs_shown(app)
        assert log.seq_of(verdict) in shown and set(later) <= set(shown)
        assert "later event" not in pane_lines(app)[0]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_later_events_that_do_not_fit_are_counted_in_the_title(size):
    app = make_app(shared_log("written/live-zstd__session.jsonl.zstd"))
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        log, verdict = app.log_, app.diag.verdict.index
        shown = seqs_shown(app)
        assert log.seq_of(verdict) in shown and shown.index(log.seq_of(verdict)) <= len(shown) // 3
        hidden = len(log) - 1 - log.index_of_seq(shown[-1])
        assert hidden > 0 and f"↓ {hidden} later events below" in pane_lines(app)[0]
        await pilot.press("j")  # moved: the note goes
        await pilot.pause()
        assert "later event" not in pane_lines(app)[0]
