"""Command line: `dsh-tui [FILE]` opens the explorer, `dsh-tui check FILE` reports.

Textual is imported only when the explorer starts, so `check`, `--help` and
`--version` stay fast and work without a terminal.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from . import __version__
from .cliargs import common as _common

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNREADABLE, EXIT_INTERNAL = 0, 1, 2, 3, 4
def check_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dsh-tui check", description=(
        "Decode a dsh session log and run the ten-minute pass. Exit 0: no failure found; 1: findings; "
        "2: usage error; 3: the log is rejected or unreadable."))
    p.add_argument("file", help="session.jsonl.zstd or session.jsonl, a session directory, an export ZIP, "
                                "or a permalink SESSION-ID@SEQ found under $DSH_HOME/sessions")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument("--no-lineage", action="store_true",
                   help="do not look for the parent and delegated children in the same session root")
    p.add_argument("--raw-snippet", action="store_true",
                   help="JSON: the snippet with its secrets as the log holds them (masked by default)")
    _common(p)
    return p


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dsh-tui", description=(
        "Full-screen explorer for DeepSeek Harness session logs. With no FILE, opens the session browser on "
        "$DSH_HOME/sessions (default ~/.dsh/sessions), or a bundled demo log when that holds no sessions; "
        "a directory opens the browser on it. "
        "Subcommands: `dsh-tui check FILE` for scripts and CI, `dsh-tui ls [DIR]` to list sessions, "
        "`dsh-tui diff A B` to compare two runs "
        "(see `dsh-tui check --help`, `dsh-tui ls --help`)."))
    p.add_argument("file", nargs="?", help=("session.jsonl.zstd, session.jsonl, an export ZIP, a directory "
                                            "to browse, or a permalink SESSION-ID@SEQ found under $DSH_HOME/sessions "
                                            "(default: the dsh session root, else the demo log)"))
    p.add_argument("--demo", action="store_true", help="open the bundled demo log (a crashed session)")
    p.add_argument("--at", default=None, metavar="SEQ|ID@SEQ",
                   help="open with the cursor on event SEQ; ID@SEQ (a permalink) also finds the session under $DSH_HOME")
    p.add_argument("--version", action="version", version=f"dsh-tui {__version__}")
    _common(p)
    return p


def _fail(message: str, code: int = EXIT_UNREADABLE) -> int:
    from .safety import one_line
    print(f"dsh-tui: {one_line(message, 2000)}", file=sys.stderr)
    return code


def run_check(argv: list[str]) -> int:
    # Millions of acyclic objects: collection passes only re-scan them (measured ~0.2-0.4 s of
    # ~2 s on the 936k log). Restored after, for callers that run check in-process (tests).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _check(argv)
    finally:
        if enabled:
            gc.enable()


def _check(argv: list[str]) -> int:
    args = check_parser().parse_args(argv)
    from .sessions.locate import LocateError, check_target, missing_seq
    given = args.file
    try:
        args.file, note, at_seq = check_target(given)
    except LocateError as exc:
        return _fail(str(exc), EXIT_USAGE if exc.exit_code == EXIT_USAGE else EXIT_UNREADABLE)
    if note:
        print(f"dsh-tui: {note}", file=sys.stderr)
    from .memtune import before_big_decode
    before_big_decode(args.file)
    early = _early_check_helper(args)
    from .model.opening.target import OpenOptions, open_target
    from .model.presenting.report import check_text
    from .model.presenting.checkjson import write_check_json
    from .model.reading.source import LogUnreadable
    try:
        log, diag = open_target(args.file, OpenOptions(lenient=args.lenient, max_plain=args.max_plain_size,
                                                       use_cache=not args.no_cache, write_cache=False,
                                                       early_tail=early, keep_facts=False))
    except LogUnreadable as exc:
        return _fail(exc.message)
    except MemoryError:
        return _fail(f"{args.file}: out of memory while decoding; lower --max-plain-size")
    if not log.accepted and not args.lenient:
        msg = f"{args.file}: rejected: {log.rejection.message} (read it anyway with --lenient)"
        if args.format == "json":
            write_check_json(sys.stdout.write, log, diag, refused=True)  # streamed, as an accepted log's
        return _fail(msg)
    if at_seq is not None and (missing := missing_seq(log, at_seq)) is not None:  # ID@999: not silently the verdict
        return _fail(f"{given}: {missing}", EXIT_USAGE)
    lineage = None
    linked: list = []
    if not args.no_lineage:
        from .model.sessions.lineage import find_lineage, link_findings
        lineage = find_lineage(log.path, log.session_id, max_plain=args.max_plain_size)
        linked = [(f, f.message, f.child_session) for f in diag.findings if f.kind == "NOT_IN_TOOL_SET"]
        link_findings(diag.findings, lineage)
    from .model.context.export import add_loop_findings, insight
    add_loop_findings(diag, insight(log).loops)  # info only: the verdict and the exit code stay
    if args.format == "json":
        write_check_json(sys.stdout.write, log, diag, lineage, raw_snippet=args.raw_snippet)
    else:
        from .safety import clean
        text = check_text(log, diag, markdown=args.format == "markdown", lineage=lineage)
        if not log.verified:
            text = "UNVERIFIED (read with --lenient past a rejection)\n" + text
        sys.stdout.write(clean(text))
    if not args.no_cache and log.followable:  # a file (a ZIP's member has no entry of its own)
        _cache_after_check(log, diag, linked)
    child_failed = lineage is not None and bool(lineage.failures())
    if _exits_after:  # the process ends once this returns: freeing the index object by object is waste
        _held.append((log, diag, lineage))
    return EXIT_FINDINGS if diag.failed or child_failed else EXIT_OK


def _cache_after_check(log, diag, linked: list) -> None:
    """Write the index cache as the explorer does, once the answer is out (a repeated `check` then
    reads it): the diagnosis as decoded, without what the lineage added to it (``linked``: each
    linked finding with its message and child before) nor the loop findings among its findings: they
    go apart, with the files touched, as the entry's derived values (context/export.py's `derived`)."""
    from .model.context.export import derived, insight
    from .model.opening import cache
    from .model.opening.open import save_to_cache
    sys.stdout.flush()
    read = derived(insight(log))  # the loops and files: a re-check reads them back, not every call again
    for f, message, child in linked:
        f.message, f.child_session = message, child
    from .model.context.loops import LOOP_KINDS  # check's own additions, as the lineage's: not the log's index
    diag.findings[:] = [f for f in diag.findings if f.kind not in LOOP_KINDS]
    save_to_cache(log, diag, read)
    note = cache.notice()  # why the cache was skipped (an untrusted directory, ...), once
    if note:
        print(f"dsh-tui: {note}", file=sys.stderr)


def _early_check_helper(args):
    """The helper that indexes a big log's tail, forked before the rest of `check` is imported and
    before the file is read here (~30 ms sooner), unless the index cache will answer."""
    from .model.opening import cache
    try:
        if not args.no_cache and cache.enabled() and cache.has_entry(Path(args.file)):
            return None  # a cached index is likely: no child to fork and kill
    except (OSError, ImportError):
        return None  # the decode reports what is wrong with the file
    from .model.reading import split  # (not before: a cached answer needs no helper's modules)
    return split.TailHelper.early(args.file, args.max_plain_size, split.STEAL_HEAD_SHARE, nice=0, steal=True)


def ui_target(file: str | None, demo: bool, at: str | None = None) -> tuple[str, Path, str | None, int | None]:
    """What the UI opens: ("browse", root, notice, None) or ("explore", log, notice, seq). Textual-free.

    No FILE: the session browser on $DSH_HOME/sessions (~/.dsh/sessions) when it holds
    sessions, else the bundled demo log with a notice saying so. A directory (a root, a
    project or a session directory): the browser on it. A permalink (`ID@SEQ`, as FILE or
    as --at's value) opens that session at that event. --demo: always the demo.
    Raises LocateError (a one-line message) for a permalink naming no session, ValueError for a bad --at.
    """
    from .demo import default_demo_path
    from .sessions.locate import (LocateError, parse_at, parse_permalink, path_kind, resolve_permalink, root_error,
                                  sessions_root)
    at_id, at_seq = parse_at(at) if at is not None else (None, None)
    if demo:
        return "explore", default_demo_path(), None, at_seq
    if file is None and at_id is not None:
        file = f"{at_id}@{at_seq}"
    if file is None:
        from .sessions.browse import display_root, root_has_sessions
        root, note = sessions_root()
        if (problem := root_error(root)) is not None:  # there but unreadable: exit 3, not the demo
            raise LocateError(f"cannot open the sessions root: {problem}")
        if root_has_sessions(root):
            return "browse", root, note, None
        return "explore", default_demo_path(), (f"no dsh sessions under {display_root(root)}: showing the bundled "
                                                "demo log (`dsh-tui DIR` browses another root)"
                                                + (f"; {note}" if note else "")), at_seq
    path = Path(file)
    kind = path_kind(path)
    link = parse_permalink(file) if kind == "missing" else None
    if link is not None:  # a file of that name wins: a permalink only names what is not on disk
        root, note = sessions_root()
        return "explore", resolve_permalink(link, root), note, at_seq if at is not None else link.seq
    if kind == "dir":
        from .fleet.overview import is_scan_folder
        return ("fleet" if is_scan_folder(path) else "browse"), path, None, at_seq
    return "explore", path, None, at_seq


def start_background(path, max_plain: int | None = None) -> dict:
    """Work forked before Textual is imported (~0.25 s), so it overlaps on a second core: a
    crash's verdict from the tail (model/reading/tail.py), and, niced below it, the helper that indexes
    the tail of a big log for the decode (model/reading/split/). The explorer's keyword arguments;
    the benchmark starts the explorer the same way. (Forking the whole decode here as well was
    measured: no faster, the two cores were already busy, and the tail verdict came later.)"""
    from .sessions.targets import is_zip_target
    if is_zip_target(path):
        return {}
    from .memtune import before_big_decode
    from .model.reading.split import TailHelper
    from .model.reading.tail import start_tail_probe
    probe = start_tail_probe(path, max_plain)  # first: the verdict waits on nothing else
    before_big_decode(path)
    return {"tail_probe": probe, "early_tail": TailHelper.early(path, max_plain)}


def run_ui(argv: list[str]) -> int:
    args = main_parser().parse_args(argv)
    if args.file and args.demo:
        main_parser().error("give a FILE or --demo, not both")
    from .sessions.locate import LocateError
    try:
        kind, path, notice, at_seq = ui_target(args.file, args.demo, args.at)
    except ValueError as exc:
        main_parser().error(str(exc))
    except LocateError as exc:
        return _fail(str(exc))
    args.at = at_seq
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        print("dsh-tui: the explorer needs a terminal; use `dsh-tui check FILE` in scripts", file=sys.stderr)
        return EXIT_USAGE
    from .splash import quiet_input
    with quiet_input(sys.stdin.fileno()):  # keys typed while Textual loads: queued, not echoed
        return _run_ui(args, kind, path, notice)


def _run_ui(args, kind: str, path: Path, notice: str | None) -> int:
    if kind == "fleet":
        from .ui.run import run_fleet
        return run_fleet(path)
    if kind == "browse":
        from .ui.run import run_browser
        return run_browser(path, lenient=args.lenient, max_plain=args.max_plain_size, notice=notice)
    if notice is None:
        background = start_background(path, args.max_plain_size)
        from .splash import import_ui_with_splash, leave
        drawn = import_ui_with_splash(path, background.get("tail_probe"))
        from .ui.run import run_app
        try:
            return run_app(path, lenient=args.lenient, max_plain=args.max_plain_size, at_seq=args.at, **background)
        except BaseException:
            if drawn:  # the explorer failed: leave the screen the splash is on
                leave(sys.stdout)
            raise
    from .ui.run import run_explorer
    return run_explorer(path, notice=notice, lenient=args.lenient, max_plain=args.max_plain_size, at_seq=args.at)


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code. Never a traceback: input too deep or too big for this reader
    is exit 3 (rejected), any other escaping exception exit 4 (an internal error), one line each."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "check":
            return run_check(argv[1:])
        if argv and argv[0] == "ls":
            from .sessions.ls import main_ls
            return main_ls(argv[1:])
        if argv and argv[0] in ("scan", "query", "grep"):
            from .fleet.cli import main as fleet_main
            return fleet_main(argv[0], argv[1:])
        if argv and argv[0] == "diff":
            from .diffcmd import main_diff
            return main_diff(argv[1:], _common, _early_check_helper)  # (passed: diffcmd must not import cli)
        return run_ui(argv)
    except SystemExit as exc:  # argparse: 2 on usage errors, 0 for --help/--version
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of our output went away (`| head`): nothing to say to it
        _quiet_stdout()
        return 128 + 13  # as if killed by SIGPIPE, the shell's convention
    except RecursionError:
        return _fail("the input nests too deeply to read (rejected; a dsh log never nests this deep)")
    except MemoryError:
        return _fail("out of memory while reading the input; lower --max-plain-size")
    except Exception as exc:
        from .safety import one_line
        print(f"dsh-tui: internal error: {one_line(f'{type(exc).__name__}: {exc}', 300)}; this is a bug in "
              f"dsh-tui {__version__}, please report it with the command line", file=sys.stderr)
        return EXIT_INTERNAL


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


# Set by `entry` alone: a caller in-process (a test) gets its objects freed as usual.
_exits_after = False
_held: list = []


def entry() -> None:
    """Console-script entry: skip interpreter teardown (hundreds of ms on a large log), and the
    freeing of what `check` read (~12 ms on the 936k log)."""
    global _exits_after
    _exits_after = True
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
