"""Scenes for scripts/screenshots.py beyond one static log: a subagent family and a growing log.

Both logs come from the project's generator (`EventBuilder`, the demo log's
frames) in a dsh session root laid out like ~/.dsh/sessions, with pinned
createdAt/time fields and mtimes, so the screenshots are the same every run.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from dsh_tui.demo import EventBuilder, demo_batches, write_log
from dsh_tui.gen.builder import ToolCall
from dsh_tui.gen.storage import encode_log
from dsh_tui.model.sessions.layout import encode_segment, project_key
from dsh_tui.model.reading.frames import walk_frames
from dsh_tui.ui.app import ExplorerApp

T0 = 1_796_300_000_000  # createdAt base (ms)
MTIME = 1_796_300_000
APP = "/home/user/projects/shop-api"
PARENT = "5e1d0c3a-7a2b-4c1d-9e8f-000000000001"
SMOKE = "5e1d0c3a-7a2b-4c1d-9e8f-000000000002"  # child: completes
MIGRATE = "5e1d0c3a-7a2b-4c1d-9e8f-000000000003"  # forked child, created after SMOKE: crashes mid-call
CHECK = "5e1d0c3a-7a2b-4c1d-9e8f-000000000004"  # grandchild (of MIGRATE): completes
TASK = {"name": "task", "description": "Delegate a task to a subagent session.",
        "parameters": {"type": "object", "properties": {"prompt": {"type": "string"}}}}
BASH = {"name": "bash", "description": "Run a shell command.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}
FOLLOW_FROM, FOLLOW_TO, FOLLOW_EVENTS = 30, 54, 273  # demo frames: turn 1 done (157 events), + turn 2
ASK = "Release v1.3: run the database migration and the smoke tests, each in a subagent."


def _header(sid: str, created: int, **extra) -> dict:
    return {"type": "session", "version": 0, "id": sid, "createdAt": created, "cwd": APP,
            "delegationDepth": 0, "agentPreset": "standard", **extra}


def _write(root: Path, h: dict, batches: list[list[dict]]) -> Path:
    path = root / project_key(h["cwd"]) / encode_segment(h["id"]) / "session.jsonl.zstd"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_log(path, h, batches)
    os.utime(path, (MTIME, MTIME))
    return path


def _child(parent: str, depth: int, **extra) -> dict:
    return {"parentSession": parent, "origin": "subagent", "delegationDepth": depth, **extra}


def make_family(root: Path) -> dict[str, Path]:
    """A parent that delegates two tasks; the forked migration child crashes mid-call and has a child.

    The children screen draws the tree `find_lineage` lists depth-first (each row
    knows its parent): SMOKE, then MIGRATE with CHECK, its own child, under it.
    """
    b = EventBuilder(T0, seed=11)
    b.turn_start(1)
    b.model_step(1, 1, user=ASK, header={"tools": [TASK, BASH]},
                 text="Delegating the smoke tests and the migration.",
                 calls=[ToolCall("call_task_smoke", "task", json.dumps({"prompt": "run the smoke tests"}),
                                 "smoke tests: 14 passed"),
                        ToolCall("call_task_migrate", "task", json.dumps({"prompt": "run the v1.3 migration"}),
                                 "subagent ended without a result", is_error=True)])
    b.model_step(1, 2, text="The smoke tests pass; the migration subagent stopped without a result.")
    b.turn_end(1)
    out = {"parent": _write(root, _header(PARENT, T0), b.finish())}

    s = EventBuilder(T0 + 2_000, seed=14)
    s.turn_start(1)
    s.model_step(1, 1, user="run the smoke tests", header={"tools": [BASH]},
                 calls=[ToolCall("call_smoke", "bash", json.dumps({"command": "pytest -q tests/smoke"}),
                                 "14 passed in 3.1s")])
    s.model_step(1, 2, text="smoke tests: 14 passed")
    s.turn_end(1)
    out["smoke"] = _write(root, _header(SMOKE, T0 + 2_000, **_child(PARENT, 1)), s.finish())

    # Forked from the parent's conversation: the seed (its events), session/end-seed, then its own turn.
    c = EventBuilder(T0 + 2_500, seed=12)
    c.turn_start(1)
    c.model_step(1, 1, user=ASK, header={"tools": [TASK, BASH]}, text="Delegating the migration.")
    c.turn_end(1)
    seed = c.emit("session/end-seed", {})["seq"] + 1
    c.turn_start(2)
    c.model_step(2, 1, user="run the v1.3 migration", header={"tools": [TASK, BASH]},
                 reasoning="Check the schema first in a subagent, then migrate.",
                 calls=[ToolCall("call_check", "task", json.dumps({"prompt": "check the schema"}), "schema ok")])
    c.model_step(2, 2, text="Schema is fine. Migrating.",
                 calls=[ToolCall("call_migrate", "bash", json.dumps({"command": "alembic upgrade head"}), None)],
                 end=False)  # the process died: the call started, no result, the turn is open
    out["migrate"] = _write(root, _header(MIGRATE, T0 + 2_500, seedLength=seed, **_child(PARENT, 1)), c.finish())

    g = EventBuilder(T0 + 3_000, seed=13)
    g.turn_start(1)
    g.model_step(1, 1, user="check the schema", header={"tools": [BASH]}, text="schema ok")
    g.turn_end(1)
    out["check"] = _write(root, _header(CHECK, T0 + 3_000, **_child(MIGRATE, 2)), g.finish())
    return out


async def _until(app, pilot, cond, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if app._exception is not None or time.monotonic() > deadline:
            raise SystemExit(f"screenshot: timed out waiting for {what} ({app._exception!r})")
        await pilot.pause(0.02)


async def _shown(app, pilot, session_id: str) -> None:
    """The explorer shows ``session_id`` with its family found and its detail pane filled."""
    def done() -> bool:
        return (app.load_finished and app.log_ is not None and app.log_.session_id == session_id
                and app.explorer.family.lineage is not None
                and not any(w.group in ("load", "lineage") and not w.is_finished for w in app.workers))
    await _until(app, pilot, done, session_id)
    await pilot.pause(0.05)
    app.flush_detail()
    await pilot.pause()


async def _children(app, pilot) -> None:
    from dsh_tui.ui.screens.family import ChildrenScreen
    await pilot.press("c")
    await _until(app, pilot, lambda: isinstance(app.screen, ChildrenScreen), "the children list")
    await pilot.pause()


async def _family_shot(root: Path, name: str, size: tuple[int, int], then=None) -> str:
    """The parent opened, `c` pressed; ``then(app, pilot)`` goes on from the children list."""
    paths = make_family(root)
    app = ExplorerApp(paths["parent"], native_clipboard=False, detail_delay=0.01)
    async with app.run_test(size=size) as pilot:
        await _shown(app, pilot, PARENT)
        await _children(app, pilot)
        if then is not None:
            await then(app, pilot)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def shoot_subagent_tree(root: Path, name: str, size: tuple[int, int]) -> str:
    """The parent: its family and the failed child in the header, `c` lists the descendants."""
    return await _family_shot(root, name, size)


async def shoot_subagent_child(root: Path, name: str, size: tuple[int, int]) -> str:
    """`c`, Enter on the failed child: the DELEGATED badge, parent/depth/seedLength, the seed rows marked."""
    async def open_child(app, pilot) -> None:
        await pilot.press("down", "enter")  # the second child: MIGRATE
        await _shown(app, pilot, MIGRATE)
        app.jump_to(app.events.seed_end + 1)  # its own first row: the ┴ end-seed and the ┊ seed rows above
        await pilot.pause(0.05)
        app.flush_detail()
        await pilot.pause()
    return await _family_shot(root, name, size, open_child)


async def shoot_follow(root: Path, name: str, size: tuple[int, int]) -> str:
    """The demo log written up to the end of turn 1, opened, then turn 2 appended frame by frame
    (O_APPEND writes of whole zstd frames, as dsh does): the new rows and the new verdict, following."""
    header, batches = demo_batches()
    data = encode_log(header, batches)
    spans = list(walk_frames(data))
    start = spans[FOLLOW_FROM].start
    path = root / project_key(header["cwd"]) / encode_segment(header["id"]) / "session.jsonl.zstd"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data[:start])
    os.utime(path, (MTIME, MTIME))
    app = ExplorerApp(path, native_clipboard=False, detail_delay=0.01)
    app.explorer.follow.interval = 0.2
    async with app.run_test(size=size) as pilot:
        await _shown(app, pilot, header["id"])
        first = len(app.log_)
        await pilot.press("end")  # at the end: the cursor stays on the newest row as the file grows
        for span in spans[FOLLOW_FROM:FOLLOW_TO]:
            with open(path, "ab") as fh:
                fh.write(data[span.start:span.end])
        await _until(app, pilot, lambda: app.events.row_count() == FOLLOW_EVENTS, "the appended events")
        await _until(app, pilot, lambda: not any(w.group == "follow" and not w.is_finished for w in app.workers),
                     "the last poll")
        await pilot.pause(0.05)
        app.flush_detail()
        await pilot.pause()
        if first >= FOLLOW_EVENTS or app.explorer.follow.state() is None or app.explorer.follow.state()[0] != "following":
            raise SystemExit(f"{name}: the log did not grow while followed ({first} events, {app.explorer.follow.state()})")
        return app.export_screenshot(title=f"dsh-tui: {name}")
