"""Run a command in a child process and measure it: exit code, output, wall time and the child's
own peak RSS (os.wait4 returns the rusage of exactly that child, so earlier children of the test
process do not count). Used by the hostile-input tests' time and memory bounds.

The child runs under an address-space limit (RLIMIT_AS), so a regression that tries to eat the
machine fails quickly instead of pushing other work out of memory.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

AS_LIMIT = 3 << 30  # address space the child may map: far above the bounds asserted, far below the machine


@dataclass
class Measured:
    rc: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes
    timed_out: bool


def run_measured(argv: list[str], *, timeout: float = 60.0, as_limit: int = AS_LIMIT,
                 env: dict[str, str] | None = None) -> Measured:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (as_limit, as_limit))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=limit,
                                env=env)
        killed: list[bool] = []

        def kill() -> None:
            killed.append(True)
            os.kill(proc.pid, signal.SIGKILL)
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Measured(proc.returncode, out.read().decode("utf-8", "replace"),
                        err.read().decode("utf-8", "replace"), seconds, usage.ru_maxrss * 1024, bool(killed))


def check_argv(path, *extra: str) -> list[str]:
    """`dsh-tui check PATH` run by this interpreter, without the index cache."""
    return [sys.executable, "-m", "dsh_tui", "check", str(path), "--no-cache", *extra]
