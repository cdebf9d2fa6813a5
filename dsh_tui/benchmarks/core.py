"""Measurements without a terminal: the floor, `check`, re-open (index cache), jq, growth."""

from __future__ import annotations

import gc
import json
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

from . import proc

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


# -- inputs -----------------------------------------------------------------------------------
def generated_log(workdir: Path, n_events: int, *, seed: int = 0) -> tuple[Path, dict]:
    """A synthetic crash log of ``n_events`` (reused when the workdir already has it)."""
    from ..demo import write_synthetic
    path = workdir / f"synthetic-{n_events}-s{seed}__session.jsonl.zstd"
    facts_path = path.with_name(path.name + ".facts.json")
    if path.exists() and facts_path.exists():
        return path, json.loads(facts_path.read_text())
    t0 = time.perf_counter()
    facts = write_synthetic(path, n_events, seed=seed)
    facts["generate_s"] = time.perf_counter() - t0
    facts_path.write_text(json.dumps(facts))
    return path, facts


# -- 1. floor ---------------------------------------------------------------------------------
def floor_once(path: Path) -> dict:
    import orjson
    import zstandard

    from ..model.reading.frames import walk_frames
    start, t0 = time.monotonic(), time.perf_counter()
    with open(path, "rb") as fh:
        data = fh.read()
    loads, bad, lines, plain = orjson.loads, 0, 0, 0
    carry, last = b"", b""

    def consume(chunk: bytes) -> None:
        nonlocal bad, lines, carry, last
        parts = (carry + chunk).split(b"\n") if carry else chunk.split(b"\n")
        carry = parts.pop()
        for line in parts:
            if line:
                lines += 1
                try:
                    loads(line)
                except orjson.JSONDecodeError:
                    bad += 1
        if parts and parts[-1]:
            last = parts[-1]

    if data[:4] == ZSTD_MAGIC:
        view, new_decoder = memoryview(data), zstandard.ZstdDecompressor().decompressobj
        for span in walk_frames(view):
            chunk = new_decoder().decompress(view[span.start:span.end])  # as iter_plain decodes a frame
            plain += len(chunk)
            consume(chunk)
    else:
        plain = len(data)
        consume(data)
    if carry:
        consume(b"\n")
    wall = time.perf_counter() - t0
    return {"wall": wall, "start": start, "lines": lines, "bad_lines": bad, "plain_bytes": plain, "last_line": last}


def floor_result(runs: list[dict]) -> dict:
    """Best of the runs of `floor_once` (decode every frame and ``orjson.loads`` every line, in-process)."""
    gc.collect()
    last = runs[-1]
    return {"best": min(r["wall"] for r in runs), "runs": [r["wall"] for r in runs],
            "starts": [r["start"] for r in runs], "lines": last["lines"],
            "bad_lines": last["bad_lines"], "plain_bytes": last["plain_bytes"],
            "last_line": last["last_line"].decode("utf-8", "replace")}


# -- 2. check ---------------------------------------------------------------------------------
def _verdict(stdout: bytes) -> dict:
    try:
        doc = json.loads(stdout)
    except ValueError:
        return {"parsed": False}
    v = doc.get("verdict") or {}
    return {"parsed": True, "events": doc.get("events"), "frames": doc.get("frames"),
            "kind": v.get("kind"), "call_id": v.get("callId"), "seq": v.get("seq")}


def check(path: Path, workdir: Path, repeat: int, *, cache: bool) -> dict:
    """`dsh-tui check FILE --format json [--no-cache]` as a whole process, best of ``repeat``."""
    argv, env = _check_command(path, workdir, cache)
    return _check_result([proc.run(argv, env=env) for _ in range(repeat)], argv)


def _check_command(path: Path, workdir: Path, cache: bool) -> tuple[list[str], dict[str, str]]:
    argv = proc.dsh_tui_argv() + ["check", str(path), "--format", "json"] + ([] if cache else ["--no-cache"])
    return argv, proc.child_env(workdir, no_cache=not cache)


def _check_result(runs: list[proc.Run], argv: list[str]) -> dict:
    bad = [r for r in runs if r.rc not in (0, 1)]
    if bad:
        raise RuntimeError(f"{shlex.join(argv)} exited {bad[0].rc}: {bad[0].stderr.decode(errors='replace')[-2000:]}")
    out = proc.best(runs)
    out.update(rc=runs[-1].rc, verdict=_verdict(runs[-1].stdout), argv=argv)
    return out


