"""Driving the explorer under Pilot: build it, wait for the load and the detail pane, read what it shows."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.worker import WorkerFailed

from dsh_tui.ui.app import ExplorerApp
from dsh_tui.ui.widgets.cmdline import CommandLine

from .logs import DSH_LOGS

WRITTEN = DSH_LOGS / "written"
LARGE = DSH_LOGS / "large"



def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path



def make_app(path: Path, **kw) -> ExplorerApp:
    return ExplorerApp(path, native_clipboard=False, detail_delay=0.01, **kw)


async def workers_done(app: ExplorerApp) -> None:
    try:
        await app.workers.wait_for_complete()
    except WorkerFailed:  # a loader error is shown on the error screen
        pass


async def ready(app: ExplorerApp, pilot) -> None:
    """Wait for the loader (bounded), then for the debounced detail pane."""
    deadline = time.monotonic() + 30
    while not app.load_finished:
        assert time.monotonic() < deadline and app._exception is None, "the log never loaded"
        await workers_done(app)
        await pilot.pause(0.01)
    await settle(app, pilot)


async def settle(app: ExplorerApp, pilot) -> None:
    await workers_done(app)
    await pilot.pause(0.05)
    app.flush_detail()
    await pilot.pause()


def detail_text(app: ExplorerApp) -> str:
    return "\n".join(app.detail.plain_lines())



def prompt(app) -> CommandLine:
    return app.query_one(CommandLine)


def bottom_row(app) -> str:
    """The screen's last row as the compositor draws it (the prompt lies over the footer)."""
    return app.screen._compositor.render_strips()[-1].text


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]



def record_repaints(app, monkeypatch) -> list[Region]:
    """From now on, the screen region each frame re-renders (the union of its dirty regions)."""
    compositor = app.screen._compositor
    seen: list[Region] = []
    real = compositor.render_update

    def spy(*args, **kwargs):
        if compositor._dirty_regions:
            seen.append(Region.from_union(list(compositor._dirty_regions)))
        return real(*args, **kwargs)

    monkeypatch.setattr(compositor, "render_update", spy)
    return seen

