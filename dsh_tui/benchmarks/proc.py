"""Run a child process and measure it: wall time (monotonic) and peak RSS via ``os.wait4``."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Run:
    wall: float       # seconds from just before spawn to reaped
    rss: int          # peak RSS of the child in bytes (ru_maxrss)
    rc: int
    start: float      # time.monotonic() just before spawn (CLOCK_MONOTONIC is system-wide)
    stdout: bytes
    stderr: bytes


def run(argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 3600,
        shell: bool = False, capture: bool = True) -> Run:
    """Spawn, read its output, reap with ``os.wait4`` (so the rusage is this child's only)."""
    out = subprocess.PIPE if capture else subprocess.DEVNULL
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=env, shell=shell)
    try:
        # communicate() would reap the child itself (losing the rusage); read the pipes instead.
        stdout, stderr = _drain(proc, timeout)
    except BaseException:
        proc.kill()
        os.waitpid(proc.pid, 0)
        raise
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from reaping again
    return Run(wall, ru.ru_maxrss * 1024, proc.returncode, start, stdout, stderr)


def _drain(proc: subprocess.Popen, timeout: float) -> tuple[bytes, bytes]:
    import selectors
    bufs: dict[int, list[bytes]] = {}
    sel = selectors.DefaultSelector()
    for f in (proc.stdout, proc.stderr):
        if f is not None:
            sel.register(f, selectors.EVENT_READ)
            bufs[f.fileno()] = []
    deadline = time.monotonic() + timeout
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"child {proc.args!r} ran past {timeout:.0f} s")
        for key, _ in sel.select(min(left, 1.0)):
            chunk = os.read(key.fd, 1 << 20)
            if chunk:
                bufs[key.fd].append(chunk)
            else:
                sel.unregister(key.fileobj)
    sel.close()
    parts = [b"".join(bufs.get(f.fileno(), [])) if f is not None else b"" for f in (proc.stdout, proc.stderr)]
    return parts[0], parts[1]


def best(runs: list[Run]) -> dict:
    """The fastest run's wall time, plus every wall time and the highest peak RSS."""
    walls = [r.wall for r in runs]
    return {"best": min(walls), "median": statistics.median(walls), "runs": walls,
            "starts": [r.start for r in runs], "rss": max(r.rss for r in runs)}


def which(name: str) -> str | None:
    return shutil.which(name)


def dsh_tui_argv() -> list[str]:
    """The console script next to this interpreter, else ``python -m dsh_tui``."""
    script = Path(sys.executable).with_name("dsh-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dsh_tui"]


def child_env(workdir: Path, *, no_cache: bool = False, **extra: str) -> dict[str, str]:
    """The environment for every child: a private cache and state under the workdir."""
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = str(workdir / "cache")
    env["XDG_STATE_HOME"] = str(workdir / "state")
    env.pop("DSH_TUI_NO_CACHE", None)
    if no_cache:
        env["DSH_TUI_NO_CACHE"] = "1"
    env.update(extra)
    return env
