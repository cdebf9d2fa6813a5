"""Write the parity cases afresh with dsh's own writer and record what dsh says about them.

    python scripts/parity_cases.py [REFERENCE_DIR] [--facts-only]

REFERENCE_DIR: dsh's published packages installed (`npm install` done), default /work/ref, else
../shared/dsh-reference installed into a temporary folder. The cases go to tests/parity/cases/<root>,
dsh's answers to tests/parity/dsh-facts.json: per root and session, what dsh-facts.mjs says, with
`resume` (dsh-resume.mjs: where dsh's load() cut the file, on a private copy) added. --facts-only:
the cases as committed are kept (their bytes: the message ids dsh draws differ each run) and only
asked about again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "parity"
ROOTS = {"zstd": "zstd", "raw-edited": "none", "zstd-damaged": "zstd", "zstd-listing": "zstd"}


def reference(tmp: Path, given: str | None) -> Path:
    """A private folder with the reference's scripts, ours beside them, and its installed packages."""
    source = Path(given or "/work/ref")
    ref = tmp / "ref"
    ref.mkdir()
    if (source / "node_modules").is_dir():
        for f in source.glob("*.mjs"):
            shutil.copy(f, ref)
        (ref / "node_modules").symlink_to(source / "node_modules")
    else:
        sys.path.insert(0, str(HERE.parents[1]))
        from tests.support.reference import install_reference
        installed = install_reference(tmp / "npm")
        if installed is None:
            raise SystemExit("dsh's reference packages cannot be installed here")
        ref = installed
    for script in ("write_cases.mjs", "dsh-resume.mjs"):
        shutil.copy(HERE / script, ref)
    return ref


def main(argv: list[str]) -> None:
    facts_only = "--facts-only" in argv  # ask dsh about the cases as committed (their bytes kept)
    argv = [a for a in argv if a != "--facts-only"]
    with tempfile.TemporaryDirectory() as tmp:
        ref = reference(Path(tmp), argv[0] if argv else None)
        node = str(ref / "node_modules" / ".bin" / "node")
        run = lambda *a: subprocess.run([node, *a], cwd=ref, check=True, capture_output=True, timeout=900)  # noqa: E731
        if facts_only:
            shutil.copytree(HERE / "cases", ref / "out")
        else:
            run("write_cases.mjs", "out")
        facts = {}
        for root, compression in ROOTS.items():
            run("dsh-facts.mjs", f"out/{root}", f"{root}.json", compression)
            run("dsh-resume.mjs", f"out/{root}", f"{root}-resume.json", compression)
            facts[root] = json.loads((ref / f"{root}.json").read_text())
            resume = json.loads((ref / f"{root}-resume.json").read_text())
            for sid, f in facts[root].items():
                f["resume"] = resume.get(sid)
        if not facts_only:
            shutil.rmtree(HERE / "cases", ignore_errors=True)
            shutil.copytree(ref / "out", HERE / "cases")
        (HERE / "dsh-facts.json").write_text(json.dumps(facts, indent=1, ensure_ascii=True) + "\n")
        print({root: len(s) for root, s in facts.items()})


if __name__ == "__main__":
    main(sys.argv[1:])
