"""The explorer measured headless in `App.run_test(size=(160, 45))`, in a fresh interpreter.

The parent (`measure_tui`) spawns this module as a child so that
interpreter start, imports and RSS are that process's own. The child reports
``time.monotonic()`` stamps (CLOCK_MONOTONIC is system-wide, so the parent can
subtract its spawn time) as JSON in the ``--out`` file.

Key latency: CPU time (``time.process_time``, all threads) of ``pilot.press`` plus
a pause long enough for the debounced detail pane to update, minus the same for an
unbound key (Pilot's own overhead); see TEXTUAL-NOTES 1.3. Going to a seq is
measured both ways a user can do it, every key of it: the ``:`` prompt (``:``, each
digit, Enter) and the events list's count (each digit, then ``G``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

from . import proc

SIZE = (160, 45)
UNBOUND = "f19"


def _rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _stats(samples: list[float]) -> dict:
    s = sorted(samples)
    p95 = s[max(0, -(-len(s) * 95 // 100) - 1)] if s else 0.0
    return {"median": statistics.median(s) if s else 0.0, "p95": p95, "max": s[-1] if s else 0.0, "n": len(s)}


# -- child: the explorer -------------------------------------------------------------------------
async def _wait_painted(app, timeout: float) -> dict:
    """Until the load worker delivered, the cursor is on the verdict, and that row was drawn."""
    from ..ui.screens.error import ErrorScreen
    deadline = time.monotonic() + timeout
    loaded_at = None
    while True:
        if isinstance(app.screen, ErrorScreen):
            raise RuntimeError("the explorer showed its error screen")
        if app.diag is not None and loaded_at is None:
            loaded_at = time.monotonic()
        if app.diag is not None:
            v = app.diag.verdict
            target = v.index if v is not None and v.index is not None else len(app.log_) - 1
            ev = app.events
            if ev.index == target:
                strips = getattr(ev, "_strips", None)  # VirtualList's strip cache: filled by render_line
                if strips is None or (ev.cursor, True) in strips:
                    return {"loaded": loaded_at, "painted": time.monotonic(), "index": target,
                            "call_id": v.call_id if v else None, "kind": v.kind if v else None,
                            "paint_probe": "strip-cache" if strips is not None else "none"}
        if time.monotonic() > deadline:
            raise TimeoutError("the verdict row was not painted in time")
        await asyncio.sleep(0.005)


def _far_call_ids(app) -> list[tuple[int, str]]:
    """Two (index, callId) far apart (about 10% and 90% of the log), for the search key."""
    from ..model.presenting.summary import call_id_of, light_event
    log, out = app.log_, []
    for frac in (0.1, 0.9):
        i = int(len(log) * frac)
        for j in range(i, min(len(log), i + 20000)):
            cid = call_id_of(light_event(log, j))
            if cid:
                out.append((j, cid))
                break
    return out if len(out) == 2 and out[0][1] != out[1][1] else []


async def _keys(app, pilot, presses: int) -> dict:
    settle = float(getattr(app, "detail_delay", 0.06)) + 0.03
    cpu = time.process_time

    async def sample(*keys: str) -> float:
        t0 = cpu()
        await pilot.press(*keys)
        await pilot.pause(settle)
        return cpu() - t0

    await pilot.pause(settle)
    base = [await sample(UNBOUND) for _ in range(presses)]
    b1 = statistics.median(base)
    out: dict = {"overhead_unbound": _stats(base), "settle_s": settle}
    n = len(app.log_)

    app.jump_to(n // 2)
    await pilot.pause(settle)
    out["down"] = _stats([await sample("down") - b1 for _ in range(presses)])
    out["pagedown"] = _stats([await sample("pagedown") - b1 for _ in range(presses)])
    ends, homes = [], []
    for _ in range(presses):
        ends.append(await sample("end") - b1)
        homes.append(await sample("home") - b1)
    out["end"], out["home"] = _stats(ends), _stats(homes)

    # Jump to a seq, both ways, every key timed (targets at about 10% and 90% of the log).
    first, last = app.log_.seq_of(0), app.log_.seq_of(n - 1)
    targets = [first + (last - first) // 10, first + (last - first) * 9 // 10]
    prompts, prompt_digits, gotos, landed = [], [], [], 0
    for k in range(presses):  # the prompt: ':' opens it, the digits go into it, enter jumps
        prompts.append(await sample("colon") - b1)
        prompt_digits += [await sample(d) - b1 for d in str(targets[k % 2])]
        gotos.append(await sample("enter") - b1)
        landed += app.log_.seq_of(app.events.index) == targets[k % 2]
    out["goto_prompt"], out["goto_prompt_digit"], out["goto"] = _stats(prompts), _stats(prompt_digits), _stats(gotos)
    out["goto"].update(target_seqs=targets, landed=landed)
    count_digits, counts, landed = [], [], 0
    for k in range(presses):  # vim's 123G in the events list: the digits show the count, G jumps
        count_digits += [await sample(d) - b1 for d in str(targets[k % 2])]
        counts.append(await sample("G") - b1)
        landed += app.log_.seq_of(app.events.index) == targets[k % 2]
    out["goto_count_digit"], out["goto_count"] = _stats(count_digits), _stats(counts)
    out["goto_count"].update(target_seqs=targets, landed=landed)

    # Anomalies (e / E from the middle) and the timing view (T, once its worker has made the timing).
    app.jump_to(n // 2)
    await pilot.pause(settle)
    out["anomaly_next"] = _stats([await sample("e") - b1 for _ in range(presses)])
    out["anomaly_previous"] = _stats([await sample("E") - b1 for _ in range(presses)])
    while any(w.group == "timing" and not w.is_finished for w in app.workers):
        await asyncio.sleep(0.005)
    opens = []
    for _ in range(presses):
        opens.append(await sample("T") - b1)
        await sample("escape")
    out["timing_view_first"], out["timing_view"] = _stats(opens[:1]), _stats(opens[1:] or opens)
    out.update(await _insight_views(app, pilot, sample, b1, presses))

    far = _far_call_ids(app)
    if far:
        cpus, walls, landed = [], [], 0
        app.jump_to(far[0][0])
        await pilot.pause(settle)
        for k in range(presses):
            app.needle = far[(k + 1) % 2][1]  # the other end of the log: every search crosses ~80% of it
            start_index = app.events.index
            t0, w0 = cpu(), time.monotonic()
            await pilot.press("n")
            deadline = w0 + 120
            while (app.events.index == start_index or any(w.group == "search" and w.is_running for w in app.workers)) \
                    and time.monotonic() < deadline:
                await asyncio.sleep(0.002)
            walls.append(time.monotonic() - w0)
            landed += app.events.index != start_index
            await pilot.pause(settle)
            cpus.append(cpu() - t0 - b1)
        out["search_next"] = _stats(cpus)
        out["search_next"]["wall"] = _stats(walls)
        out["search_next"].update(needles=[c for _, c in far], landed=landed)
    return out


async def _insight_views(app, pilot, sample, b1: float, presses: int) -> dict:
    """C (the context view at the verdict: its open, then the wall time until its rows are read in its
    worker) and the JSON tree opening a 1 MB argument and a 10,000-deep value (and L, unfold all, on it)."""
    import orjson
    from ..ui.screens.jsontree import JsonTreeScreen
    from ..ui.widgets.textrows import TextRows
    out: dict = {}
    v = app.diag.verdict
    app.jump_to(v.index if v is not None and v.index is not None else len(app.log_) - 1)
    opens, fills = [], []
    for _ in range(presses):
        t0 = time.monotonic()
        opens.append(await sample("C") - b1)
        rows = app.screen.query(TextRows)
        while rows and not rows.first().rows and time.monotonic() - t0 < 60:
            await asyncio.sleep(0.005)
        fills.append(time.monotonic() - t0)
        await sample("escape")
    out["context_view"], out["context_view_filled"] = _stats(opens), _stats(fills)
    big = orjson.dumps({"files": [{"path": f"src/f{i}.py", "text": "x" * 100} for i in range(8_000)]}).decode()
    deep: object = "bottom"
    for _ in range(10_000):
        deep = {"k": [deep]}
    cpu = time.process_time
    for name, value in (("json_tree_1mb", {"data": {"arguments": big}}), ("json_tree_deep", deep)):
        samples, unfolds = [], []
        for _ in range(max(1, presses // 4)):
            t0 = cpu()
            app.push_screen(JsonTreeScreen(value, name))
            await pilot.pause(0.05)
            samples.append(cpu() - t0 - b1)
            unfolds.append(await sample("L") - b1)
            await sample("escape")
        out[name], out[name + "_unfold_all"] = _stats(samples), _stats(unfolds)
    return out


async def _explore(path: Path, presses: int, timeout: float) -> dict:
    from ..cli import start_background
    background = start_background(path)  # as `dsh-tui FILE` does, before Textual is imported
    t_imp = time.monotonic()
    from ..ui.app import ExplorerApp
    imported = time.monotonic()
    app = ExplorerApp(path, native_clipboard=False, **background)
    res: dict = {"import_s": imported - t_imp, "imported": imported}
    async with app.run_test(size=SIZE) as pilot:
        res.update(await _wait_painted(app, timeout))
        res["rss_at_verdict"] = _rss()
        res["events"] = len(app.log_)
        if presses:
            res["keys"] = await _keys(app, pilot, presses)
        app.cancel_event.set()
    res["rss_end"] = _rss()
    return res


# -- child: a trivial app (Textual's own start-up cost) -----------------------------------------------
async def _trivial() -> dict:
    from textual.app import App
    from textual.widget import Widget
    painted: list[float] = []

    class Hello(Widget):
        def render(self) -> str:
            if not painted:
                painted.append(time.monotonic())
            return "hello"

    class Trivial(App):
        def compose(self):
            yield Hello()

    async with Trivial().run_test(size=SIZE):
        while not painted:
            await asyncio.sleep(0.002)
    return {"painted": painted[0], "rss": _rss()}


def child_main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dsh_tui.benchmarks.tui")
    p.add_argument("mode", choices=("explore", "startup"))
    p.add_argument("--file")
    p.add_argument("--presses", type=int, default=0)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.mode == "startup":
        res = asyncio.run(_trivial())
    else:
        res = asyncio.run(_explore(Path(args.file), args.presses, args.timeout))
    Path(args.out).write_text(json.dumps(res))
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown, as the real CLI does


# -- parent ------------------------------------------------------------------------------------
def _spawn(mode: str, workdir: Path, *extra: str, timeout: float = 900) -> tuple[dict, proc.Run]:
    out = workdir / f"tui-{mode}-{os.getpid()}.json"
    out.unlink(missing_ok=True)
    argv = [sys.executable, "-m", "dsh_tui.benchmarks.tui", mode, "--out", str(out), *extra]
    r = proc.run(argv, env=proc.child_env(workdir, no_cache=True), timeout=timeout)
    if r.rc != 0 or not out.exists():
        raise RuntimeError(f"TUI child failed ({r.rc}): {r.stderr.decode(errors='replace')[-3000:]}")
    res = json.loads(out.read_text())
    out.unlink()
    return res, r


def measure_tui(path: Path, workdir: Path, repeat: int, presses: int,
                floor_once=None) -> tuple[dict, dict, list]:
    """Spawn-to-verdict-painted (best of ``repeat``); keys measured in the first run only. Before each
    run, a trivial App's start-up and (with ``floor_once``) the floor are measured too: the verdict's
    budget is made of both, so all three take turns and the machine's drift hits them alike.
    Returns the explorer's figures, the start-up's and the floor runs."""
    runs, walls, floors, startup_rss = [], [], [], 0
    for k in range(repeat):
        if floor_once is not None:
            floors.append(floor_once())
        res, r = _spawn("startup", workdir)
        walls.append(res["painted"] - r.start)
        startup_rss = max(startup_rss, r.rss)
        res, r = _spawn("explore", workdir, "--file", str(path), "--presses", str(presses if k == 0 else 0))
        res["to_verdict"] = res["painted"] - r.start
        res["to_loaded"] = res["loaded"] - r.start
        res["to_imported"] = res["imported"] - r.start
        res["rss_process"] = r.rss
        runs.append(res)
    startup = {"best": min(walls), "runs": walls, "rss": startup_rss}
    first = runs[0]
    return ({"best": min(x["to_verdict"] for x in runs), "runs": [x["to_verdict"] for x in runs],
            "to_loaded": first["to_loaded"], "to_imported": first["to_imported"], "import_s": first["import_s"],
            "rss_at_verdict": max(x["rss_at_verdict"] for x in runs), "rss": max(x["rss_process"] for x in runs),
            "verdict": {"kind": first["kind"], "call_id": first["call_id"], "index": first["index"]},
            "paint_probe": first["paint_probe"], "keys": first.get("keys", {})}, startup, floors)


if __name__ == "__main__":
    child_main()
