"""Smoke test of the benchmark harness: `--quick` on a tiny generated log; structure only, no timings."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from dsh_tui.bench import parser
from dsh_tui.benchmarks import core, proc as bench_proc, report, tmuxrun


def test_quick_run_writes_the_expected_json(tmp_path):
    work, out = tmp_path / "work", tmp_path / "results.json"
    proc = subprocess.run([sys.executable, "-m", "dsh_tui.bench", "--quick", "--events", "3000",
                           "--workdir", str(work), "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["schema"] == "dsh-tui/bench/1"
    assert doc["options"]["quick"] is True and doc["options"]["repeat"] == 1
    assert doc["growth"] is None
    assert doc["package"]  # where the measured processes load dsh_tui from
    assert len(doc["logs"]) == 1
    res = doc["logs"][0]["results"]
    for key in ("floor", "check", "reopen", "startup", "tui"):
        assert key in res, key
    assert res["floor"]["plain_bytes"] > 0 and res["floor"]["lines"] > 0
    # the verdict is the generator's last call, in `check` and in the explorer
    assert res["check"]["verdict"]["kind"] == "TOOL_OUTCOME_UNKNOWN"
    assert res["check"]["verdict"]["call_id"] == res["expected_call_id"]
    assert res["tui"]["verdict"]["call_id"] == res["expected_call_id"]
    assert res["check"]["rss"] > 0 and res["tui"]["rss"] > 0
    # the verdict's budget (2x floor + Textual's start-up) is measured between the explorer's runs
    assert len(res["tui_floor"]["starts"]) == len(res["startup"]["runs"]) == len(res["tui"]["runs"]) == 1
    budget_row = next(r for r in doc["rows"] if r["metric"].startswith("TUI: spawn"))
    assert budget_row["data"]["budget_s"] == 2 * res["tui_floor"]["best"] + res["startup"]["best"]
    keys = res["tui"]["keys"]
    for name in ("down", "pagedown", "end", "home", "goto_prompt", "goto", "goto_count", "search_next"):
        assert keys[name]["n"] == 5, name
        assert set(keys[name]) >= {"median", "p95", "max"}
    for name in ("goto_prompt_digit", "goto_count_digit"):  # every digit of the five target seqs
        assert keys[name]["n"] >= 5, name
    assert keys["goto"]["landed"] == 5 and keys["goto_count"]["landed"] == 5 and keys["search_next"]["landed"] == 5
    assert "jq" not in res and "tmux" not in res  # skipped in --quick

    rows = doc["rows"]
    assert rows and all(set(r) >= {"metric", "value", "reference", "ratio", "target", "result"} for r in rows)
    assert {r["result"] for r in rows} <= {"PASS", "FAIL", "SKIP", "INFO"}
    metrics = " ".join(r["metric"] for r in rows)
    for word in ("floor", "check --format json --no-cache", "re-open", "TUI: spawn", "key down", "tmux"):
        assert word in metrics, word
    rechecks = [r["metric"] for r in rows if r["metric"].startswith("re-open: check with cache")]
    assert len(rechecks) == 2 and "the entry check writes" in rechecks[1]  # as the explorer and as check leave it
    summary = doc["summary"]
    assert summary["pass"] + summary["fail"] + summary["skip"] + summary["info"] == len(rows)
    assert len(summary["failed"]) == summary["fail"]
    # the same table is printed
    assert "METRIC" in proc.stdout and "check verdict" in proc.stdout
    assert work.joinpath(out.name).exists() is False  # --json elsewhere: nothing written twice


def test_floor_check_and_jq_runs_take_turns(tmp_path):
    """A ratio of two measurements means something only if the machine's drift hits both alike."""
    log, facts = core.generated_log(tmp_path, 2000)
    floor, check, jq = core.alternated(log, tmp_path, 3, jq=True)
    assert check["verdict"]["call_id"] == facts["last_call_id"] and floor["lines"] > 0
    measured = [floor, check] + ([check["one_core"]] if core.one_core_prefix() else []) \
        + ([jq] if bench_proc.which("jq") and bench_proc.which("zstd") else [])
    assert (jq is None) == (len(measured) == 2 + bool(core.one_core_prefix()))
    if core.one_core_prefix():  # pinned: the same verdict, from one core
        assert check["one_core"]["verdict"] == check["verdict"] and check["one_core"]["argv"][0].endswith("taskset")
    starts = sorted((t, k) for k, m in enumerate(measured) for t in m["starts"])
    assert [k for _, k in starts] == list(range(len(measured))) * 3  # one of each, in turn, three times


