"""`dsh-tui scan`, `dsh-tui query` and `dsh-tui grep`: the fleet's commands (the `fleet` extra).

Exit codes as `check`: 0 done (query: rows or none; grep: a match), 1 grep found nothing, 2 usage
(also: the extra is not installed), 3 an output folder or a scan that cannot be used, or no root
could be read. Everything printed from a log passes `dsh_tui.safety`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

EXIT_OK, EXIT_NONE, EXIT_USAGE, EXIT_UNREADABLE = 0, 1, 2, 3

NAMED = {
    "failures": ("sessions that failed or could not be judged, newest first",
                 "SELECT created, session_id, project_display AS project, status, verdict_kind, verdict_tool, "
                 "verdict_code, CASE WHEN verdict_seq IS NOT NULL THEN session_id || '@' || verdict_seq END "
                 "AS permalink, coalesce(error, verdict_message) AS why FROM sessions "
                 "WHERE failed OR status <> 'ok' ORDER BY created DESC NULLS LAST, session_key"),
    "by-tool": ("calls by tool: how many, how many failed, the slowest",
                "SELECT tool, count(*) AS calls, count(*) FILTER (WHERE status = 'error') AS errors, "
                "count(*) FILTER (WHERE status NOT IN ('ok', 'error')) AS without_result, "
                "round(100.0 * count(*) FILTER (WHERE status = 'error') / count(*), 1) AS error_pct, "
                "max(duration_ms) AS max_ms, round(avg(duration_ms)) AS avg_ms, count(DISTINCT session_key) "
                "AS sessions FROM calls GROUP BY tool ORDER BY errors DESC, calls DESC, tool"),
    "unknown-outcomes": ("calls a crash left that may have run (TOOL_OUTCOME_UNKNOWN)",
                         "SELECT f.permalink, f.tool, f.call_id, s.created, s.project_display AS project, "
                         "c.args_preview FROM findings f JOIN sessions s USING (session_key) "
                         "LEFT JOIN calls c ON c.session_key = f.session_key AND c.call_id = f.call_id "
                         "WHERE f.kind = 'TOOL_OUTCOME_UNKNOWN' ORDER BY s.created DESC NULLS LAST, f.permalink"),
    "tokens-by-day": ("tokens per day of creation, in dsh's four buckets",
                      "SELECT created_date AS day, count(*) AS sessions, sum(inputTokens) AS input, "
                      "sum(outputTokens) AS output, sum(cacheReadTokens) AS cache_read, "
                      "sum(cacheWriteTokens) AS cache_write FROM sessions WHERE status = 'ok' "
                      "GROUP BY created_date ORDER BY created_date"),
    "loops": ("the same tool called with the same arguments 3 or more times in one turn",
              "SELECT session_id || '@' || min(seq) AS permalink, turn, tool, count(*) AS times, "
              "min(seq) AS first_seq, max(seq) AS last_seq, any_value(args_preview) AS arguments FROM calls "
              "WHERE turn IS NOT NULL GROUP BY session_key, session_id, turn, tool, args_sha HAVING count(*) >= 3 "
              "ORDER BY times DESC, permalink"),
}


def _need_extra(command: str) -> int | None:
    try:
        import duckdb  # noqa: F401
    except ImportError:
        print(f"dsh-tui {command}: needs the fleet extra (DuckDB and Dask): pip install 'dsh-tui[fleet]'",
              file=sys.stderr)
        return EXIT_USAGE
    return None


def _fail(command: str, message: str, code: int = EXIT_UNREADABLE) -> int:
    from ..safety import one_line
    print(f"dsh-tui {command}: {one_line(message, 2000)}", file=sys.stderr)
    return code


def main(command: str, argv: list[str]) -> int:
    missing = _need_extra(command)
    if missing is not None:
        return missing
    return {"scan": run_scan, "query": run_query, "grep": run_grep}[command](argv)


# -- scan ---------------------------------------------------------------------------------------

def scan_parser() -> argparse.ArgumentParser:
    from ..cliargs import common as _common
    p = argparse.ArgumentParser(prog="dsh-tui scan", description=(
        "Read every session under the roots (dsh's layout, export ZIPs, subagent children) with the reader and "
        "diagnosis of `check` and write the tables sessions, findings, calls and turns as Parquet under --out, "
        "partitioned by project and creation date. A re-scan reads only new or changed sessions and drops "
        "removed ones. Exit 0; 2: usage; 3: the output folder cannot be used or no root could be read."))
    p.add_argument("roots", nargs="+", metavar="ROOT", help="a session root, project or session directory, a log, "
                                                           "or an export ZIP")
    p.add_argument("--out", required=True, metavar="DIR", help="the scan's folder (made 0700 if missing)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local: a process per core (default); dask: a dask.distributed cluster")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="the Dask scheduler (with --engine dask)")
    p.add_argument("--workers", type=int, default=None, metavar="N", help="local processes (default: every core)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    _common(p)
    return p


class Progress:
    """One line on a terminal's stderr: sessions done of total, the rate, the time left."""

    def __init__(self, stream) -> None:
        self.stream, self.started, self.drawn = stream, time.monotonic(), False

    def __call__(self, done: int, total: int) -> None:
        spent = time.monotonic() - self.started
        rate = done / spent if spent > 0 else 0.0
        left = (total - done) / rate if rate > 0 else None
        eta = "" if left is None else f"  {int(left // 60)}m{int(left % 60):02d}s left"
        self.stream.write(f"\r\x1b[Kscanning {done:,}/{total:,} sessions  {rate:,.1f}/s{eta}")
        self.stream.flush()
        self.drawn = True

    def end(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def run_scan(argv: list[str]) -> int:
    from .engine import ScanOptions, run_scan as scan
    from .store import OutDirError
    args = scan_parser().parse_args(argv)
    if args.engine == "dask" and not args.scheduler:
        scan_parser().error("--engine dask needs --scheduler tcp://HOST:PORT")
    if args.workers is not None and args.workers < 1:
        scan_parser().error("--workers must be at least 1")
    no_cache = args.no_cache or os.environ.get("DSH_TUI_NO_CACHE") == "1"
    options = ScanOptions(max_plain=args.max_plain_size, lenient=args.lenient, use_cache=not no_cache)
    bar = Progress(sys.stderr) if sys.stderr.isatty() and not args.quiet else None
    try:
        report = scan(args.roots, Path(args.out), options, engine=args.engine, scheduler=args.scheduler,
                      workers=args.workers, progress=bar)
    except OutDirError as exc:
        return _fail("scan", str(exc))
    except OSError as exc:  # a scheduler that cannot be reached, a full disk
        return _fail("scan", f"{type(exc).__name__}: {exc}")
    finally:
        if bar is not None:
            bar.end()
    from ..safety import one_line
    for problem in report.problems[:20]:
        print(f"dsh-tui scan: {one_line(problem, 500)}", file=sys.stderr)
    if len(report.problems) > 20:
        print(f"dsh-tui scan: ... and {len(report.problems) - 20} more problems", file=sys.stderr)
    if not args.quiet:
        statuses = ", ".join(f"{n:,} {s}" for s, n in sorted(report.by_status.items()))
        print(f"{report.total:,} sessions: {report.read:,} read{f' ({statuses})' if statuses else ''}, "
              f"{report.unchanged:,} unchanged, {report.removed:,} removed, in {report.seconds:.1f} s -> "
              f"{one_line(str(Path(args.out)), 500)}"
              + (f" (largest worker peak RSS {report.worker_peak_rss / 2**20:,.0f} MiB)" if report.read else ""))
    if report.total == 0 and report.problems:
        return EXIT_UNREADABLE
    return EXIT_OK


# -- query ----------------------------------------------------------------------------------------

def query_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dsh-tui query", description=(
        "Ask a scan in SQL (DuckDB) over the views sessions, findings, calls and turns, or run a named question. "
        "Exit 0; 2: usage; 3: the scan folder cannot be read or the SQL fails."))
    p.add_argument("sql", nargs="?", help="the SQL (omit with a named question)")
    p.add_argument("--in", dest="scan", required=True, metavar="DIR", help="the folder `dsh-tui scan --out` wrote")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    named = p.add_mutually_exclusive_group()
    for name, (what, _sql) in NAMED.items():
        named.add_argument(f"--{name}", dest="named", action="store_const", const=name, help=what)
    return p


