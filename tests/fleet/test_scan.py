"""`dsh-tui scan` and `query` on real DuckDB: every `sessions` row says what `check --format json`
says of that session; a rejected, torn, bomb or unreadable log is a row with its reason; a re-scan
reads only what changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")

from dsh_tui.cli import main  # noqa: E402
from dsh_tui.fleet.rows import utf8  # noqa: E402
from dsh_tui.fleet.store import connect  # noqa: E402
from tests.support.hostile_listings import bomb_child_root, chain_zip  # noqa: E402
from tests.support.session_roots import build_root  # noqa: E402

from .conftest import dsh  # noqa: E402

PARITY = Path(__file__).resolve().parents[1] / "parity" / "cases" / "zstd"
TOKENS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> dict:
    """A generated root (projects, children, a fork, torn, rejected, flat and leftover files), the dsh-writer
    parity cases (every finding kind dsh's writer can make), a bomb and an export ZIP; scanned once."""
    base = tmp_path_factory.mktemp("fleet")
    os.environ.setdefault("XDG_CACHE_HOME", str(base / "cache"))
    built = build_root(base / "root")
    chain_zip(base / "root" / "export.zip", 2)
    bomb_child_root(base / "bombs", plain_mib=4)
    roots = [str(base / "root"), str(PARITY), str(base / "bombs")]
    out = base / "scan"
    done = dsh("scan", *roots, "--out", str(out), "--quiet", "--max-plain-size", "1M", "--workers", "2")
    assert done.returncode == 0, done.stderr
    return {"base": base, "built": built, "roots": roots, "out": out}


def _rows(out: Path, sql: str) -> list[dict]:
    con = connect(out)
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        con.close()


def _check(key: str, *extra: str) -> tuple[int, dict | None]:
    done = subprocess.run([sys.executable, "-m", "dsh_tui", "check", key, "--format", "json", "--no-cache",
                           "--no-lineage", *extra], capture_output=True, timeout=120)
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else None)


def test_every_session_row_says_what_check_says(fleet):
    rows = _rows(fleet["out"], "SELECT * FROM sessions ORDER BY session_key")
    assert len(rows) >= 40  # the root's sessions, the parity cases, the ZIP's members, the bombs
    statuses = {r["status"] for r in rows}
    assert {"ok", "rejected", "unreadable"} <= statuses
    kinds = set()
    for row in rows:
        code, report = _check(row["session_key"], "--max-plain-size", "1M")
        if row["status"] == "unreadable":
            assert code == 3 and row["error"], row["session_key"]
            continue
        assert report is not None, row["session_key"]
        assert row["accepted"] == report["accepted"]
        if row["status"] == "rejected":
            assert code == 3 and row["rejection_code"] == report["rejection"]["code"]
            continue
        assert row["session_id"] == report["header"].get("id")
        assert row["events"] == report["events"] and row["whole"] == report["whole"]
        assert row["torn"] == (report["torn_tail"] is not None)
        assert row["failed"] == (code == 1)
        verdict = report["verdict"] or {}
        assert row["verdict_kind"] == verdict.get("kind")
        assert row["verdict_seq"] == verdict.get("seq")
        # Parquet holds UTF-8 only: a lone surrogate is kept as its \udXXX spelling (rows.utf8)
        assert row["verdict_call_id"] == (utf8(verdict["callId"]) if verdict.get("callId") else None)
        counts: dict[str, int] = {}
        for f in report["findings"]:
            counts[f["kind"]] = counts.get(f["kind"], 0) + 1
        assert json.loads(row["finding_counts"]) == counts
        kinds |= counts.keys()
        for k in TOKENS:
            assert row[k] == report["usage"]["session"][k]
            assert row[f"inherited_{k}"] == report["usage"]["inherited"][k]
        assert row["wall_ms"] == report["timing"]["totals"]["wall_ms"]
        assert row["turns"] == report["timing"]["counts"]["turns"]
        assert row["tool_calls"] == report["pairs"]["tool"]
        assert row["depth"] == report["header"].get("delegationDepth")
        assert row["forked"] == report["forked"]
    # the scan covers the kinds the writer's cases hold (a failed scan would see none of them)
    assert {"TOOL_OUTCOME_UNKNOWN", "TOOL_NOT_STARTED", "TOOL_ERROR", "COMMAND_FAILED", "TURN_NOT_COMPLETED",
            "HOOK_BLOCKED", "TORN_TAIL"} <= kinds


