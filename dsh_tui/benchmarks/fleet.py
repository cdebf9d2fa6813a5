"""The fleet's benchmark rows (`python -m dsh_tui.bench --fleet N`): a generated root of N sessions of
mixed sizes scanned with `dsh-tui scan` as a process (wall, sessions per second per core, peak RSS of
the driver and of the largest worker), the unchanged re-scan against the first, and `query
--failures` over the scan."""

from __future__ import annotations

import os
import random
import shutil
import re
import subprocess
import sys
import time
from pathlib import Path

from .report import _row, mib, s

# Mixed sizes: most sessions are a few turns; some are long; a few crashed, failed or are children.
SHAPES = ((0.70, 2), (0.22, 12), (0.07, 60), (0.01, 400))  # (share, turns)


def generated_root(root: Path, n: int, seed: int = 11) -> Path:
    """``n`` sessions under ``root`` in dsh's layout: 8 projects, 30 days, the SHAPES' sizes, one in
    six crashed, one in ten ending in an error, one in twenty a subagent child of the one before."""
    from ..gen.builder import EventBuilder, ToolCall
    from ..gen.storage import write_log
    from ..model.sessions.layout import encode_segment, project_key
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    t0 = 1_796_000_000_000
    previous = None
    for k in range(n):
        cwd = f"/home/ci/repo-{k % 8}"
        sid = f"{k:08d}-0000-4000-8000-{seed:012d}"
        created = t0 + rng.randrange(30 * 86_400_000)
        turns = next(t for share, t in _cumulative() if rng.random() <= share)
        header = {"type": "session", "version": 0, "id": sid, "cwd": cwd, "createdAt": created, "delegationDepth": 0}
        if previous is not None and k % 20 == 0:
            header.update(parentSession=previous, origin="subagent", delegationDepth=1)
        b = EventBuilder(created, seed=k)
        crash = k % 6 == 0
        for t in range(1, turns + 1):
            b.turn_start(t)
            last = t == turns
            calls = ()
            if t % 3 == 0 or (last and crash):
                failed = k % 7 == 3
                calls = [ToolCall(f"call_{k}_{t}", "bash", f'{{"command":"make test-{t % 5}"}}',
                                  None if last and crash else ("exit 2" if failed else "ok"), is_error=failed,
                                  error={"name": "ToolError", "code": "EXIT_NONZERO"} if failed else None)]
            b.model_step(t, 1, user=f"task {k} turn {t}", text="done", calls=calls, end=not (last and crash))
            if last and crash:
                break
            b.turn_end(t, {"kind": "error", "error": {"code": "UPSTREAM_5XX", "message": "502"}}
                       if last and k % 10 == 1 else "completed")
        path = root / project_key(cwd) / encode_segment(sid) / "session.jsonl.zstd"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_log(path, header, b.finish())
        previous = sid
    return root


def _cumulative():
    total = 0.0
    for share, turns in SHAPES:
        total += share
        yield total, turns


def measure(workdir: Path, n: int, log=print) -> list[dict]:
    root = workdir / f"fleet-{n}"
    if not root.exists():
        log(f"fleet: generating {n:,} sessions…")
        generated_root(root, n)
    out = workdir / f"fleet-{n}-scan"
    shutil.rmtree(out, ignore_errors=True)  # the first scan reads everything: no manifest of an earlier run
    env_cmd = [sys.executable, "-m", "dsh_tui"]
    cores = os.cpu_count() or 1
    log(f"fleet: scanning {n:,} sessions on {cores} cores…")
    first, worker_peak = _timed_scan(env_cmd + ["scan", str(root), "--out", str(out), "--no-cache"])
    log("fleet: the unchanged re-scan…")
    again, _ = _timed_scan(env_cmd + ["scan", str(root), "--out", str(out), "--no-cache"])
    log("fleet: query --failures…")
    t = time.perf_counter()
    subprocess.run(env_cmd + ["query", "--in", str(out), "--failures", "--format", "csv"], capture_output=True, check=True)
    query = time.perf_counter() - t
    rate = n / first
    ratio = again / first
    return [
        _row(f"scan {n:,} generated sessions (process, {cores} cores)", s(first), ref=f"{rate:,.0f} sessions/s",
             ratio=f"{rate / cores:,.0f}/s per core", data={"s": first, "per_core": rate / cores}),
        _row("scan: peak RSS of the largest worker", mib(worker_peak) if worker_peak else "n/a",
             data={"bytes": worker_peak}),
        _row("scan again, nothing changed", s(again), ref=f"first {s(first)}", ratio=f"{ratio:.1%}",
             target="<= 10% of the first", ok=ratio <= 0.10, data={"s": again, "ratio": ratio}),
        _row("query --failures over the scan (process)", s(query), target="< 1 s", ok=query < 1.0, data={"s": query}),
    ]


def _timed_scan(argv: list[str]) -> tuple[float, int | None]:
    """A scan as a process: its wall time and its largest worker's peak RSS (from its summary line)."""
    t = time.perf_counter()
    done = subprocess.run(argv, capture_output=True)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        raise RuntimeError(f"scan failed: {done.stderr.decode(errors='replace')[-500:]}")
    m = re.search(r"largest worker peak RSS ([\d,]+) MiB", done.stdout.decode(errors="replace"))
    return wall, int(m.group(1).replace(",", "")) * 2**20 if m else None
