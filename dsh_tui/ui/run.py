"""Running the explorer: `dsh-tui PATH`, `dsh-tui DIR` (the session browser), `dsh-tui SCAN-FOLDER` (the
fleet view); each an `ExplorerApp` (ui/app.py) with the user's settings."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App

from .app import ExplorerApp
from .settings_ui import read_settings

_RAN: list = []  # the apps run, kept to the end of the process


def _run(app: App, **options) -> int:
    """Run ``app``; its exit code. On a loop of its own that is not closed after: closing it (what
    asyncio.run does) joins the worker threads still running, a cache save or the timing rows made
    ahead, seconds on a big session after the terminal is already restored. The process then ends by
    os._exit (`cli.entry`) once the output is flushed, freeing nothing: the app, the session it holds
    and the loop are kept to then (freeing a 3.5 GB session's objects took seconds too). A cache
    save cut short leaves only its temp file, pruned later (cache.py)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app.run(loop=loop, **options)  # (options: the tests' headless=True)
    _RAN.append((app, loop))
    return app.return_code or 0


def run_app(path: str | Path, *, lenient: bool = False, max_plain: int | None = None, at_seq: int | None = None,
            tail_probe=None, early_tail=None) -> int:
    app = ExplorerApp(path, lenient=lenient, max_plain=max_plain, at_seq=at_seq, tail_probe=tail_probe,
                      early_tail=early_tail, settings=read_settings())
    return _run(app)


def run_browser(root: str | Path, *, lenient: bool = False, max_plain: int | None = None,
                notice: str | None = None) -> int:
    """`dsh-tui DIR`: the session browser on a root, a project or a session directory (``notice``: e.g. what a
    DSH_HOME naming the sessions folder itself should be)."""
    app = ExplorerApp(root, lenient=lenient, max_plain=max_plain, settings=read_settings())
    app.browse_root = Path(root)
    app.startup_notice = notice
    return _run(app)


def run_fleet(folder: str | Path) -> int:
    """`dsh-tui SCAN-FOLDER`: the fleet view of a scan; Enter opens a session at its verdict."""
    app = ExplorerApp(folder, settings=read_settings())
    app.fleet_dir = Path(folder)
    app.run()
    return app.return_code or 0


def run_explorer(path: str | Path, *, notice: str | None = None, lenient: bool = False,
                 max_plain: int | None = None, at_seq: int | None = None) -> int:
    """`run_app` plus a startup notice (e.g. "no sessions under ~/.dsh/sessions: the demo log")."""
    app = ExplorerApp(path, lenient=lenient, max_plain=max_plain, at_seq=at_seq, settings=read_settings())
    app.startup_notice = notice
    return _run(app)
