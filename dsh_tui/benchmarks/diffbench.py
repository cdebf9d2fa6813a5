"""`dsh-tui diff` on a log against a copy of itself and against itself (issue 39): whole processes,
`--format json`, best of ``repeat``. The copy is another file (another path and inode), so each side
is read and digested apart; cold runs with --no-cache, warm ones through the index cache once it is
written. A diff of a log with itself or its copy must report no divergence (exit 0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from . import proc
from .report import _row, s

TARGET_S = 3.0  # two copies of the 936k-event log diff in under 3 s


def _runs(argv: list[str], env: dict, repeat: int) -> dict:
    runs = [proc.run(argv, env=env) for _ in range(repeat)]
    out = proc.best(runs)
    last = runs[-1]
    try:
        doc = json.loads(last.stdout)
    except ValueError:
        doc = {}
    out.update(rc=last.rc, first_divergence=doc.get("first_divergence", "unreadable"),
               calls=len((doc.get("calls") or {}).get("same", [])), argv=argv)
    return out


def measure(path: Path, workdir: Path, repeat: int) -> dict:
    copy = workdir / f"diff-copy{''.join(path.suffixes[-2:]) or '.log'}"
    if not copy.exists():
        shutil.copyfile(path, copy)
    base = proc.dsh_tui_argv() + ["diff", str(path)]
    out = {}
    out["copy_cold"] = _runs(base + [str(copy), "--format", "json", "--no-cache"], proc.child_env(workdir, no_cache=True), repeat)
    env = proc.child_env(workdir)
    proc.run(base + [str(copy), "--format", "json"], env=env)  # writes both sides' index cache entries
    out["copy_warm"] = _runs(base + [str(copy), "--format", "json"], env, repeat)
    out["self_warm"] = _runs(base + [str(path), "--format", "json"], env, repeat)
    return out


def rows(r: dict) -> list[dict]:
    d = r.get("diff")
    if not d:
        return []
    out = []
    for key, what in (("copy_cold", "diff vs a copy of itself --no-cache (process)"),
                      ("copy_warm", "diff vs a copy of itself, index cache (process)"),
                      ("self_warm", "diff vs itself, index cache (process)")):
        x = d[key]
        same = x["rc"] == 0 and x["first_divergence"] is None
        target = f"< {TARGET_S:.0f} s, no divergence" if key == "copy_warm" else "no divergence"
        ok = same and (x["best"] < TARGET_S if key == "copy_warm" else True)
        out.append(_row(what, s(x["best"]), ref=f"{x['calls']:,} calls the same; exit {x['rc']}", target=target, ok=ok,
                        data={"s": x["best"], "median_s": x["median"], "rss": x["rss"], "rc": x["rc"]}))
    return out
