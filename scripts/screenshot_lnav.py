"""Scenes for scripts/screenshots.py of the lnav / less habits: the merged timeline of a parent and its
subagent children (C), and a regex search with its hits highlighted and counted (ctrl+r in /)."""

from __future__ import annotations

import json
from pathlib import Path

from dsh_tui.gen.builder import ToolCall
from dsh_tui.demo import EventBuilder
from dsh_tui.ui.app import ExplorerApp

from screenshot_live import BASH, PARENT, SMOKE, T0, TASK, _child, _header, _shown, _until, _write

MIGRATE = "5e1d0c3a-7a2b-4c1d-9e8f-000000000005"


def make_busy_family(root: Path) -> dict[str, Path]:
    """A parent whose two task calls run while its children work: the children's events fall between
    the parent's tool/call and tool/result rows, as a real delegation's do (each task call lasts until
    its child ends)."""
    b = EventBuilder(T0, seed=21)
    b.turn_start(1)
    b.model_step(1, 1, user="Release v1.3: smoke tests, then the migration, each in a subagent.",
                 header={"tools": [TASK, BASH]}, text="Delegating the smoke tests.",
                 calls=[ToolCall("call_task_smoke", "task", json.dumps({"prompt": "run the smoke tests"}),
                                 "smoke tests: 14 passed", duration_ms=3_000)])
    b.model_step(1, 2, text="Smoke tests pass. Now the migration.",
                 calls=[ToolCall("call_task_migrate", "task", json.dumps({"prompt": "run the v1.3 migration"}),
                                 "subagent ended without a result", is_error=True, duration_ms=3_000)])
    b.model_step(1, 3, text="The migration subagent stopped without a result.")
    b.turn_end(1)
    out = {"parent": _write(root, _header(PARENT, T0), b.finish())}
    s = EventBuilder(T0 + 200, seed=22)
    s.turn_start(1)
    s.model_step(1, 1, user="run the smoke tests", header={"tools": [BASH]},
                 calls=[ToolCall("call_smoke", "bash", json.dumps({"command": "pytest -q tests/smoke"}),
                                 "14 passed in 2.1s", duration_ms=2_100)])
    s.model_step(1, 2, text="smoke tests: 14 passed")
    s.turn_end(1)
    out["smoke"] = _write(root, _header(SMOKE, T0 + 200, **_child(PARENT, 1)), s.finish())
    m = EventBuilder(T0 + 3_400, seed=23)
    m.turn_start(1)
    m.model_step(1, 1, user="run the v1.3 migration", header={"tools": [BASH]},
                 calls=[ToolCall("call_migrate", "bash", json.dumps({"command": "alembic upgrade head"}), None)],
                 end=False)
    out["migrate"] = _write(root, _header(MIGRATE, T0 + 3_400, **_child(PARENT, 1)), m.finish())
    return out


async def shoot_merged_timeline(root: Path, name: str, size: tuple[int, int]) -> str:
    """A parent and its two children, C: their events in one list by time, the cursor on the parent's
    first task result, just after the smoke-test child's last rows."""
    paths = make_busy_family(root)
    app = ExplorerApp(paths["parent"], native_clipboard=False, detail_delay=0.01)
    async with app.run_test(size=size) as pilot:
        await _shown(app, pilot, PARENT)
        await pilot.press("C")
        await _until(app, pilot, lambda: app.explorer.timeline.timeline is not None, "the merged timeline")
        t = app.explorer.timeline.timeline
        row = next(r for r in range(len(t)) if t.session[r] == 0  # the parent's result, after its child ended
                   and t.members[0].log.event(t.index[r]).type == "tool/result")
        app.explorer.timeline.widget().move_to(row, center=True)
        await pilot.pause(0.05)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def regex_search(app, pilot) -> None:
    """/ then ctrl+r: a regex (smart case: lower case matches any case), every hit highlighted, "k of n"."""
    await pilot.press("slash", "ctrl+r", *r"call_0[0-9]_(deploy|tag)", "enter")
