"""Quitting frees nothing and waits for no background work (issue: quitting after a 3.5 GB session
took 8.8 s): the app runs on a loop that is not closed after, so a worker thread still busy (a cache
save, the timing rows made ahead) is not joined; cli.entry then ends the process with os._exit."""

from __future__ import annotations

import asyncio
import threading

from textual.app import App

from dsh_tui.ui import run as app_module


class _Busy(App):
    """Starts a thread worker that is still running when the app exits."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release, self.done = threading.Event(), threading.Event(), threading.Event()

    def on_mount(self) -> None:
        self.run_worker(self._work, thread=True)

    def _work(self) -> None:
        self.started.set()
        self.call_from_thread(self.exit, 0)
        self.release.wait(5)  # (a join would wait out this timeout: the test would then fail)
        self.done.set()


def test_quitting_does_not_wait_for_a_busy_worker_thread():
    busy = _Busy()
    try:
        assert app_module._run(busy, headless=True) == 0
        assert busy.started.is_set() and not busy.done.is_set()  # returned while the worker still ran
    finally:
        busy.release.set()
        kept, loop = app_module._RAN.pop()
        assert kept is busy  # kept, not freed, until the process ends
        busy.done.wait(5)
        loop.close()
        asyncio.set_event_loop(None)
