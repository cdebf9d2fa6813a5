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
import struct
import time
from typing import Any, Callable

from .source import Cancelled

_exit = os._exit  # bound at import: the child leaves through it whatever happens later


_PROGRESS = struct.Struct("=QQ")  # (done, total), one small write each: atomic on a pipe


class ForkedCall:
    """``fn(*args)`` in a forked child; `collect` returns its result, or None when it failed.

    With ``progress=True`` the child runs ``fn(*args, report=report)``; ``report(done, total)``
    never blocks (a report the pipe has no room for is dropped) and `collect` hands the
    latest one to its ``on_progress``.
    """

    def __init__(self, fn: Callable[..., Any], *args: Any, progress: bool = False) -> None:
        self.started = time.monotonic()
        self.status = -1
        rfd, wfd = os.pipe()
        prfd, pwfd = os.pipe() if progress else (-1, -1)
        pid = os.fork()
        if pid == 0:  # child
            code = 1
            try:
                os.close(rfd)
                gc.disable()  # short-lived: nothing to collect before it exits
                if progress:
                    os.close(prfd)
                    os.set_blocking(pwfd, False)
                    result = fn(*args, report=lambda done, total: _report(pwfd, done, total))
                else:
                    result = fn(*args)
                payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
                with memoryview(payload) as view:
                    while view:
                        view = view[os.write(wfd, view):]
                code = 0
            finally:
                _exit(code)
        os.close(wfd)
        if progress:
            os.close(pwfd)
        self.pid, self.rfd, self.prfd = pid, rfd, prfd

    def ready(self) -> bool:
        """True once the child has started writing (or died): `collect` will not wait."""
        return self.rfd < 0 or bool(select.select([self.rfd], [], [], 0)[0])

    def collect(self, cancel=None, patience: float = 30.0, on_progress=None) -> Any:
        """The child's result; None when it failed, was killed, or took over ``patience`` s."""
        result = None
        deadline = time.monotonic() + patience
        try:
            if self.rfd < 0:
                return None
            while True:  # the child writes once it is done
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                watch = [self.rfd] if self.prfd < 0 else [self.rfd, self.prfd]
                ready = select.select(watch, [], [], 0.1)[0]
                if self.prfd in ready:
                    self._progress(on_progress)
                if self.rfd in ready:
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

    def _progress(self, on_progress) -> None:
        try:
            data = os.read(self.prfd, _PROGRESS.size * 256)
        except OSError:
            data = b""
        if not data:  # the child closed its end (exited)
            os.close(self.prfd)
            self.prfd = -1
            return
        whole = len(data) - len(data) % _PROGRESS.size
        if on_progress is not None and whole:
            on_progress(*_PROGRESS.unpack_from(data, whole - _PROGRESS.size))

    def close(self, *, kill: bool = True) -> None:
        """Reap the child, killing it first unless it is known to be exiting (idempotent)."""
        if self.prfd >= 0:
            os.close(self.prfd)
            self.prfd = -1
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


def _report(fd: int, done: int, total: int) -> None:
    try:
        os.write(fd, _PROGRESS.pack(max(0, done), max(0, total)))
    except OSError:  # full (the parent is not reading just now) or closed: progress is optional
        pass
