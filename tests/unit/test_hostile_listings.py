"""Hostile listings end to end: deep headers, long parent chains, parentSession loops and hostile
export ZIPs give their exit codes and one-line messages, never a traceback; the big ones finish
in a child process under a generous timeout (a few seconds here, minutes or never before)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import orjson
import pytest

from dsh_tui.cli import main

from ..support.hostile_listings import (DUPLICATE_MEMBER, UNSAFE_MEMBERS, bad_names_zip, bomb_child_root, chain_id, chain_root,
                               chain_zip, cycle_root, deep_header_in_root, deep_header_line, deep_header_log,
                               truncated_zip)
from ..support.measured import run_measured

TIMEOUT = 90  # seconds: generous for work measured at 3-12 s on a loaded 2-core VM (over 300 s before)
PEAK_RSS = 640 << 20
BIG = 20_000


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    """`dsh-tui ARGV` in a child process, measured (tests/measured.py): a hang fails the test at TIMEOUT
    instead of stalling it, and its own peak memory must stay under PEAK_RSS (20,000 sessions listed
    take ~210 MiB here; a per-session copy of anything big would not fit)."""
    run = run_measured([sys.executable, "-m", "dsh_tui", *argv], timeout=TIMEOUT)
    assert not run.timed_out, f"{argv[0]} took over {TIMEOUT} s"
    assert run.peak_rss < PEAK_RSS, f"peak RSS {run.peak_rss / 2**20:.0f} MiB"
    return subprocess.CompletedProcess(argv, run.rc, run.stdout, run.stderr)


def one_line_error(err: str, words: str) -> None:
    assert err.startswith("dsh-tui: ") and err.count("\n") == 1 and words in err, err
    assert "Traceback" not in err


# -- a header nested 1000 deep -------------------------------------------------------------------

@pytest.mark.parametrize("key,words", [("cwd", "the header's cwd is an object with 1 key, not an absolute path"),
                                       ("type", "not a session header"),
                                       ("version", "not a number"), ("createdAt", "the header's createdAt is an object"),
                                       ("delegationDepth", "the header's delegationDepth is an object"),
                                       ("parentSession", "the header's parentSession is an object with 1 key, not a string")])
def test_check_rejects_a_deep_header_in_one_line(tmp_path, capsys, key, words):
    path = deep_header_log(tmp_path / "session.jsonl", 1000, key)
    assert path.stat().st_size < 8000
    assert main(["check", str(path), "--no-cache"]) == 3
    err = capsys.readouterr().err
    one_line_error(err, words)
    assert len(err) < 400  # the value is shown cut, not 1000 levels of it


@pytest.mark.parametrize("depth,lone_surrogate", [(3_100, False), (3_100, True), (100_000, True)])
def test_a_header_too_deep_for_either_parser_is_not_json(tmp_path, capsys, depth, lone_surrogate):
    """orjson refuses past 1024 levels, the stdlib parser it falls back to (for a lone surrogate,
    which orjson refuses too) at the recursion limit, the iterative one past what dsh's reader
    reads (deepjson.MAX_DEPTH): "not JSON", exit 3."""
    line = deep_header_line(depth, "cwd")
    if lone_surrogate:
        line = line.replace(b'"id":"deep-header"', b'"id":"deep\\ud800"')
    path = tmp_path / "session.jsonl"
    path.write_bytes(line + b"\n")
    assert main(["check", str(path), "--no-cache"]) == 3
    one_line_error(capsys.readouterr().err, "first line is not JSON")


@pytest.mark.parametrize("depth,lone_surrogate", [(1100, False), (1000, True)])
def test_a_header_deeper_than_orjson_reads_is_read_as_dsh_reads_it(tmp_path, capsys, depth, lone_surrogate):
    """Past orjson's 1024 levels (or at 1000 with a lone surrogate, which only the recursive stdlib
    parser took) the header is still JSON to dsh's reader: read, and refused for its cwd, as dsh does."""
    line = deep_header_line(depth, "cwd")
    if lone_surrogate:
        line = line.replace(b'"id":"deep-header"', b'"id":"deep\\ud800"')
    path = tmp_path / "session.jsonl"
    path.write_bytes(line + b"\n")
    assert main(["check", str(path), "--no-cache"]) == 3
    one_line_error(capsys.readouterr().err, "not an absolute path")


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_deep_unknown_header_key_is_accepted_and_reported(tmp_path, capsys, fmt):
    """dsh drops unknown header keys, so the log is accepted; the json and markdown reports, which list
    every header key, show the value cut short (the text report lists dsh's keys only)."""
    path = deep_header_log(tmp_path / "session.jsonl", 1000, "extra")
    assert main(["check", str(path), "--no-cache", "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "deep-header" in out and len(out) < 20_000
    if fmt == "json":
        assert json.loads(out)["header"]["extra"].startswith('{"a": [{"a": [')
    if fmt == "markdown":
        assert '{"a": [{"a": [' in out


def test_ls_and_a_siblings_check_survive_a_deep_header(tmp_path, capsys):
    root = tmp_path / "sessions"
    paths = chain_root(root, 3)
    deep_header_in_root(root)
    assert main(["ls", str(root), "--format", "json"]) == 0
    sessions = {s["dir"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    assert sessions["deep-header"]["status"] == "rejected" and "the header's cwd" in sessions["deep-header"]["header_error"]
    assert [sessions[chain_id(k)]["tree_level"] for k in range(3)] == [0, 1, 2]
    assert main(["check", str(paths[0]), "--no-cache", "--format", "json"]) == 0  # lists the deep one as a sibling
    children = json.loads(capsys.readouterr().out)["lineage"]["children"]
    assert [c["id"] for c in children] == [chain_id(1), chain_id(2)]


# -- parent chains and loops ---------------------------------------------------------------------

def test_ls_of_a_1000_chain_prints_bounded_rows(tmp_path, capsys):
    root = tmp_path / "sessions"
    chain_root(root, 1000)
    assert main(["ls", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if chain_id(0)[:20] in line]
    assert len(rows) == 1000
    assert rows[-1].split()[1:3] == ["↳999", chain_id(999)] and max(map(len, rows)) < 250  # not 2,000 spaces
    assert rows[16].split()[1:3] == ["↳", chain_id(16)] and rows[17].split()[1:3] == ["↳17", chain_id(17)]


@pytest.fixture(scope="module")
def chain20k(tmp_path_factory):
    root = tmp_path_factory.mktemp("chain") / "sessions"
    return root, chain_root(root, BIG)


def test_ls_of_a_20k_chain_finishes(chain20k):
    root, _paths = chain20k
    run = run_cli("ls", str(root), "--no-status", "--format", "json")
    assert run.returncode == 0 and run.stderr == "", run.stderr[-2000:]
    sessions = json.loads(run.stdout)["sessions"]
    assert [s["tree_level"] for s in sessions] == list(range(BIG))  # one chain, in order
    assert not any(s["orphan"] for s in sessions)


def test_check_of_the_top_of_a_20k_chain_reads_a_bounded_family(chain20k):
    _root, paths = chain20k
    run = run_cli("check", str(paths[0]), "--no-cache", "--format", "json")
    assert run.returncode == 0, run.stderr[-2000:]
    lineage = json.loads(run.stdout)["lineage"]
    assert lineage["truncated"] and len(lineage["children"]) == 64
    assert [c["depth"] for c in lineage["children"]] == list(range(1, 65))
    assert {c["status"] for c in lineage["children"]} == {"empty"}  # each read, with its status


def _tree_in_child(shape: str, n: int) -> dict:
    """build_tree and walk_tree over ``n`` in-memory entries, in a child process (a quadratic or
    recursive tree walk fails there by TIMEOUT or RecursionError, without stalling the suite)."""
    code = f"""
import json, sys
from pathlib import Path
from dsh_tui.model.sessions.discovery import SessionEntry, build_tree, walk_tree
n = {n}
es = [SessionEntry(Path(str(k)), "p", "p", session_id=str(k), created_at=k, origin="subagent",
                   parent_session=str(k - 1) if k else ({shape!r} == "cycle" and str(n - 1) or None))
      for k in range(n)]
roots = build_tree(es)
levels = [d for _e, d in walk_tree(roots)]
loops = sum("loops back" in " ".join(e.notes) for e in es)
print(json.dumps({{"roots": len(roots), "max_level": max(levels), "rows": len(levels),
                  "orphans": sum(e.orphan for e in es), "loop_notes": loops}}))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def test_a_20k_chain_is_one_tree_built_in_linear_time():
    assert _tree_in_child("chain", BIG) == {"roots": 1, "max_level": BIG - 1, "rows": BIG, "orphans": 0,
                                            "loop_notes": 0}


def test_a_20k_parent_session_loop_is_cut_in_linear_time():
    assert _tree_in_child("cycle", BIG) == {"roots": BIG, "max_level": 0, "rows": BIG, "orphans": BIG,
                                            "loop_notes": BIG}


def test_ls_of_a_parent_session_loop(tmp_path, capsys):
    root = tmp_path / "sessions"
    cycle_root(root)
    assert main(["ls", str(root), "--no-status", "--format", "json"]) == 0
    sessions = {s["id"]: s for s in json.loads(capsys.readouterr().out)["sessions"]}
    for label in "abc":
        s = sessions[f"cycle-{label}"]
        assert s["orphan"] and s["tree_level"] == 0 and any("loops back" in n for n in s["notes"])
    assert sessions["cycle-d"]["tree_level"] == 1 and not sessions["cycle-d"]["orphan"]  # under b
    assert sessions["cycle-b"]["children"] == ["cycle-d"]
    assert sessions["cycle-e"]["tree_level"] == 0 and not sessions["cycle-e"]["orphan"]


def test_check_passes_its_plaintext_limit_to_the_children(tmp_path, capsys):
    """The parent is innocent; its child decodes to 4 MiB from 365 bytes. Under --max-plain-size 1M
    the child is refused as the parent would be, not decoded (before: read with the 4 GiB default)."""
    parent, _child = bomb_child_root(tmp_path / "sessions")
    assert main(["check", str(parent), "--no-cache", "--max-plain-size", "1M", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["lineage"]["children"]
    assert row["id"] == "bomb-child" and row["status"] == "unreadable"
    assert main(["check", str(parent), "--no-cache", "--max-plain-size", "8M", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["lineage"]["children"]
    assert row["status"] == "idle"  # under a limit it fits: read


# -- export ZIPs -----------------------------------------------------------------------------------

def test_ls_of_a_20k_member_zip_with_statuses_finishes(tmp_path):
    path = chain_zip(tmp_path / "dsh-session-chain.zip", BIG)
    run = run_cli("ls", str(path), "--format", "json")
    assert run.returncode == 0 and run.stderr == "", run.stderr[-2000:]
    doc = json.loads(run.stdout)
    assert [s["tree_level"] for s in doc["sessions"]] == list(range(BIG + 1))
    assert {s["status"] for s in doc["sessions"]} == {"empty"} and doc["problems"] == []
    run = run_cli("check", str(path), "--no-cache", "--format", "json")
    assert run.returncode == 0 and len(json.loads(run.stdout)["lineage"]["children"]) == 64, run.stderr[-2000:]


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, 0.999])
def test_ls_of_a_truncated_zip_says_so(tmp_path, capsys, keep):
    path = truncated_zip(tmp_path / "dsh-session-cut.zip", keep)
    assert main(["ls", str(path)]) == 3
    one_line_error(capsys.readouterr().err, "is not a readable ZIP archive (truncated?)")


def test_ls_of_a_zip_without_sessions_says_so(tmp_path, capsys):
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("readme.txt", "hi")
    assert main(["ls", str(path)]) == 3
    one_line_error(capsys.readouterr().err, "no session.jsonl member: not a dsh session export")


def test_ls_shows_the_names_a_zip_listing_skips(tmp_path, capsys):
    path = bad_names_zip(tmp_path / "dsh-session-bad.zip")
    assert main(["ls", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["id"] for s in doc["sessions"]] == [chain_id(0), chain_id(1)]
    problems = doc["problems"]
    assert len(problems) == len(UNSAFE_MEMBERS) + 1
    assert all(f"unsafe member name {orjson.dumps(name).decode()} skipped" in problems for name in UNSAFE_MEMBERS)
    assert f"member {orjson.dumps(DUPLICATE_MEMBER).decode()} appears 2 times; skipped (ambiguous)" in problems
    assert main(["ls", str(path)]) == 0
    out = capsys.readouterr().out
    tail = out[out.index("problems:"):]
    assert 'unsafe member name "subagents/../../evil/session.jsonl" skipped' in tail
    assert "appears 2 times" in tail and "\x1b" not in out


def test_a_zip_of_many_bad_names_lists_a_bounded_number(tmp_path, capsys):
    from dsh_tui.model.reading.exportzip import MAX_PROBLEMS
    path = tmp_path / "dsh-session-many.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("session.jsonl", b"not a log")
        for k in range(MAX_PROBLEMS + 25):
            zf.writestr(f"../{k}/session.jsonl", b"{}\n")
    assert main(["ls", str(path), "--no-status", "--format", "json"]) == 0
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1] == "... and 25 more unsafe or duplicate member names skipped"