def test_a_commands_peak_rss_is_its_own_not_the_benchmarks():
    """Linux carries a spawner's memory high-water mark into a vforked child: measured through the
    launcher, a small command stays small after this process has grown by 200 MiB."""
    grown = bytearray(200 << 20)
    grown[::4096] = b"x" * (len(grown) // 4096)  # touch every page
    del grown
    r = bench_proc.run([sys.executable, "-c", "import sys; print('out'); sys.exit(3)"])
    assert r.rc == 3 and r.stdout == b"out\n" and 0 < r.rss < 100 << 20 and r.wall > 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def test_a_command_past_its_timeout_is_killed_with_what_it_started(tmp_path):
    pid_file = tmp_path / "pid"
    with pytest.raises(TimeoutError, match="sleep"):
        bench_proc.run(["bash", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout=1)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:  # SIGKILL lands asynchronously
        time.sleep(0.02)
    assert not _alive(pid)


def test_markdown_table_and_option_parsing():
    args = parser().parse_args(["--events", "1m,2k", "--growth-sizes", "1m,5m", "--markdown"])
    assert args.events == [[1_000_000, 2_000]] and args.growth_sizes == [1_000_000, 5_000_000]
    rows = [report._row("a|b", "1 ms", target="< 2 ms", ok=True), report._row("c", "", skip="absent")]
    md = report.markdown_table([("log", rows)])
    assert "| a\\|b | 1 ms |" in md and "**PASS**" in md and "SKIP" in md
    text = report.text_table([("log", rows)])
    assert text.splitlines()[0].startswith("METRIC") and "[log]" in text


def test_growth_rows_serialise():
    sizes = [{"events": n, "path": "x", "plain_bytes": n * 80, "check_best": n / 5e5, "check_runs": [n / 5e5],
              "check_rss": n * 200, "verdict_kind": "TOOL_OUTCOME_UNKNOWN", "verdict_call_id": "c",
              "expected_call_id": "c", "verdict_ok": True} for n in (1_000_000, 10_000_000)]
    g = {"sizes": sizes, "time_ratio": 10.0, "rss_ratio": 10.0, "size_ratio": 10.0}
    g["rows"] = report.growth_rows(g)
    assert [r["result"] for r in g["rows"]] == ["PASS", "PASS", "PASS"]
    assert "10M / 1M" in g["rows"][-1]["metric"] and g["rows"][-1]["target"] == "<= 12x"
    json.dumps(g)  # no cycles


def test_growth_runs_each_size_in_turn(tmp_path, monkeypatch):
    """One check of each size per round (the machine's drift must not decide the ratio), each size's
    verdict checked against what the generator wrote."""
    ran = []
    real = bench_proc.run

    def spy(argv, **kw):
        ran.append(next(a for a in argv if a.endswith(".zstd")))
        return real(argv, **kw)
    monkeypatch.setattr(core.proc, "run", spy)
    g = core.growth(tmp_path, [2_000, 3_000], 2, log=lambda _msg: None)
    small, big = (str(core.generated_log(tmp_path, n)[0]) for n in (2_000, 3_000))
    assert ran == [small, big, small, big]
    assert [r["events"] for r in g["sizes"]] == [2_000, 3_000] and all(r["verdict_ok"] for r in g["sizes"])
    assert g["size_ratio"] == 1.5 and len(g["sizes"][0]["check_runs"]) == 2


@pytest.mark.parametrize("line,needle", [
    ('{"type":"tool/call","seq":42,"data":{}}', '"seq":42,'),
    ("not json at all", "not json at all"),
])
def test_last_line_needle(line, needle):
    assert tmuxrun.last_line_needle(line) == needle


def test_memory_rows_know_the_last_line_and_measure_lnav_when_present(tmp_path, monkeypatch):
    """The memory section's lnav row: lnav on the same file until it shows the log's last line,
    its PSS against the explorer's; without lnav (or tmux) a clean skip."""
    from dsh_tui.benchmarks import memory
    from dsh_tui.gen.synthetic import write_synthetic
    path = tmp_path / "s.jsonl.zstd"
    write_synthetic(path, 2_000, seed=1)
    plain, last = memory.plain_bytes(path)
    text = subprocess.run(["zstd", "-dc", str(path)], capture_output=True, check=True).stdout \
        if bench_proc.which("zstd") else None
    if text is not None:
        assert plain == len(text) and last == text.rstrip(b"\n").rsplit(b"\n", 1)[-1].decode()
    row = memory.lnav_row(path, tmp_path, "small", last, 50 << 20)
    if bench_proc.which("lnav") and tmuxrun.available():
        assert row["result"] in ("PASS", "FAIL") and row["data"]["lnav"]["pss"] > 0
    monkeypatch.setattr(memory.proc, "which", lambda name: None)
    assert memory.lnav_row(path, tmp_path, "small", last, 1)["result"] == "SKIP"


def test_the_repeated_log_goes_on_as_one_longer_run(tmp_path):
    """The x11 input: each copy of the body renumbered (seqs, the seqs events name, times, call ids)
    so the whole log reads as dsh reads it: contiguous, accepted, the last copy's open call the verdict."""
    from dsh_tui.benchmarks.memory import repeated_log
    from dsh_tui.model.context.export import Insight
    from dsh_tui.model.opening.target import OpenOptions, open_target
    from tests.support.logs import PARITY
    source = PARITY / "context" / "root" / "--home-user-context--" / "context" / "session.jsonl.zstd"
    once, first = open_target(source, OpenOptions(use_cache=False))
    path = repeated_log(source, tmp_path, 3)
    assert path.name.endswith("__session.jsonl.zstd") and repeated_log(source, tmp_path, 3) == path
    log, diag = open_target(path, OpenOptions(use_cache=False))
    assert log.accepted and not log.res.gaps and len(log) == 3 * len(once)
    assert [log.seq_of(i) for i in (0, len(log) - 1)] == [0, len(log) - 1]
    times = [log.event(i).event["time"] for i in range(len(log)) if "time" in log.event(i).event]
    assert times == sorted(times)
    calls = [r[2] for r in Insight(log)._records(("tool/call",))]
    ids = {log.event(i).event["data"]["callId"] for i in range(len(log)) if log.type_of(i) == "tool/call"}
    assert len(calls) == 3 * len(list(Insight(once)._records(("tool/call",)))) == len(ids) > 0
    assert first.verdict is not None and diag.verdict.seq == first.verdict.seq + 2 * len(once)
