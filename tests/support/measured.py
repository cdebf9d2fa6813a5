"""Run a command in a child process and measure it: exit code, output, wall time and the child's
own peak RSS. Used by the hostile-input tests' time and memory bounds.

The peak comes from os.wait4's rusage, which Linux keeps across exec: a child forked straight
from the test process starts with the test process's own resident pages and reports them. So a
small launcher (python -I -S, a few MB) forks the command and reports its peak instead. The
command runs under an address-space limit (RLIMIT_AS), so a regression that tries to eat the
machine fails quickly instead of pushing other work out of memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

AS_LIMIT = 3 << 30  # address space the command may map: far above the bounds asserted, far below the machine

_LAUNCHER = r"""
import json, os, resource, signal, sys, time
report, limit, timeout, argv = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
start = time.monotonic()
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.execv(argv[0], argv)
killed = []
def kill(*_):
    killed.append(True)
    os.kill(pid, signal.SIGKILL)
signal.signal(signal.SIGALRM, kill)
signal.setitimer(signal.ITIMER_REAL, timeout)
_, status, usage = os.wait4(pid, 0)
signal.setitimer(signal.ITIMER_REAL, 0)
with open(report, "w") as fh:
    json.dump({"rc": os.waitstatus_to_exitcode(status), "seconds": time.monotonic() - start,
               "peak_rss": usage.ru_maxrss * 1024, "timed_out": bool(killed)}, fh)
"""


@dataclass
class Measured:
    rc: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes
    timed_out: bool


def run_measured(argv: list[str], *, timeout: float = 60.0, as_limit: int = AS_LIMIT) -> Measured:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        out = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCHER, str(report), str(as_limit), str(timeout),
                              *argv], capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout + 30)
        facts = json.loads(report.read_text())
    return Measured(facts["rc"], out.stdout.decode("utf-8", "replace"), out.stderr.decode("utf-8", "replace"),
                    facts["seconds"], facts["peak_rss"], facts["timed_out"])


def check_argv(path, *extra: str) -> list[str]:
    """`dsh-tui check PATH` run by this interpreter, without the index cache."""
    return [sys.executable, "-m", "dsh_tui", "check", str(path), "--no-cache", *extra]