def test_child_tables_join_back_to_their_session(fleet):
    out = fleet["out"]
    for table in ("findings", "calls", "turns"):
        orphans = _rows(out, f"SELECT count(*) AS n FROM {table} t ANTI JOIN sessions s USING (session_key)")
        assert orphans[0]["n"] == 0, table
    mismatched = _rows(out, "SELECT s.session_key FROM sessions s LEFT JOIN "
                            "(SELECT session_key, count(*) AS n FROM findings GROUP BY ALL) f USING (session_key) "
                            "WHERE s.status = 'ok' AND coalesce(f.n, 0) <> s.findings")
    assert mismatched == []
    verdicts = _rows(out, "SELECT f.permalink, s.session_id, s.verdict_seq FROM findings f JOIN sessions s "
                          "USING (session_key) WHERE f.is_verdict")
    assert verdicts and all(v["permalink"] == f"{v['session_id']}@{v['verdict_seq']}" for v in verdicts)


def test_unknown_outcome_call_is_one_query_away(fleet):
    demo = fleet["built"].ids["demo"]
    rows = _rows(fleet["out"], f"SELECT call_id, status, permalink FROM calls WHERE session_id = '{demo}' "
                               "AND status = 'TOOL_OUTCOME_UNKNOWN'")
    code, report = _check(str(fleet["built"].paths["demo"]))
    unknown = [f for f in report["findings"] if f["kind"] == "TOOL_OUTCOME_UNKNOWN"]
    assert {r["call_id"] for r in rows} == {f["callId"] for f in unknown}
    assert all(r["permalink"].startswith(f"{demo}@") for r in rows)


def test_partitioned_by_project_and_day(fleet):
    out = fleet["out"]
    parts = {p.relative_to(out / "sessions").parts[:2] for p in (out / "sessions").rglob("*.parquet")}
    assert parts and all(a.startswith("project_key=") and b.startswith("created_date=") for a, b in parts)
    assert all(".." not in a and "/" not in a for a, _b in parts)