def run_query(argv: list[str]) -> int:
    from .store import OutDirError, connect, prepare_out
    args = query_parser().parse_args(argv)
    if (args.sql is None) == (args.named is None):
        query_parser().error("give either SQL or one named question (--failures, --by-tool, ...)")
    sql = NAMED[args.named][1] if args.named else args.sql
    try:
        out = prepare_out(Path(args.scan), create=False)
        if not (out / "manifest.json").is_file():
            return _fail("query", f"{out}: not a scan folder (no manifest.json; make one with `dsh-tui scan`)")
        con = connect(out)
    except OutDirError as exc:
        return _fail("query", str(exc))
    import duckdb
    try:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description] if cur.description else []
        rows = cur.fetchall() if cur.description else []
    except duckdb.Error as exc:
        return _fail("query", f"{type(exc).__name__}: {exc}")
    finally:
        con.close()
    from .output import write_rows
    write_rows(sys.stdout, names, rows, args.format, tty=sys.stdout.isatty())
    return EXIT_OK


# -- grep ------------------------------------------------------------------------------------------

def grep_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dsh-tui grep", description=(
        "Search the calls' arguments, the results and the messages of every session under the roots for a regular "
        "expression; print each match as SESSION-ID@SEQ (open it with `dsh-tui ID@SEQ`). Exit 0: matches; 1: none; "
        "2: usage; 3: no root could be read."))
    p.add_argument("pattern", help="a Python regular expression")
    p.add_argument("roots", nargs="+", metavar="ROOT")
    p.add_argument("-i", "--ignore-case", action="store_true")
    p.add_argument("-m", "--max-count", type=int, default=100, metavar="N", help="matches per session (default 100)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--workers", type=int, default=None, metavar="N")
    p.add_argument("--max-plain-size", type=_size_arg(), default=None, metavar="SIZE")
    return p


