"""A scan: which sessions to read (new or changed since the manifest), read them in batches on
local processes or a Dask cluster (the same `scan_batch` either way: a worker reads its sessions and
writes its batch's Parquet files itself), then the driver makes the tables and writes the manifest."""

from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .discover import Found, discover
from .rows import Rows, SessionRef, session_rows
from .schema import SCHEMA
from . import store


@dataclass(frozen=True, slots=True)
class ScanOptions:
    max_plain: int | None = None
    lenient: bool = False
    use_cache: bool = True


@dataclass(slots=True)
class ScanReport:
    total: int = 0  # sessions under the roots
    read: int = 0  # read this time (new or changed)
    unchanged: int = 0
    removed: int = 0
    by_status: dict = field(default_factory=dict)  # of those read: ok / rejected / unreadable
    worker_peak_rss: int = 0  # bytes: the largest peak RSS of a worker (a Dask worker's whole process)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def scan_batch(refs: list[SessionRef], folder: str, options: ScanOptions) -> dict:
    """Read ``refs`` and write their rows as one staging batch in ``folder``: what the manifest keeps
    of each session, and the worker's peak RSS so far. Runs in a worker process (local or Dask)."""
    import resource
    rows = Rows()
    out = []
    now = time.time()
    enabled = gc.isenabled()
    for ref in refs:
        gc.disable()  # as `check`: a big log's millions of acyclic objects, re-scanned for nothing
        try:
            one = session_rows(ref, max_plain=options.max_plain, lenient=options.lenient,
                               use_cache=options.use_cache, now=now)
        finally:
            if enabled:
                gc.enable()
        s = one.sessions[0]
        out.append({"key": ref.key, "session_id": s["session_id"], "status": s["status"],
                    "verdict_kind": s.get("verdict_kind")})
        rows.extend(one)
    store.write_batch(rows, Path(folder))
    return {"sessions": out, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def _batches(todo: list[Found], workers: int) -> list[list[Found]]:
    """Batches small enough to spread over the workers and show progress, big enough that a batch's
    files are not a flood: biggest logs first, so one large log does not finish last alone."""
    todo = sorted(todo, key=lambda f: -f.size)
    size = max(1, min(64, len(todo) // max(1, workers * 8)))
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def plan(found: list[Found], manifest: dict | None, options: ScanOptions, failed_roots: list[str]):
    """(to read, unchanged manifest entries kept, removed count)."""
    old = manifest["sessions"] if manifest and manifest.get("options") == _options_key(options) else {}
    keep: dict[str, dict] = {}
    todo: list[Found] = []
    for f in found:
        entry = old.get(f.ref.key)
        if isinstance(entry, dict) and entry.get("identity") == f.identity:
            keep[f.ref.key] = entry
        else:
            todo.append(f)
    seen = {f.ref.key for f in found}
    for key, entry in old.items():  # a root that could not be listed this time keeps its sessions
        if key not in seen and isinstance(entry, dict) and any(key.startswith(r + os.sep) or key == r
                                                               for r in failed_roots):
            keep[key] = entry
    removed = sum(1 for key in old if key not in seen and key not in keep)
    return todo, keep, removed


def _options_key(options: ScanOptions) -> dict:
    return {"lenient": options.lenient, "max_plain": options.max_plain}


def run_scan(roots: list[str], out: Path, options: ScanOptions = ScanOptions(), *, engine: str = "local",
             scheduler: str | None = None, workers: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> ScanReport:
    """Scan ``roots`` into ``out``. Raises store.OutDirError; a bad log is a row, never an error."""
    from .. import __version__
    started = time.monotonic()
    out = store.prepare_out(out)
    store.clear_staging(out)
    found = discover([os.path.abspath(r) for r in roots])
    manifest = store.read_manifest(out)
    todo, keep, removed = plan(found.found, manifest, options, found.failed_roots)
    report = ScanReport(total=len(found.found), unchanged=len(keep), removed=removed, problems=found.problems)
    entries: dict[str, dict] = dict(keep)
    if todo or removed or manifest is None:
        identity = {f.ref.key: f.identity for f in todo}
        ident_of = {f.ref.key: f for f in todo}
        folders: list[Path] = []
        runner = _run_dask if engine == "dask" else _run_local
        done = 0
        if progress:
            progress(0, len(todo))
        for folder, batch in runner(_batches(todo, workers or os.cpu_count() or 1), out, options, scheduler, workers):
            folders.append(folder)
            results = batch["sessions"]
            report.worker_peak_rss = max(report.worker_peak_rss, batch["peak_rss"])
            for r in results:
                f = ident_of[r["key"]]
                entries[r["key"]] = {"identity": identity[r["key"]], "path": f.ref.path, "member": f.ref.member,
                                     "session_id": r["session_id"], "status": r["status"],
                                     "verdict_kind": r["verdict_kind"]}
                report.by_status[r["status"]] = report.by_status.get(r["status"], 0) + 1
            done += len(results)
            if progress:
                progress(done, len(todo))
        report.read = done
        store.build_tables(out, folders, set(keep))
    store.write_manifest(out, {"schema": SCHEMA, "dsh_tui_version": __version__, "options": _options_key(options),
                               "roots": [os.path.abspath(r) for r in roots], "sessions": entries})
    store.clear_staging(out)
    report.seconds = time.monotonic() - started
    return report


def _run_local(batches, out: Path, options: ScanOptions, _scheduler, workers):
    """Batches on a process pool of this machine's cores, one log at a time per process. (No
    max_tasks_per_child: on Python 3.11 the pool can hang once a worker has been replaced.)"""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    if not batches:
        return
    n = max(1, min(workers or os.cpu_count() or 1, len(batches)))
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
        futures = {}
        for i, batch in enumerate(batches):
            folder = out / store.STAGING / f"b{i:06d}"
            futures[pool.submit(scan_batch, [f.ref for f in batch], str(folder), options)] = folder
        for fut in as_completed(futures):
            yield futures[fut], fut.result()


def _run_dask(batches, out: Path, options: ScanOptions, scheduler: str | None, _workers):
    """The same batches on a `dask.distributed` cluster: each worker writes its batch's files under
    ``out`` (which the workers must see at the same path: a shared filesystem)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise store.OutDirError("Dask is not installed: pip install 'dsh-tui[fleet]'") from None
    if not batches:
        return
    client = Client(scheduler, timeout="30s") if scheduler else Client(processes=True, dashboard_address=None)
    try:
        futures = {}
        for i, batch in enumerate(batches):
            folder = out / store.STAGING / f"b{i:06d}"
            fut = client.submit(scan_batch, [f.ref for f in batch], str(folder), options, pure=False)
            futures[fut] = folder
        for fut in as_completed(list(futures)):
            yield futures[fut], fut.result()
    finally:
        client.close()
