"""dsh-tui says what dsh says: the parity cases (tests/parity) checked against dsh's own answers.

Every case was written by dsh's published writer; `dsh-facts.json` holds what dsh's reader, crash
repair, children listing and token meter said about those exact files. The differential test at the
end installs that reference into a temporary folder, writes the cases afresh, asks dsh again and
compares (it skips where npm cannot reach its registry or ../shared/dsh-reference is absent).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dsh_tui.model.opener import open_session
from dsh_tui.model.report import check_json, json_text

from .conftest import SHARED

CASES = Path(__file__).parent / "parity"
PROJECT = "--home-user-parity--"
FACTS = json.loads((CASES / "dsh-facts.json").read_text())
METER = {"uncachedInputTokens": "inputTokens", "outputTokens": "outputTokens", "cacheReadTokens": "cacheReadTokens",
         "cacheWriteTokens": "cacheWriteTokens"}


def case_path(base: Path, root: str, sid: str) -> Path:
    return base / root / PROJECT / sid / ("session.jsonl.zstd" if root == "zstd" else "session.jsonl")


def accepted_cases(facts: dict) -> list[tuple[str, str]]:
    return [(root, sid) for root, sessions in sorted(facts.items()) for sid, f in sorted(sessions.items())
            if f["accepted"]]


def what_we_say(path: Path) -> dict:
    """The same facts, read off `check --format json` (its contract carries each of them)."""
    log, diag = open_session(path, use_cache=False)
    out = json.loads(json_text(check_json(log, diag)))
    return {"closers": out["repair_closers"], "turn_ends": [[t["turn"], t["reason"]] for t in out["turn_ends"]],
            "end_seed_seqs": out["runs"]["end_seed_seqs"],
            "usage": {theirs: out["usage"]["dsh_total"][ours] for theirs, ours in METER.items()}}


def what_dsh_says(f: dict) -> dict:
    return {"closers": f["closers"], "turn_ends": f["turn_ends"], "end_seed_seqs": f["end_seed_seqs"],
            "usage": f["usage_fold_all"]}


@pytest.mark.parametrize("root,sid", accepted_cases(FACTS))
def test_repair_turn_ends_and_meter_match_dsh(root, sid):
    """The closers dsh's repair would append (seq, type, code, callId, in its order), every turn end,
    every end-seed, and dsh's token meter over the whole log."""
    assert what_we_say(case_path(CASES / "cases", root, sid)) == what_dsh_says(FACTS[root][sid])


def _reference(tmp: Path) -> Path | None:
    """dsh's reference packages installed in ``tmp`` (None when that cannot be done here)."""
    source = SHARED / "dsh-reference"
    npm = shutil.which("npm")
    if not source.is_dir() or npm is None:
        return None
    ref = tmp / "ref"
    shutil.copytree(source, ref)
    shutil.copy(CASES / "write_cases.mjs", ref)
    try:
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=ref, capture_output=True,
                              timeout=300, env={**os.environ, "npm_config_update_notifier": "false"})
    except subprocess.TimeoutExpired:
        return None
    node = ref / "node_modules" / ".bin" / "node"
    return ref if done.returncode == 0 and node.exists() else None


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """The cases written afresh by dsh's writer, and what dsh says about them now."""
    tmp = tmp_path_factory.mktemp("dsh-reference")
    ref = _reference(tmp)
    if ref is None:
        pytest.skip("dsh's reference packages cannot be installed here (no ../shared/dsh-reference, npm or registry)")
    node = str(ref / "node_modules" / ".bin" / "node")
    subprocess.run([node, "write_cases.mjs", "out"], cwd=ref, check=True, capture_output=True, timeout=300)
    facts = {}
    for root, compression in (("zstd", "zstd"), ("raw-edited", "none")):
        subprocess.run([node, "dsh-facts.mjs", f"out/{root}", f"{root}.json", compression], cwd=ref, check=True,
                       capture_output=True, timeout=600)
        facts[root] = json.loads((ref / f"{root}.json").read_text())
    return ref / "out", facts


def test_dsh_itself_agrees_on_freshly_written_cases(fresh):
    """Differential: the same comparison on logs dsh's writer wrote just now, against dsh run just now."""
    out, facts = fresh
    assert sorted((r, s) for r in facts for s in facts[r]) == sorted((r, s) for r in FACTS for s in FACTS[r])
    mismatched = {}
    for root, sid in accepted_cases(facts):
        ours, theirs = what_we_say(case_path(out, root, sid)), what_dsh_says(facts[root][sid])
        if ours != theirs:
            mismatched[f"{root}/{sid}"] = (ours, theirs)
    assert not mismatched
    assert [(r, s) for r, s in accepted_cases(facts)] == accepted_cases(FACTS)  # dsh accepts the same cases