def alternated(path: Path, workdir: Path, repeat: int, *, jq: bool) -> tuple[dict, dict, dict | None]:
    """The floor, `check --no-cache` and (with ``jq``) the jq pipeline, one run of each in turn,
    ``repeat`` times; best of each. The machine's speed drifts over seconds: measuring all runs of
    one before the other would let the drift, not the code, decide their ratio."""
    argv, env = _check_command(path, workdir, cache=False)
    cmd = _jq_command(path) if jq else None
    pin = one_core_prefix()
    floors, checks, pinned, jqs = [], [], [], []
    for _ in range(repeat):
        floors.append(floor_once(path))
        checks.append(proc.run(argv, env=env))
        if pin is not None:
            pinned.append(proc.run(pin + argv, env=env))
        if cmd is not None:
            jqs.append(proc.run(["bash", "-c", cmd]))
    check = _check_result(checks, argv)
    if pinned:  # the work itself: no second core for the split read's helper (it is not forked then)
        check["one_core"] = _check_result(pinned, pin + argv)
    return floor_result(floors), check, _jq_result(jqs, cmd) if cmd else None


def one_core_prefix() -> list[str] | None:
    """``taskset -c N``: a command pinned to one of this process's cores; None without taskset or
    when this process has only one core anyway (the unpinned row says it all then)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    taskset = proc.which("taskset")
    return [taskset, "-c", str(cpus[0])] if taskset and len(cpus) > 1 else None


# -- 3. re-open ---------------------------------------------------------------------------------
def reopen(path: Path, workdir: Path, repeat: int) -> dict:
    """Cold (no cache) vs warm (index cache) opens: `check` as a process and `open_target` in-process."""
    env = proc.child_env(workdir)
    prime = proc.prime_cache(path, workdir)
    if prime.rc != 0:
        raise RuntimeError(f"priming the cache failed: {prime.stderr.decode(errors='replace')[-2000:]}")
    cached_check = check(path, workdir, repeat, cache=True)
    # The entry a first `check` writes (it also keeps the loops and files it read), in a cache of its own.
    checked = workdir / "check-primed"
    checked.mkdir(exist_ok=True)
    check(path, checked, 1, cache=True)
    rechecked = check(path, checked, repeat, cache=True)

    os.environ["XDG_CACHE_HOME"] = env["XDG_CACHE_HOME"]
    os.environ.pop("DSH_TUI_NO_CACHE", None)
    from ..model.opening.target import OpenOptions, open_target

    def timed(**kw) -> tuple[float, bool]:
        t0 = time.perf_counter()
        log, _diag = open_target(path, OpenOptions(**kw))
        wall = time.perf_counter() - t0
        hit = bool(getattr(log, "from_cache", False))
        del log, _diag
        gc.collect()
        return wall, hit

    cold = [timed(use_cache=False)[0] for _ in range(repeat)]
    warm_runs = [timed(use_cache=True, write_cache=False) for _ in range(repeat)]
    warm = [w for w, _ in warm_runs]
    return {"cold_best": min(cold), "cold_runs": cold, "warm_best": min(warm), "warm_runs": warm,
            "warm_hit_cache": all(hit for _, hit in warm_runs), "ratio": min(warm) / min(cold),
            "check_cached": cached_check, "check_rechecked": rechecked, "prime_wall": prime.wall,
            "timing": timing(path, workdir, repeat)}


def timing(path: Path, workdir: Path, repeat: int) -> dict:
    """What the timing pass adds to `check --no-cache --format json` (whole processes, the same code
    but for a pass that walks nothing, alternated: the pass and the timing's share of the output), and
    to a cold open in-process (the way `check` opens a log: the split read, the diagnosis advanced while
    the tail helper reads); the pass alone, timed as the diagnosis runs it; and what the timing view
    needs from the model after a warm open (made in a worker once the log is shown): the timing
    rebuilt from the cache, its sorted table, the last turn's waterfall and an 80-column histogram."""
    from ..model.diagnosing import diagnosis
    from ..model.diagnosing.timewalk import compute_timing
    from ..model.reading.gcpause import gc_paused
    from ..model.opening.target import OpenOptions, open_target
    from ..model.presenting.timing_rows import SortOrders

    def cold() -> float:
        t0 = time.perf_counter()
        open_target(path, OpenOptions(use_cache=False, write_cache=False))
        wall = time.perf_counter() - t0
        gc.collect()
        return wall

    env = proc.child_env(workdir, no_cache=True)
    checks: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(max(repeat, 7)):
        for variant in checks:
            run = proc.run([sys.executable, "-c", _CHECK_VARIANT, variant, "check", str(path), "--format", "json",
                            "--no-cache"], env=env)
            if run.rc not in (0, 1):
                raise RuntimeError(f"check ({variant} the timing pass) exited {run.rc}: "
                                   f"{run.stderr.decode(errors='replace')[-2000:]}")
            checks[variant].append(run.wall)
    real = diagnosis.TimingWalk
    with_it, without = [], []
    try:
        for _ in range(repeat):
            diagnosis.TimingWalk = real
            with_it.append(cold())
            diagnosis.TimingWalk = _NoTimingWalk
            without.append(cold())
    finally:
        diagnosis.TimingWalk = real
    log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False, keep_facts=True))  # facts walked again
    passes = []
    for _ in range(repeat):
        with gc_paused():  # as the diagnosis runs it (diagnosis.diagnose)
            t0 = time.perf_counter()
            compute_timing(log.res.facts, log.res.usage_calls, diag.pairing, log.res.projected)
            passes.append(time.perf_counter() - t0)
    del log, diag
    views = []
    for _ in range(repeat):
        log, diag = open_target(path, OpenOptions(use_cache=True, write_cache=False))
        t0 = time.perf_counter()
        tm = diag.timing
        SortOrders.of(tm)  # the table's rows in their default order
        if tm.turns:
            tm.lanes(tm.turns[-1])
        tm.activity(80)
        views.append(time.perf_counter() - t0)
        del log, diag, tm
        gc.collect()
    # The median of the pairs' ratios: each pair ran back to back, so the machine's drift cancels.
    added = statistics.median(a / b for a, b in zip(with_it, without)) - 1
    check_added = statistics.median(a / b for a, b in zip(checks["with"], checks["without"])) - 1
    return {"check_with": checks["with"], "check_without": checks["without"], "check_added": check_added,
            "with_best": min(with_it), "with_runs": with_it, "without_best": min(without), "without_runs": without,
            "added": added, "pass_best": min(passes), "pass_runs": passes,
            "view_best": min(views), "view_runs": views}


