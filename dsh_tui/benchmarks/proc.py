"""Run a child process and measure it: wall time (monotonic) and peak RSS via ``os.wait4``, its own."""

from __future__ import annotations

import json
import os
import shutil
import signal
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


# A child's peak RSS (ru_maxrss) starts at the peak of the process that spawned it: subprocess
# vforks, the child runs in the spawner's memory until exec, and Linux carries that high-water
# mark across exec. This process grows as it measures (the floor and the in-process re-open read
# the whole log), so every command is started by a fresh, small launcher instead, which times
# and reaps it and writes its own figures to a pipe: [start, wall, maxrss KiB, exit code].
_LAUNCHER = """
import json, os, sys, time
fd, argv = int(sys.argv[1]), sys.argv[2:]
os.set_inheritable(fd, False)  # the measured command must not hold the report pipe open
start = time.monotonic()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - start
os.write(fd, json.dumps([start, wall, ru.ru_maxrss, os.waitstatus_to_exitcode(status)]).encode())
"""


def run(argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 3600,
        capture: bool = True) -> Run:
    """Run ``argv`` through the launcher; its wall time (spawn to reaped) and peak RSS are its own."""
    out = subprocess.PIPE if capture else subprocess.DEVNULL
    rfd, wfd = os.pipe()
    os.set_inheritable(wfd, True)  # the launcher writes here; the measured command does not inherit it
    try:
        launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(wfd), *argv]
        proc = subprocess.Popen(launcher, stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=env,
                                pass_fds=(wfd,), start_new_session=True)
    finally:
        os.close(wfd)
    try:
        stdout, stderr = _drain(proc, timeout, argv)
        proc.wait(timeout=max(1.0, timeout))
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)  # the launcher and what it started (its own session)
        proc.wait()
        os.close(rfd)
        raise
    with os.fdopen(rfd, "rb") as fh:
        report = fh.read()
    if proc.returncode != 0 or not report:
        raise RuntimeError(f"launcher failed ({proc.returncode}) for {argv!r}: {stderr.decode(errors='replace')[-2000:]}")
    start, wall, maxrss_kib, rc = json.loads(report)
    return Run(wall, maxrss_kib * 1024, rc, start, stdout, stderr)


def _drain(proc: subprocess.Popen, timeout: float, argv: list[str]) -> tuple[bytes, bytes]:
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
            raise TimeoutError(f"child {argv!r} ran past {timeout:.0f} s")
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


def prime_cache(path: Path, workdir: Path, *, lenient: bool = False) -> Run:
    """Write ``path``'s index cache entry (open_target, in a child) in the workdir's private cache, for
    the options the reader will open it with: an entry is served only to the same ``lenient``."""
    return run([sys.executable, "-c", "import sys; from dsh_tui.model.opening.target import OpenOptions, open_target; "
                "open_target(sys.argv[1], OpenOptions(lenient=sys.argv[2] == '1'))", str(path), "01"[lenient]],
               env=child_env(workdir))
