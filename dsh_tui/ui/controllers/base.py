"""What every controller has: its port (the explorer screen, seen through the narrow `Protocol` the
controller declares in controllers/ports.py), the worker groups it owns, a reset for a new session, and
``session_changed`` for each new log in place or painted (published by the screen)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from textual.worker import Worker

from .ports import Port


@dataclass(frozen=True)
class SessionChanged:
    """A session change, published to every controller: ``how`` is "set" (a log and its diagnosis in place:
    read, or restored by back), "grown" (live follow read more; ``replaced``: a new file under the path) or
    "shown" (painted: the list, header and panes show it)."""

    how: str
    log: Any
    diag: Any
    replaced: bool = False


class Controller:
    port: Port  # what it may reach of the explorer (controllers/ports.py)
    groups: tuple[str, ...] = ()  # worker groups whose state changes come to ``worker_changed``

    def __init__(self, port) -> None:
        self.port = port

    def run(self, work: Callable[[], Any], group: str, *, exclusive: bool = False, description: str = "") -> Worker:
        """Run ``work`` in a thread worker of the explorer, in ``group`` (one of ``groups``)."""
        return self.port.run_worker(work, group=group, thread=True, exclusive=exclusive, exit_on_error=False,
                                    description=description or group)

    def cancel(self) -> None:
        for group in self.groups:
            self.port.cancel_workers(group)

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """A worker of one of ``groups`` changed state."""

    def session_changed(self, change: SessionChanged) -> None:
        """A log is in place, grew or is painted (the screen publishes it to every controller)."""

    def reset(self) -> None:
        """Another session is being opened: forget this one's state (and cancel its workers)."""
        self.cancel()