def test_rescan_reads_only_what_changed(fleet, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(fleet["base"] / "root", root, symlinks=True)
    out = tmp_path / "scan"
    assert dsh("scan", str(root), "--out", str(out), "--quiet").returncode == 0
    before = _rows(out, "SELECT session_key, scanned_at FROM sessions")
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["sessions"]) == {r["session_key"] for r in before}
    # unchanged: nothing read, the tables untouched
    stamp = {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")}
    assert dsh("scan", str(root), "--out", str(out), "--quiet").returncode == 0
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")} == stamp
    # one log grows, one goes, one comes
    done = next(Path(r["session_key"]) for r in before if "11111111-0000-4000-8000-000000000001" in r["session_key"])
    gone = next(Path(r["session_key"]) for r in before if "11111111-0000-4000-8000-000000000003" in r["session_key"])
    new = done.parent.parent / "99999999-0000-4000-8000-000000000009" / done.name
    new.parent.mkdir()
    shutil.copy(gone, new)
    shutil.rmtree(gone.parent)
    with open(done, "ab") as fh:
        fh.write(b"\x00garbage")  # now not whole
    assert dsh("scan", str(root), "--out", str(out), "--quiet").returncode == 0
    after = {r["session_key"]: r for r in _rows(out, "SELECT session_key, scanned_at, whole FROM sessions")}
    assert str(gone) not in after and str(new) in after
    assert after[str(done)]["whole"] is False
    old_stamp = {r["session_key"]: r["scanned_at"] for r in before}
    unchanged = [k for k in after if k not in (str(done), str(new))]
    assert unchanged and all(after[k]["scanned_at"] == old_stamp[k] for k in unchanged)
    assert len(after) == len(before)  # one gone, one new: no row twice


def test_named_queries_and_formats(fleet, capsys):
    out = str(fleet["out"])
    for name in ("failures", "by-tool", "unknown-outcomes", "tokens-by-day", "loops"):
        assert main(["query", "--in", out, f"--{name}", "--format", "json"]) == 0
        json.loads(capsys.readouterr().out)
    assert main(["query", "--in", out, "--failures"]) == 0
    text = capsys.readouterr().out
    assert "TOOL_OUTCOME_UNKNOWN" in text and "\x1b" not in text
    assert main(["query", "--in", out, "SELECT count(*) AS n FROM sessions", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "n"
    assert main(["query", "--in", out, "SELECT * FROM nowhere"]) == 3
    assert "nowhere" in capsys.readouterr().err
    assert main(["query", "--in", out]) == 2  # neither SQL nor a named question


def test_query_refuses_a_folder_that_is_not_a_scan(tmp_path, capsys):
    assert main(["query", "--in", str(tmp_path), "--failures"]) == 3
    assert "not a scan folder" in capsys.readouterr().err


def test_out_folder_others_can_write_is_refused(tmp_path, capsys):
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(0o777)
    done = dsh("scan", str(tmp_path), "--out", str(out), "--quiet")
    assert done.returncode == 3 and "writable by other users" in done.stderr
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    assert dsh("scan", str(tmp_path), "--out", str(link), "--quiet").returncode == 3


def test_hostile_text_never_reaches_the_terminal_raw(tmp_path, capsys):
    from tests.support.session_roots import header, turn_batches, write_session
    root = tmp_path / "root"
    write_session(root, header("evil\x1b]52;c;aGk=\x07id", 1_796_000_000_000), turn_batches("completed"))
    out = tmp_path / "scan"
    assert dsh("scan", str(root), "--out", str(out), "--quiet").returncode == 0
    assert main(["query", "--in", str(out), "SELECT session_id FROM sessions"]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown and "␛]52" in shown
    assert main(["query", "--in", str(out), "SELECT session_id FROM sessions", "--format", "json"]) == 0
    raw = capsys.readouterr().out
    assert "\x1b" not in raw and json.loads(raw)[0]["session_id"] == "evil\x1b]52;c;aGk=\x07id"


def test_without_the_extra_each_command_exits_2_naming_itself(tmp_path):
    for command in ("scan", "query", "grep"):
        done = subprocess.run([sys.executable, "-c", (
            "import sys; sys.modules['duckdb'] = None\n"
            "from dsh_tui.cli import main\n"
            f"sys.exit(main([{command!r}, 'x', '--out', 'y']))")], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert f"dsh-tui {command}: needs the fleet extra" in done.stderr


def test_a_session_that_breaks_dshs_listing_is_said_at_the_root(tmp_path, capsys):
    """dsh's writer wrote this root; dsh's own listing refuses it whole for one session (tests/parity)."""
    root = Path(__file__).resolve().parents[1] / "parity" / "cases" / "zstd-listing"
    out = tmp_path / "scan"
    done = dsh("scan", str(root), "--out", str(out), "--quiet")
    assert done.returncode == 0
    err = done.stderr.splitlines()
    assert err and "DSH CANNOT LIST THIS ROOT" in err[0] and "lb-one-frame" in err[0]
    rows = {r["session_id"]: r for r in _rows(out, "SELECT session_id, breaks_listing FROM sessions")}
    assert rows["lb-one-frame"]["breaks_listing"] and rows["lb-good"]["breaks_listing"] is None
