"""Anomaly navigation: e / E step through the active kind from the cursor (wrapping with a notice),
a picks the kind from a list with the counts, and the events pane's title says the kind and the
place, on screen (the list draws no bottom rule: a subtitle there was never seen). On the demo log
(two error results, a retry, an unpaired call and its open turn) and on the log dsh's writer wrote
with a retry (tests/parity/timing)."""

from __future__ import annotations

import pytest

from dsh_tui.settings import Settings
from dsh_tui.ui.screens.anomaly_kind import AnomalyKindScreen

from ..support.app import make_app, notices, ready
from ..support.logs import PARITY

pytestmark = pytest.mark.usefixtures("isolated_xdg")

TIMED = PARITY / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"


def subtitle(app) -> str:
    """The events pane's place note as the screen shows it: read off its top rule, drawn."""
    region = app.events.region
    strips = app.screen._compositor.render_strips()
    rule = strips[region.y].text[region.x:region.right]  # the pane's first line: its top rule
    return rule[rule.index("e/E "):].rstrip("─ ") if "e/E " in rule else ""


async def test_e_and_E_step_through_every_anomaly_and_wrap(demo):
    app = make_app(demo)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await ready(app, pilot)
        every = app.explorer.anomalies.indexes("any")
        timing = app.diag.timing
        expected = sorted({i for k in ("error", "retry", "turn-end", "unpaired", "approval", "compaction", "stall")
                           for i in timing.anomalies(k, 30_000)})
        assert every == expected and len(every) >= 4
        assert subtitle(app) == ""  # not shown before the keys are used
        app.jump_to(0)
        await pilot.pause()
        seen = []
        for _ in every:
            await pilot.press("e")
            await pilot.pause()
            seen.append(app.current_index)
        assert seen == every
        assert subtitle(app).startswith(f"e/E anomaly {len(every)} of {len(every)}")
        await pilot.press("e")  # past the last: wraps to the first, and says so
        await pilot.pause()
        assert app.current_index == every[0]
        assert "wrapped around to the first anomaly" in notices(app)  # not "anomalys wrapped around"
        await pilot.press("E")  # before the first: wraps to the last
        await pilot.pause()
        assert app.current_index == every[-1]
        await pilot.press("E")
        await pilot.pause()
        assert app.current_index == every[-2]
        assert f"{len(every) - 1} of {len(every)}" in subtitle(app)


async def test_a_picks_the_kind_and_e_keeps_to_it(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(app, pilot)
        errors = app.diag.timing.anomalies("error")
        assert len(errors) == 2
        app.jump_to(0)
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AnomalyKindScreen)
        text = [o.prompt.plain for o in app.screen.query_one("#anomaly-kinds").options]
        assert text[0].startswith("●") and "any anomaly" in text[0]
        assert any("2  error result" in t for t in text)
        await pilot.press("down", "enter")  # the second row: error results
        await pilot.pause()
        assert not isinstance(app.screen, AnomalyKindScreen) and app.explorer.anomalies.kind == "error"
        assert subtitle(app).startswith("e/E error ·/2 (before the first)")
        await pilot.press("e")
        await pilot.pause()
        assert app.current_index == errors[0] and "error 1 of 2" in subtitle(app)
        await pilot.press("e")
        await pilot.pause()
        assert app.current_index == errors[1]
        app.jump_to(errors[1] - 1)  # between the two: the place says so, on the cursor move
        await pilot.pause()
        assert "error 1–2 of 2" in subtitle(app)


async def test_a_kind_with_none_says_so_and_stays_put(demo):
    app = make_app(demo)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await ready(app, pilot)
        assert app.diag.timing.anomalies("compaction") == []
        await pilot.press("a")
        await pilot.pause()
        ids = [o.id for o in app.screen.query_one("#anomaly-kinds").options]
        app.screen.query_one("#anomaly-kinds").highlighted = ids.index("compaction")
        await pilot.press("enter")
        await pilot.pause()
        before = app.current_index
        await pilot.press("e")
        await pilot.pause()
        assert app.current_index == before
        assert any("no compaction in this log" in n for n in notices(app))
        await pilot.press("a", "escape")  # esc keeps the kind
        await pilot.pause()
        assert app.explorer.anomalies.kind == "compaction"


async def test_the_retry_of_a_log_dshs_writer_wrote():
    app = make_app(TIMED)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        retries = app.diag.timing.anomalies("retry")
        assert len(retries) == 1
        assert app.log_.seq_of(retries[0]) == 42  # the llm/retry the writer made
        app.jump_to(0)
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert app.current_index in app.explorer.anomalies.indexes("any") and app.current_index <= retries[0]
        while app.current_index != retries[0]:
            await pilot.press("e")
            await pilot.pause()
        assert app.log_.seq_of(app.current_index) == 42


async def test_the_stall_threshold_comes_from_the_settings(demo):
    app = make_app(demo, settings=Settings(stall_seconds=0.5))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert app.explorer.anomalies.stall_ms == 500
        assert app.explorer.anomalies.indexes("stall") == app.diag.timing.anomalies("stall", 500)
