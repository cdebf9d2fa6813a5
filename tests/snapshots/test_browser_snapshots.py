"""SVG snapshots of the session browser at 80x24 and 160x45 (pytest-textual-snapshot).

Deterministic: the generated root (fixed ids and createdAt), every file's
mtime pinned, HOME set so the root shows as ``~/dsh/sessions``, statuses
awaited before the screenshot. Regenerate with
``pytest tests/test_browser_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import os
import time

import pytest

from dsh_tui.ui.app import ExplorerApp
from dsh_tui.ui.screens.browser import BrowserScreen

from ..support.session_roots import build_root

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]
MTIME = 1_796_300_000  # 2026-12-03 12:13 UTC, for every file


@pytest.fixture(autouse=True)
def _isolated(isolated_xdg, monkeypatch):
    monkeypatch.setenv("HOME", str(isolated_xdg))


def pinned_root(tmp_path):
    built = build_root(tmp_path / "dsh" / "sessions")
    for dirpath, _dirs, files in os.walk(built.root):
        for name in files:
            os.utime(os.path.join(dirpath, name), (MTIME, MTIME))
    return built


@pytest.fixture
def browser(tmp_path) -> ExplorerApp:
    built = pinned_root(tmp_path)
    app = ExplorerApp(built.root, native_clipboard=False, detail_delay=0.01)
    app.browse_root = built.root
    app.theme = "textual-dark"
    return app


async def listed(pilot) -> None:
    app = pilot.app
    deadline = time.monotonic() + 30
    while True:
        s = app.screen
        if isinstance(s, BrowserScreen) and s.listing is not None and s.pending == 0 and not any(
                w.group in ("listing", "fill") and not w.is_finished for w in app.workers):
            break
        assert time.monotonic() < deadline and app._exception is None, "the browser never filled"
        await pilot.pause(0.02)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_browser(snap_compare, browser, size):
    assert snap_compare(browser, terminal_size=size, run_before=listed)


@pytest.mark.parametrize("size", SIZES)
def test_browser_filtered(snap_compare, browser, size):
    async def run_before(pilot) -> None:
        await listed(pilot)
        await pilot.press("slash", *"interrupted", "enter")  # enter: back to the list (no blinking cursor)
        await pilot.pause()

    assert snap_compare(browser, terminal_size=size, run_before=run_before)