def _size_arg():
    from ..cliargs import size
    return size


def run_grep(argv: list[str]) -> int:
    import re
    args = grep_parser().parse_args(argv)
    flags = re.IGNORECASE if args.ignore_case else 0
    try:
        re.compile(args.pattern, flags)
    except re.error as exc:
        grep_parser().error(f"not a regular expression: {exc}")
    from .discover import discover
    from .output import write_hits
    found = discover([os.path.abspath(r) for r in args.roots])
    from ..safety import one_line
    for problem in found.problems[:20]:
        print(f"dsh-tui grep: {one_line(problem, 500)}", file=sys.stderr)
    if not found.found and found.problems:
        return EXIT_UNREADABLE
    total = 0
    for hits, error in _grep_all(found.found, args.pattern, flags, args.max_count, args.max_plain_size, args.workers):
        if error:
            print(f"dsh-tui grep: {one_line(error, 500)}", file=sys.stderr)
        write_hits(sys.stdout, hits, args.format)
        total += len(hits)
    return EXIT_OK if total else EXIT_NONE


def _grep_one(ref, pattern, flags, max_hits, max_plain):
    from .grep import grep_session
    return grep_session(ref, pattern, flags, max_hits=max_hits, max_plain=max_plain)


def _grep_all(found, pattern, flags, max_hits, max_plain, workers):
    """Each session's hits, in the order the sessions were found (a pool of processes when many)."""
    refs = [f.ref for f in found]
    n = max(1, min(workers or os.cpu_count() or 1, len(refs)))
    if n == 1 or len(refs) < 8:
        for ref in refs:
            yield _grep_one(ref, pattern, flags, max_hits, max_plain)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("forkserver")) as pool:
        yield from pool.map(_grep_one, refs, *([x] * len(refs) for x in (pattern, flags, max_hits, max_plain)),
                            chunksize=4)
