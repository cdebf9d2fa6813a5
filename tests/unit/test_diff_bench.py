"""The benchmark's diff rows (dsh_tui/benchmarks/diffbench.py): a log against a copy of itself and
against itself, as whole processes, report no divergence."""

from __future__ import annotations

from dsh_tui.benchmarks import diffbench

from ..support.logs import PARITY


def test_diff_rows_measure_a_log_against_its_copy_and_itself(tmp_path):
    log = PARITY / "diff-cases" / "--home-user-parity--" / "args-a" / "session.jsonl.zstd"
    d = diffbench.measure(log, tmp_path, 1)
    for key in ("copy_cold", "copy_warm", "self_warm"):
        assert d[key]["rc"] == 0 and d[key]["first_divergence"] is None and d[key]["calls"] == 5, key
    rows = diffbench.rows({"diff": d})
    assert [r["result"] for r in rows] == ["PASS", "PASS", "PASS"]
    assert (tmp_path / "diff-copy.jsonl.zstd").read_bytes() == log.read_bytes()
