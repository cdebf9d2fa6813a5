"""`scan --engine dask` on a real `dask.distributed` LocalCluster (two worker processes on loopback)
writes the same tables as the local engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("duckdb")
pytest.importorskip("distributed")

from dsh_tui.cli import main  # noqa: E402
from dsh_tui.fleet.store import connect  # noqa: E402
from tests.support.hostile_listings import chain_zip  # noqa: E402
from tests.support.session_roots import build_root  # noqa: E402

from .conftest import dsh  # noqa: E402

PARITY = Path(__file__).resolve().parents[1] / "parity" / "cases" / "zstd"
# What a scan's time and place change: everything else must be equal, row for row.
VOLATILE = {"scanned_at"}


def _table(out: Path, table: str) -> list[tuple]:
    con = connect(out)
    try:
        cur = con.execute(f"SELECT * FROM {table}")
        names = [d[0] for d in cur.description]
        keep = [k for k, n in enumerate(names) if n not in VOLATILE]
        return sorted((tuple(str(r[k]) for k in keep) for r in cur.fetchall()))
    finally:
        con.close()


# A LocalCluster of two worker processes on loopback, in a process of its own (its workers and their
# process tracker end with it, not inside the test process): it prints its address and the number of
# workers that joined, and closes when its stdin does.
CLUSTER = """
import sys
from distributed import Client, LocalCluster
with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                  dashboard_address=None) as cluster, Client(cluster.scheduler_address) as client:
    client.wait_for_workers(2, timeout=60)
    print(cluster.scheduler_address, len(client.scheduler_info()["workers"]), flush=True)
    sys.stdin.read()
"""


def test_dask_engine_writes_the_same_rows_as_the_local_one(tmp_path):
    root = tmp_path / "root"
    build_root(root)
    chain_zip(root / "export.zip", 2)
    roots = [str(root), str(PARITY)]
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert dsh("scan", *roots, "--out", str(local), "--quiet", "--workers", "2").returncode == 0
    cluster = subprocess.Popen([sys.executable, "-c", CLUSTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        address, workers = cluster.stdout.readline().split()
        assert address.startswith("tcp://127.0.0.1:") and workers == "2"
        done = dsh("scan", *roots, "--out", str(remote), "--quiet", "--engine", "dask", "--scheduler", address)
        assert done.returncode == 0, done.stderr
    finally:
        cluster.stdin.close()
        try:
            cluster.wait(timeout=60)
        except subprocess.TimeoutExpired:
            cluster.kill()
            cluster.wait()
    for table in ("sessions", "findings", "calls", "turns"):
        assert _table(local, table) == _table(remote, table), table
    assert len(_table(remote, "sessions")) >= 40


def test_dask_engine_needs_a_scheduler(tmp_path, capsys):
    assert main(["scan", str(tmp_path), "--out", str(tmp_path / "o"), "--engine", "dask"]) == 2
    assert "--scheduler" in capsys.readouterr().err
