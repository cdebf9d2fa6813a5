"""Run one function in a forked child and collect its (pickled) results without ever blocking.

Used where a second core pays off and threads would only contend for the GIL:
the tail segment of a big log (split/helper.py, results streamed as they are made)
and the explorer's early look at a crash's tail (tail.py) while Textual is still
being imported. The child never returns into the caller's stack, and the parent
can always give up on it. Each result goes through the pipe as a length-prefixed
pickle, so the parent reads exactly one result and never waits on a read-ahead.
"""

from __future__ import annotations

import gc
import os
import pickle
import queue
import select
import signal
import struct
import threading
import time
from typing import Any, Callable

from .source import Cancelled

_exit = os._exit  # bound at import: the child leaves through it whatever happens later


_LEN = struct.Struct("<Q")
_in_child = False  # set in a forked child, which leaves through os._exit


def can_fork() -> bool:
    """A forked child pays off only where there is a second core to run it, and is made only from
    the main thread: a fork copies one thread, so a lock another thread holds (the explorer's
    event loop, while its decode worker runs) stays held in the child forever (Python 3.12+
    warns). `dsh-tui FILE` and `check` fork their helpers before any other thread starts."""
    return hasattr(os, "fork") and usable_cpus() > 1 and threading.current_thread() is threading.main_thread()


def usable_cpus() -> int:
    """The cores this process may run on: its affinity (taskset, a cgroup's cpuset), not the
    machine's count. Pinned to one core, a helper only adds its fork and merge to the same core
    (check on the 936k log, taskset -c 0: the helper cost ~0.16 s of CPU)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _write_all(fd: int, payload: bytes) -> None:
    with memoryview(_LEN.pack(len(payload)) + payload) as view:
        while view:
            view = view[os.write(fd, view):]


def _writer(fd: int, out: queue.SimpleQueue, failed: list) -> None:
    """Child-side: write queued payloads while the main thread makes the next (the pipe may be full)."""
    try:
        while (payload := out.get()) is not None:
            _write_all(fd, payload)
    except OSError:
        failed.append(True)


def _child(wfd: int, fn: Callable[..., Any], args: tuple, stream: bool) -> int:
    global _in_child
    _in_child = True
    if not stream:
        _write_all(wfd, pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL))
        return 0
    out: queue.SimpleQueue = queue.SimpleQueue()
    failed: list = []
    writer = threading.Thread(target=_writer, args=(wfd, out, failed), daemon=True)
    writer.start()
    try:
        for item in fn(*args):
            out.put(pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        out.put(None)
        writer.join()
    return 1 if failed else 0


class ForkedCall:
    """``fn(*args)`` in a forked child; `collect` returns its result, or None when it failed.

    With ``stream=True`` ``fn`` is a generator: `next` returns each item as the child yields it."""

    def __init__(self, fn: Callable[..., Any], *args: Any, stream: bool = False) -> None:
        self.started = time.monotonic()
        self.status = -1
        self._collected: list = []  # collect's answer, kept: the splash collects, the app reads it again
        if threading.current_thread() is not threading.main_thread():  # see can_fork: callers check first
            raise RuntimeError("refusing to fork from a thread other than the main thread")
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            code = 1
            try:
                os.close(rfd)
                gc.disable()  # short-lived: nothing to collect before it exits
                code = _child(wfd, fn, args, stream)
            finally:
                _exit(code)
        os.close(wfd)
        self.pid, self.rfd = pid, rfd

    def ready(self) -> bool:
        """True once the child has started writing (or died): `collect` will not wait."""
        return self.rfd < 0 or bool(select.select([self.rfd], [], [], 0)[0])

    def next(self, cancel=None, patience: float = 30.0) -> Any:
        """The child's next result; None when it failed, was killed, ended or took over ``patience`` s
        (the child is then killed: after a None there is nothing more to read)."""
        result = None
        ok = False
        deadline = time.monotonic() + patience
        try:
            if self.rfd < 0:
                return None
            while True:  # the child writes once a result is made
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                if select.select([self.rfd], [], [], 0.1)[0]:
                    break
                if time.monotonic() > deadline:
                    return None
            head = self._read(_LEN.size)
            if head is not None:
                body = self._read(_LEN.unpack(head)[0])
                if body is not None:
                    result, ok = pickle.loads(body), True
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, OSError):
            result = None  # the child failed or was killed mid-write
        finally:
            if not ok:
                self.close()
        return result

    def _read(self, n: int) -> bytearray | None:
        """Exactly ``n`` bytes from the pipe (blocking: the child is writing them), or None at its end."""
        buf = bytearray(n)
        with memoryview(buf) as view:
            got = 0
            while got < n:
                k = os.readv(self.rfd, [view[got:]])
                if k == 0:
                    return None
                got += k
        return buf

    def collect(self, cancel=None, patience: float = 30.0) -> Any:
        """The child's (only) result; None when it failed, was killed, or took over ``patience`` s.
        A second call returns the first one's answer."""
        if not self._collected:
            result = self.next(cancel, patience)
            self.close(kill=result is None)
            self._collected.append(result if self.status == 0 else None)
        return self._collected[0]

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
