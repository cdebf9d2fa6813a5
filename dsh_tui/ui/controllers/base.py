"""What every controller has: the app it serves, the worker groups it owns, a reset for a new session."""

from __future__ import annotations

from typing import Any, Callable

from textual.worker import Worker


class Controller:
    groups: tuple[str, ...] = ()  # worker groups whose state changes come to ``worker_changed``

    def __init__(self, app) -> None:
        self.app = app

    def run(self, work: Callable[[], Any], group: str, *, exclusive: bool = False, description: str = "") -> Worker:
        """Run ``work`` in a thread worker of the app, in ``group`` (one of ``groups``)."""
        return self.app.run_worker(work, group=group, thread=True, exclusive=exclusive, exit_on_error=False,
                                   description=description or group)

    def cancel(self) -> None:
        for group in self.groups:
            self.app.workers.cancel_group(self.app, group)

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """A worker of one of ``groups`` changed state."""

    def reset(self) -> None:
        """Another session is being opened: forget this one's state (and cancel its workers)."""
        self.cancel()
