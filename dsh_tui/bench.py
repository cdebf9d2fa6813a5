"""Benchmark harness: `python -m dsh_tui.bench [FILE ...] [options]`.

For each log (given, or generated with ``--events N``; by default the shared
936k-event log when present, else 1M generated events) it measures in one run:

1. the floor: decode every frame and ``orjson.loads`` every line, in-process;
2. ``dsh-tui check --format json --no-cache`` as a process (wall, peak RSS via ``os.wait4``);
3. re-open with the index cache: ``check`` and in-process ``open_target`` warm vs cold;
4. the explorer headless in a fresh interpreter: spawn -> verdict row painted, peak RSS,
   Textual's own start-up (a trivial App), and per-key CPU latency;
5. ``zstd -dc | jq`` (when installed); 6. dsh-tui vs lnav in a real tmux pane (when installed);
7. with ``--growth``: ``check`` on 1M/5M/10M generated events and the time ratio;
8. with ``--memory``: memory at ~10M events (generated, and the shared log's body repeated),
   ``check`` and the explorer with its helpers against the plaintext; with ``--bombs``: tiny
   bombs, /dev/zero and a FIFO refused in under 2 s and 256 MiB (benchmarks/memory.py).

It prints one table (``--markdown`` for a Markdown one) with PASS/FAIL against the
targets, and writes the same as JSON (``--json``, default ``bench-results.json`` in the workdir).
Timings are wall clock on whatever else the machine is doing: compare runs, not absolutes.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as _dt
import json
import os
import platform
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from .benchmarks import core, diffbench, memory, proc, report, tmuxrun, tui

SHARED_LOG = Path("/work/shared/dsh-logs/large/big-936k-events__session.jsonl.zstd")
SCHEMA = "dsh-tui/bench/1"
DEFAULT_GROWTH = [1_000_000, 5_000_000, 10_000_000]


def _say(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _sizes(text: str) -> list[int]:
    out = []
    for part in text.replace("_", "").split(","):
        part = part.strip().lower()
        mult = {"k": 10**3, "m": 10**6}.get(part[-1:], 1)
        out.append(int(float(part[:-1] if mult > 1 else part) * mult))
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dsh_tui.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", type=Path, help="logs to measure (default: the shared 936k log or 1M generated)")
    p.add_argument("--events", type=_sizes, action="append", default=[], metavar="N[,N]",
                   help="also generate and measure synthetic crash logs of N events (e.g. 1000000 or 1m)")
    p.add_argument("--workdir", type=Path, help="where generated logs, cache and results go (default: a temp dir)")
    p.add_argument("--repeat", type=int, default=3, help="best of N for timed runs (default 3)")
    p.add_argument("--presses", type=int, default=50, help="presses per key for key latency (default 50)")
    p.add_argument("--json", type=Path, dest="json_out", help="results file (default WORKDIR/bench-results.json)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 3,000 generated events, 1 repetition, 5 presses, no tmux/jq/growth")
    p.add_argument("--growth", action="store_true", help="also run check on 1M, 5M and 10M generated events")
    p.add_argument("--growth-sizes", type=_sizes, default=None, metavar="N,N,...",
                   help="sizes for --growth (default 1m,5m,10m)")
    p.add_argument("--growth-repeat", type=int, default=None, help="best of N in the growth runs (default --repeat)")
    p.add_argument("--no-tui", action="store_true", help="skip the explorer measurements")
    p.add_argument("--no-tmux", action="store_true", help="skip dsh-tui vs lnav in tmux")
    p.add_argument("--no-jq", action="store_true", help="skip the jq pipeline")
    p.add_argument("--tmux-timeout", type=float, default=180, help="seconds before a tmux run gives up")
    p.add_argument("--memory", action="store_true",
                   help="memory at size: check and the explorer (with its helpers, PSS) on 10M generated events "
                        "and on the shared 936k log's body repeated 11 times, against the plaintext")
    p.add_argument("--memory-events", type=_sizes, default=None, metavar="N",
                   help="events of the generated log for --memory (default 10m)")
    p.add_argument("--skip-logs", action="store_true",
                   help="measure only the extra sections asked for (--growth, --memory, --bombs, --fleet)")
    p.add_argument("--fleet", type=_sizes, default=None, metavar="N",
                   help="scan N generated sessions (needs the fleet extra), re-scan them unchanged, query them")
    p.add_argument("--bombs", action="store_true",
                   help="tiny bombs, /dev/zero and a FIFO: check refuses each in under 2 s and 256 MiB")
    return p


def _inputs(args, workdir: Path) -> list[tuple[Path, dict | None]]:
    logs: list[tuple[Path, dict | None]] = [(f.resolve(), None) for f in args.files]
    sizes = [n for group in args.events for n in group]
    if args.quick and not logs and not sizes:
        sizes = [3000]
    if not logs and not sizes:
        if SHARED_LOG.exists():
            logs.append((SHARED_LOG, None))
        else:
            sizes = [1_000_000]
    for n in sizes:
        _say(f"generating {n:,} events…")
        logs.append(core.generated_log(workdir, n))
    for path, _ in logs:
        if not path.is_file():
            raise SystemExit(f"bench: not a file: {path}")
    return logs


def measure_log(path: Path, facts: dict | None, args, workdir: Path) -> dict:
    name = path.name
    r: dict = {"path": str(path), "name": name, "file_bytes": path.stat().st_size,
               "expected_call_id": facts.get("last_call_id") if facts else None}
    jq = not (args.quick or args.no_jq)
    _say(f"{name}: floor, check --no-cache{', zstd -dc | jq' if jq else ''} in turn (best of {args.repeat})…")
    r["floor"], r["check"], jq_result = core.alternated(path, workdir, args.repeat, jq=jq)
    r["events"] = r["check"]["verdict"].get("events")
    if jq_result is not None:
        r["jq"] = jq_result
    else:
        r["jq_skip"] = "jq or zstd not installed" if jq else "--quick/--no-jq"
    _say(f"{name}: re-open with the index cache…")
    r["reopen"] = core.reopen(path, workdir, args.repeat)
    _say(f"{name}: diff against a copy of itself and against itself…")
    r["diff"] = diffbench.measure(path, workdir, args.repeat)
    if not args.no_tui:
        _say(f"{name}: floor, Textual start-up, explorer headless in turn, {args.presses} presses per key…")
        r["tui"], r["startup"], floors = tui.measure_tui(path, workdir, args.repeat, args.presses,
                                                         floor_once=lambda: core.floor_once(path))
        r["tui_floor"] = core.floor_result(floors)
        r["tui_floor"].pop("last_line")  # r["floor"] has it already (the tmux needle)
    verdict = r["check"]["verdict"]
    if args.quick or args.no_tmux:
        r["tmux_skip"] = "--quick/--no-tmux"
    elif not (tmuxrun.available() and proc.which("lnav")):
        r["tmux_skip"] = "tmux or lnav not installed"
    elif not verdict.get("call_id"):
        r["tmux_skip"] = "the log has no verdict with a callId"
    else:
        _say(f"{name}: lnav and dsh-tui in tmux…")
        r["tmux"] = tmuxrun.lnav_vs_dsh(path, workdir, last_line_needle=tmuxrun.last_line_needle(r["floor"]["last_line"]),
                                        verdict_needles=[verdict["call_id"], verdict["kind"]],
                                        repeat=args.repeat, timeout=args.tmux_timeout)
    r["floor"]["last_line"] = r["floor"]["last_line"][:300]
    return r


def _package_source() -> str:
    """Where the measured processes load dsh_tui from. An editable install adds its import hook
    to every process start (~15 ms here); `pip install .` (the README's command) does not."""
    here = Path(__file__).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    return "site-packages" if site in here.parents else f"source tree {here.parent.parent} (editable install or checkout)"


def _meta(args, workdir: Path) -> dict:
    return {"schema": SCHEMA, "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "loadavg_start": os.getloadavg(), "workdir": str(workdir), "package": _package_source(),
            "options": {"repeat": args.repeat, "presses": args.presses, "quick": args.quick, "growth": args.growth},
            "tools": {t: proc.which(t) for t in ("jq", "zstd", "tmux", "lnav")}}


def run_all(args, workdir: Path) -> tuple[dict, list[tuple[str, list[dict]]]]:
    t_start = time.monotonic()
    doc = _meta(args, workdir)
    logs = [] if args.skip_logs else _inputs(args, workdir)
    sections: list[tuple[str, list[dict]]] = []
    doc["logs"] = []
    for path, facts in logs:
        r = measure_log(path, facts, args, workdir)
        rows = report.log_rows(r) + diffbench.rows(r)
        events = f"{r['events']:,} events, " if r.get("events") else ""
        title = f"{r['name']} ({events}{report.mib(r['floor']['plain_bytes'])} plain, {r['file_bytes'] / 1e6:.1f} MB file)"
        sections.append((title, rows))
        doc["logs"].append({"title": title, "results": r, "rows": rows})
    doc["growth"] = None
    if args.growth:
        g = core.growth(workdir, args.growth_sizes or DEFAULT_GROWTH, args.growth_repeat or args.repeat, log=_say)
        g["rows"] = report.growth_rows(g)
        sections.append(("growth (generated crash logs)", g["rows"]))
        doc["growth"] = g
    if args.bombs:
        _say("bombs: check on each…")
        sections.append(("bombs and junk (check --no-cache)", memory.measure_bombs(workdir)))
    if args.fleet:
        from .benchmarks import fleet
        n = args.fleet[0]
        sections.append((f"fleet ({n:,} generated sessions)", fleet.measure(workdir, n, log=_say)))
    if args.memory:
        n = (args.memory_events or [10_000_000])[0]
        _say(f"memory: generating {n:,} events…")
        gen, _facts = core.generated_log(workdir, n)
        _say("memory: check and the explorer on the generated log…")
        rows = memory.measure_log(gen, workdir, f"{report.count(n)} generated", tui=not args.no_tui)
        if SHARED_LOG.exists():
            _say("memory: the shared log's body repeated 11 times…")
            rep = memory.repeated_log(SHARED_LOG, workdir, 11)
            rows += memory.measure_log(rep, workdir, "936k log x11", tui=not args.no_tui)
        sections.append(("memory at size (issue 23)", rows))
    all_rows = [r for _, rows in sections for r in rows]
    doc["rows"] = all_rows
    doc["summary"] = {k.lower(): sum(r["result"] == k for r in all_rows) for k in ("PASS", "FAIL", "SKIP", "INFO")}
    doc["summary"]["failed"] = [r["metric"] for r in all_rows if r["result"] == "FAIL"]
    doc["elapsed_s"] = time.monotonic() - t_start
    doc["loadavg_end"] = os.getloadavg()
    return doc, sections


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.quick:
        args.repeat, args.presses, args.no_tmux, args.no_jq = 1, min(args.presses, 5), True, True
        args.growth = False
    own_tmp = args.workdir is None
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="dsh-bench-"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    out = (args.json_out or workdir / "bench-results.json").resolve()
    # Measure the package as pip installs it, with its bytecode compiled: an editable checkout
    # under PYTHONDONTWRITEBYTECODE recompiles every changed module at each start (~0.15 s).
    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=1)
    try:
        doc, sections = run_all(args, workdir)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    finally:
        if own_tmp:  # keep only the results: drop the bulky logs and the cache
            for p in list(workdir.iterdir()):
                if p.resolve() != out:
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
    sm = doc["summary"]
    print(report.markdown_table(sections) if args.markdown else report.text_table(sections))
    print(f"\n{sm['pass']} PASS, {sm['fail']} FAIL, {sm['skip']} SKIP in {doc['elapsed_s']:.0f} s "
          f"(load average {doc['loadavg_start'][0]:.1f} -> {doc['loadavg_end'][0]:.1f}; dsh_tui from "
          f"{doc['package']}); JSON: {out}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
