"""The parity campaign: random sessions written by dsh's own writer, asked of dsh and of dsh-tui.

    python scripts/parity_campaign.py [--logs 2000] [--batch 100] [--seed 1] [--ref DIR] [--keep DIR]

Each batch: tests/parity/campaign/generate.mjs writes --batch sessions through dsh's published writer
(random turns, steps, calls, retries, commands, approvals, compactions, usage samples, forks and
subagent children, resumes, crash points, byte damage to raw lines and zstd frames); dsh-facts.mjs
(../shared/dsh-reference) and tests/parity/dsh-resume.mjs ask dsh's loader, crash repair, listing and
token meter about each; `dsh-tui check --format json` is compared with that
(tests/support/parity_compare.py). Every disagreement is kept (--keep, default
tests/parity/campaign/found/) as the log and dsh's answer, which tests/unit/test_parity_campaign.py
replays without node. Run it niced, it is one process: `nice -n 10 python scripts/parity_campaign.py`.
Exit 0 when dsh and dsh-tui agree on every log, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.parity_compare import disagreements, root_disagreements  # noqa: E402

PARITY = ROOT / "tests" / "parity"
PROJECT = "--home-user-campaign--"
ROOTS = {"zstd": "zstd", "raw": "none"}


def reference(tmp: Path, given: str | None) -> Path:
    """dsh's packages with the campaign's scripts beside them (a private folder; node_modules linked)."""
    source = Path(given) if given else Path("/work/ref")
    if not (source / "node_modules").is_dir():
        from tests.support.reference import install_reference
        installed = install_reference(tmp / "npm")
        if installed is None:
            raise SystemExit("dsh's reference packages cannot be installed here: pass --ref DIR (npm install done)")
        source = installed
    ref = tmp / "ref"
    ref.mkdir()
    for f in source.glob("*.mjs"):
        shutil.copy(f, ref)
    (ref / "node_modules").symlink_to((source / "node_modules").resolve())
    for script in (PARITY / "campaign" / "generate.mjs", PARITY / "dsh-resume.mjs"):
        shutil.copy(script, ref)
    return ref


def run_batch(ref: Path, seed: int, count: int, keep: Path) -> tuple[int, list[str]]:
    out = ref / f"batch-{seed}"
    js(ref, "generate.mjs", out.name, str(seed), str(count))
    manifest = json.loads((out / "manifest.json").read_text())
    found, n = [], 0
    for root, compression in ROOTS.items():
        if not (out / root).is_dir():
            continue
        facts = ask_dsh(ref, out / root, compression)
        listed = not any(f.get("list_refusal") for f in facts.values())
        for what in root_disagreements(out / root, facts):
            found.append(f"seed {seed} {root} root: {what}")
            keep_root(keep / f"s{seed}-{root}-root", out / root, facts, what)
        for sid, f in sorted(facts.items()):
            path = out / root / PROJECT / sid / ("session.jsonl.zstd" if compression == "zstd" else "session.jsonl")
            if not path.exists():
                continue
            n += 1
            bad = disagreements(path, f, listed=listed)
            if bad:
                did = manifest.get(f"{root}/{sid}", {}).get("did", [])
                found.append(f"{root}/{sid} {did}: {'; '.join(bad)}")
                keep_log(ref, keep / sid, path, compression, did, bad)
    shutil.rmtree(out, ignore_errors=True)
    return n, found


def js(ref: Path, *args: str) -> None:
    node = str(ref / "node_modules" / ".bin" / "node")
    subprocess.run(["nice", "-n", "10", node, *args], cwd=ref, check=True, capture_output=True, timeout=1800)


def ask_dsh(ref: Path, root: Path, compression: str) -> dict:
    """What dsh says about every session of ``root``: dsh-facts.mjs, with dsh-resume.mjs's cut added."""
    tmp = Path(tempfile.mkdtemp(dir=ref))
    try:
        js(ref, "dsh-facts.mjs", str(root), str(tmp / "facts.json"), compression)
        js(ref, "dsh-resume.mjs", str(root), str(tmp / "resume.json"), compression)
        facts = json.loads((tmp / "facts.json").read_text())
        resume = json.loads((tmp / "resume.json").read_text())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for sid, f in facts.items():
        f["resume"] = resume.get(sid)
    return facts


def keep_log(ref: Path, dest: Path, path: Path, compression: str, did: list, bad: list[str]) -> None:
    """A disagreement as a fixture: the log alone in a root of its own (at dsh's path), and what dsh
    says about it there (asked again: so the fixture's answer is about exactly these bytes)."""
    shutil.rmtree(dest, ignore_errors=True)
    target = dest / "root" / PROJECT / path.parent.name
    target.mkdir(parents=True)
    shutil.copy(path, target / path.name)
    facts = ask_dsh(ref, dest / "root", compression)
    (dest / "dsh.json").write_text(json.dumps({"log": f"root/{PROJECT}/{path.parent.name}/{path.name}",
                                               "dsh": facts[path.parent.name], "did": did, "found": bad},
                                              indent=1, ensure_ascii=True) + "\n")


def keep_root(dest: Path, root: Path, facts: dict, what: str) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(root, dest / "root")
    (dest / "dsh.json").write_text(json.dumps({"root": "root", "dsh": facts, "found": [what]},
                                              indent=1, ensure_ascii=True) + "\n")


def refresh(ref: Path, keep: Path) -> None:
    """Ask dsh again about every kept fixture (its answer rewritten; what was found is kept)."""
    for fixture in sorted(keep.glob("*/dsh.json")):
        kept = json.loads(fixture.read_text())
        root = fixture.parent / "root"
        compression = "zstd" if any(root.rglob("*.jsonl.zstd")) else "none"
        facts = ask_dsh(ref, root, compression)
        if "log" in kept:
            kept["dsh"] = facts[Path(kept["log"]).parent.name]
        else:
            kept["dsh"] = facts
        fixture.write_text(json.dumps(kept, indent=1, ensure_ascii=True) + "\n")
        print(f"{fixture.parent.name}: asked dsh again")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--logs", type=int, default=2000)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--seed", type=int, default=1, help="the first batch's seed (each batch the next)")
    p.add_argument("--ref", help="dsh's reference packages, installed (default /work/ref, else npm)")
    p.add_argument("--keep", type=Path, default=PARITY / "campaign" / "found")
    p.add_argument("--refresh", action="store_true", help="only ask dsh again about the kept fixtures")
    args = p.parse_args(argv)
    os.environ.setdefault("DSH_TUI_NO_CACHE", "1")
    total, found = 0, []
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        ref = reference(Path(tmp), args.ref)
        if args.refresh:
            refresh(ref, args.keep)
            return 0
        seed = args.seed
        while total < args.logs:
            n, bad = run_batch(ref, seed, args.batch, args.keep)
            total += n
            found += bad
            print(f"seed {seed}: {n} logs, {len(bad)} disagreement(s); {total} logs so far, "
                  f"{time.monotonic() - start:.0f} s", flush=True)
            for line in bad:
                print("  " + line[:400], flush=True)
            seed += 1
    print(f"{total} logs, {len(found)} disagreement(s)")
    return 0 if not found else 1


if __name__ == "__main__":
    raise SystemExit(main())
