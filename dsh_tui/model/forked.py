"""Run one function in a forked child and collect its (pickled) result without ever blocking.

Used where a second core pays off and threads would only contend for the GIL:
the tail segment of a big log (segments.py) and the explorer's early look at a
crash's tail (tail.py) while Textual is still being imported. The child never
returns into the caller's stack, and the parent can always give up on it.
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import time
from typing import Any, Callable

from .source import Cancelled

_exit = os._exit  # bound at import: the child leaves through it whatever happens later


class ForkedCall:
    """``fn(*args)`` in a forked child; `collect` returns its result, or None when it failed."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self.started = time.monotonic()
        self.status = -1
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            code = 1
            try:
                os.close(rfd)
                gc.disable()  # short-lived: nothing to collect before it exits
                payload = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
                with memoryview(payload) as view:
                    while view:
                        view = view[os.write(wfd, view):]
                code = 0
            finally:
                _exit(code)
        os.close(wfd)
        self.pid, self.rfd = pid, rfd

    def ready(self) -> bool:
        """True once the child has started writing (or died): `collect` will not wait."""
        return self.rfd < 0 or bool(select.select([self.rfd], [], [], 0)[0])

    def collect(self, cancel=None, patience: float = 30.0) -> Any:
        """The child's result; None when it failed, was killed, or took over ``patience`` s."""
        result = None
        deadline = time.monotonic() + patience
        try:
            if self.rfd < 0:
                return None
            while True:  # the child writes once it is done
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                if select.select([self.rfd], [], [], 0.1)[0]:
                    break
                if time.monotonic() > deadline:
                    return None
            with os.fdopen(self.rfd, "rb", buffering=1 << 20, closefd=False) as pipe:
                result = pickle.load(pipe)  # streamed: the payload is never held twice
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError):
            result = None  # the child failed or was killed mid-write
        finally:
            self.close(kill=result is None)
        return result if self.status == 0 else None

    def close(self, *, kill: bool = True) -> None:
        """Reap the child, killing it first unless it is known to be exiting (idempotent)."""
        if self.rfd >= 0:
            os.close(self.rfd)
            self.rfd = -1
        if self.pid:
            try:
                if kill:
                    os.kill(self.pid, signal.SIGKILL)
                _, status = os.waitpid(self.pid, 0)
                self.status = os.waitstatus_to_exitcode(status)
            except (ChildProcessError, ProcessLookupError):
                self.status = -1
            self.pid = 0