# `check` with the timing pass, or with `_NoTimingWalk` in its place: both import the same modules.
_CHECK_VARIANT = ("import sys; from dsh_tui.model.diagnosing import diagnosis; "
                  "from dsh_tui.benchmarks.core import _NoTimingWalk; from dsh_tui.cli import main\n"
                  "if sys.argv[1] == 'without': diagnosis.TimingWalk = _NoTimingWalk\n"
                  "sys.exit(main(sys.argv[2:]))")


class _NoTimingWalk:
    """The timing pass replaced by one that walks nothing (the open's cost without it)."""

    def __init__(self, usage_calls: dict) -> None:
        from types import SimpleNamespace
        self.w = SimpleNamespace(usage=usage_calls)
        self.fed = 0

    def feed(self, facts: list, final: bool = False) -> None:
        self.fed = len(facts)

    def finish(self, facts: list, pairing=None, projected: bool = False):
        from ..model.diagnosing.timing import Timing
        return Timing()


# -- 5. jq ----------------------------------------------------------------------------------------
JQ_FILTER = 'select(.type=="tool/call" or .type=="tool/result")'


def _jq_command(path: Path) -> str | None:
    if not proc.which("jq") or (not proc.which("zstd") and _is_zstd(path)):
        return None
    cat = "zstd -dc" if _is_zstd(path) else "cat"
    return f"set -o pipefail; {cat} {shlex.quote(str(path))} | jq -c {shlex.quote(JQ_FILTER)} > /dev/null"


def _jq_result(runs: list[proc.Run], cmd: str) -> dict:
    out = proc.best(runs)
    out.update(rc=runs[-1].rc, command=cmd)
    return out


def _is_zstd(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(4) == ZSTD_MAGIC


# -- 7. growth --------------------------------------------------------------------------------------
def growth(workdir: Path, sizes: list[int], repeat: int, log=print) -> dict:
    """`check --no-cache` on generated logs of each size, one run of each size in turn (as
    `alternated`: the machine's drift must not decide the ratio); verdict checked against the generator."""
    logs = []
    for n in sizes:
        log(f"growth: generating {n:,} events…")
        logs.append(generated_log(workdir, n))
    commands = [_check_command(path, workdir, cache=False) for path, _facts in logs]
    runs: list[list[proc.Run]] = [[] for _ in sizes]
    for k in range(repeat):
        log(f"growth: check on each size, round {k + 1} of {repeat}…")
        for n, (argv, env) in enumerate(commands):
            runs[n].append(proc.run(argv, env=env))
    rows = []
    for n, (path, facts), (argv, _env), size_runs in zip(sizes, logs, commands, runs):
        c = _check_result(size_runs, argv)
        v = c["verdict"]
        rows.append({"events": n, "path": str(path), "plain_bytes": facts["plain_bytes"],
                     "check_best": c["best"], "check_runs": c["runs"], "check_rss": c["rss"],
                     "verdict_kind": v.get("kind"), "verdict_call_id": v.get("call_id"),
                     "expected_call_id": facts["last_call_id"],
                     "verdict_ok": v.get("kind") == "TOOL_OUTCOME_UNKNOWN" and v.get("call_id") == facts["last_call_id"]})
    out: dict = {"sizes": rows}
    if len(rows) >= 2:
        first, last = rows[0], rows[-1]
        out["time_ratio"] = last["check_best"] / first["check_best"]
        out["rss_ratio"] = last["check_rss"] / first["check_rss"]
        out["size_ratio"] = last["events"] / first["events"]
    return out
