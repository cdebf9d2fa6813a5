"""`dsh-tui diff A B`: two runs side by side, turn-aligned (model/diffing/).

A and B are what `check` takes (a log file, a session directory, an export ZIP, ``ID@SEQ`` under
$DSH_HOME) or a bare session ``ID``; ``diff FILE --runs`` compares the last two runs of one resumed
session. Both sides are opened the way `check` opens a log (target.py: the index cache, --lenient,
--max-plain-size). With ``--format``, or when stdout is not a terminal, the report is printed;
otherwise the explorer opens on it. Exit 0: the same calls with the same outcomes; 1: they differ;
2: usage; 3: either log rejected or unreadable.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from dataclasses import dataclass
from pathlib import Path

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNREADABLE = 0, 1, 2, 3  # as cli.py's (README's table)


def _fail(message: str, code: int = EXIT_UNREADABLE) -> int:
    from .safety import one_line
    print(f"dsh-tui: {one_line(message, 2000)}", file=sys.stderr)
    return code


def diff_parser(common) -> argparse.ArgumentParser:
    """``common``: cli.py's adder of check's flags (--lenient, --max-plain-size, --no-cache)."""
    p = argparse.ArgumentParser(prog="dsh-tui diff", description=(
        "Compare two runs, turn-aligned: the first divergence, the calls changed or on one side only, "
        "summary deltas. Exit 0: the same calls with the same outcomes; 1: they differ; 2: usage error; "
        "3: either log is rejected or unreadable."))
    p.add_argument("a", metavar="A", help="a log file, session directory, export ZIP, ID or ID@SEQ under $DSH_HOME")
    p.add_argument("b", metavar="B", nargs="?", help="the other side (not with --runs)")
    p.add_argument("--runs", action="store_true",
                   help="compare the last two runs of A, a session resumed by dsh (split at session/end-seed)")
    p.add_argument("--format", choices=("text", "json", "markdown"), default=None,
                   help="print the report (the default when stdout is not a terminal) instead of opening the explorer")
    common(p)
    return p


@dataclass
class Side:
    target: str
    path: str
    seq: int | None  # ID@SEQ's seq: where the explorer's cursor starts


class Refused(Exception):
    pass


def locate(text: str) -> Side:
    """What a side names: as `check` reads its argument, plus a bare session ID under $DSH_HOME."""
    from .sessions.locate import check_target, find_session, parse_permalink, path_kind, sessions_root
    missing = path_kind(Path(text)) == "missing"
    if missing and parse_permalink(text) is None and "/" not in text:
        root, _note = sessions_root()
        found = find_session(root, text)
        if len(found) == 1:
            return Side(text, str(found[0]), None)
    path, _note, seq = check_target(text)  # LocateError: a one-line reason (exit 2 or 3)
    return Side(text, path, seq)


def open_side(path: str, args, early=None):
    """(log, diag) opened as `check` opens it; Refused (one line) for a log dsh would refuse."""
    from .memtune import before_big_decode
    from .model.reading.source import LogUnreadable
    from .model.opening.target import OpenOptions, open_target
    before_big_decode(path)
    # The helper that indexes a big log's tail on the other core, as check starts it (cli.py).
    helper = None if early is None else early(argparse.Namespace(file=path, no_cache=args.no_cache,
                                                                 max_plain_size=args.max_plain_size))
    try:
        log, diag = open_target(path, OpenOptions(lenient=args.lenient, max_plain=args.max_plain_size,
                                                  use_cache=not args.no_cache, write_cache=not args.no_cache,
                                                  early_tail=helper, keep_facts=False))
    except LogUnreadable as exc:
        raise Refused(exc.message) from None
    except MemoryError:
        raise Refused(f"{path}: out of memory while decoding; lower --max-plain-size") from None
    if not log.accepted and not args.lenient:
        raise Refused(f"{path}: rejected: {log.rejection.message} (read it anyway with --lenient)")
    return log, diag


def build(args, early=None) -> tuple:
    """(DiffResult, left (log, diag), right (log, diag), left side, right side)."""
    from .model.diffing.compare import compare
    from .model.diffing.digest import digest
    from .model.diffing.runs import last_two_runs
    left = locate(args.a)
    if args.runs:
        log, diag = open_side(left.path, args, early)
        runs = last_two_runs(log)
        if runs is None:
            raise argparse.ArgumentTypeError(f"{args.a}: one run only (no session/end-seed row): nothing to compare")
        (a0, a1), (b0, b1) = runs
        da = digest(log, diag, a0, a1, label=left.path, run=f"the run before, seq {log.seq_of(a0)}..{log.seq_of(a1 - 1)}")
        db = digest(log, diag, b0, b1, label=left.path, run=f"the latest run, from seq {log.seq_of(b0)}")
        return compare(da, db), (log, diag), (log, diag), left, left
    right = locate(args.b)
    child = _fork_side(right.path, args)
    try:
        la = open_side(left.path, args, None if child is not None else early)
        da = digest(*la, label=left.path)
    except BaseException:
        if child is not None:
            child.close()  # A is refused (or interrupted): B's reader is of no use
        raise
    got = child.collect(patience=CHILD_PATIENCE) if child is not None else None
    if got is not None and got[0] == "refused":
        raise Refused(got[1])
    # The explorer reads B's texts back (the detail pane): B opened here too, from the cache the child wrote.
    lb = open_side(right.path, args, early) if got is None or wants_explorer(args) else (None, None)
    db = got[1] if got is not None else digest(*lb, label=right.path)
    return compare(da, db), la, lb, left, right


# Two big logs are read at once: B in a forked child (its digest comes back through a pipe, as the
# split read's helper does: forked.py) while A is read here, each on its own core. Below this size
# (on disk) the fork costs more than it saves.
FORK_AT = 4 << 20
CHILD_PATIENCE = 3600.0


def _fork_side(path: str, args):
    from .model.reading.forked import ForkedCall, can_fork
    try:
        big = os.path.getsize(path) >= FORK_AT
    except OSError:
        return None  # the read in-process says what is wrong
    if not (big and can_fork()):
        return None
    return ForkedCall(_side_digest, path, args)


def _side_digest(path: str, args) -> tuple:
    """In the child: ("ok", the digest) or ("refused", the one-line reason)."""
    from .model.diffing.digest import digest
    try:
        log, diag = open_side(path, args)
    except Refused as exc:
        return "refused", str(exc)
    return "ok", digest(log, diag, label=path)


def wants_explorer(args) -> bool:
    """No --format and a terminal on both ends: the explorer, else the printed report."""
    return args.format is None and sys.stdout.isatty() and sys.stdin.isatty()


def main_diff(argv: list[str], common, early=None) -> int:
    """`dsh-tui diff`; ``common`` and ``early`` are cli.py's (check's flags, its tail helper)."""
    parser = diff_parser(common)
    args = parser.parse_args(argv)
    if args.runs == (args.b is not None):
        parser.error("give A and B, or one FILE with --runs")
    from .sessions.locate import LocateError
    enabled = gc.isenabled()
    gc.disable()  # millions of acyclic objects, as in check
    try:
        result, la, lb, left, _right = build(args, early)
    except LocateError as exc:
        return _fail(str(exc), EXIT_USAGE if exc.exit_code == EXIT_USAGE else EXIT_UNREADABLE)
    except Refused as exc:
        return _fail(str(exc))
    except argparse.ArgumentTypeError as exc:
        return _fail(str(exc), EXIT_USAGE)
    finally:
        if enabled:
            gc.enable()
    code = EXIT_OK if result.first is None else EXIT_FINDINGS
    if wants_explorer(args):
        from .ui.diffapp import run_diff_app
        run_diff_app(result, la, lb, start_seq=left.seq)
        return code
    from .model.diffing.report import diff_text, json_text
    from .safety import clean
    if args.format == "json":
        sys.stdout.write(json_text(result))
    else:
        sys.stdout.write(clean(diff_text(result, markdown=args.format == "markdown")))
    return code
