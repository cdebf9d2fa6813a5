"""The events a view shows, out of the explorer: as JSONL to a file (lnav's ``:write-json-to``) or on the
stdin of a shell command the user typed (less's ``|``).

Textual-free. Each line is a record exactly as the log holds it (not masked, as ``R`` and ``s``): the
raw records of the view's events in log order, a packed record (several chunk deltas) once. A file is
created new, never overwritten (``O_EXCL``; ``O_NOFOLLOW`` refuses a symlink in its place), 0600, and
never the log being read. A command runs with the view on its stdin, its output kept to `OUTPUT_CAP`
bytes, and killed (its whole process group) after `PIPE_TIMEOUT` seconds or on cancel.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator

from msgspec import Struct

from ..reading.source import Cancelled

OUTPUT_CAP = 256 * 1024  # bytes of a command's output kept for the window
PIPE_TIMEOUT = 30.0  # s a command may run
BATCH = 4096  # records between two cancel checks


class ViewOutError(Exception):
    """Why the view could not be written: one line for a notice."""


def view_records(log, indices: Iterable[int], cancel=None) -> Iterator[bytes]:
    """The raw record (one line, ending in a newline) of each event in ``indices`` (ascending), each
    record once."""
    res = log.res
    last = -1
    for n, i in enumerate(indices):
        if cancel is not None and not n % BATCH and cancel.is_set():
            raise Cancelled()
        r = res.record_of(i)
        if r == last:
            continue
        last = r
        yield bytes(log.record_bytes(r)).rstrip(b"\r\n") + b"\n"


def view_indices(total: int, indices) -> Iterable[int]:
    """A row source's events: ``indices`` (a filter), or every event when None."""
    return range(total) if indices is None else indices


def default_name(log, label: str) -> str:
    sid = re.sub(r"[^A-Za-z0-9._-]+", "_", str(log.session_id or "session"))[:80].strip("._") or "session"
    what = re.sub(r"[^A-Za-z0-9._-]+", "-", label)[:40].strip("-.") or "view"
    return f"{sid}-{what}-{datetime.now().strftime('%Y%m%d-%H%M%S')}.jsonl"


def target_path(typed: str, directory: Path, name: str) -> Path:
    """The file to write: ``typed`` (``~`` expanded; a directory gets ``name``), or ``name`` in ``directory``."""
    typed = typed.strip()
    if not typed:
        return directory / name
    path = Path(os.path.expanduser(typed))
    if path.is_dir():
        return path / name
    return path


def is_same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b) or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


class Written(Struct):
    path: Path
    records: int
    size: int


def write_jsonl(path: Path, records: Iterable[bytes], *, log_path: Path | None = None, cancel=None) -> Written:
    """Create ``path`` (new, 0600) holding ``records``; raises `ViewOutError` (it exists, it is the log, ...).

    A cancelled or failed write removes the partial file it created.
    """
    if log_path is not None and is_same_file(path, log_path):
        raise ViewOutError(f"{path} is the log being read: it is never written")
    if path.parent == path or not path.name:
        raise ViewOutError(f"not a file name: {path}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise ViewOutError(f"{path} exists: it is never overwritten (pick another name)") from None
    except OSError as exc:
        raise ViewOutError(f"cannot create {path}: {exc.strerror or exc}") from None
    n = size = 0
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as out:
            for line in records:
                out.write(line)
                n += 1
                size += len(line)
            if cancel is not None and cancel.is_set():
                raise Cancelled()
    except BaseException as exc:
        try:
            os.unlink(path)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise ViewOutError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    return Written(path, n, size)


class PipeResult(Struct):
    command: str
    output: bytes  # stdout and stderr, at most OUTPUT_CAP bytes
    returncode: int | None  # None: killed (timeout, cancel or too much output)
    truncated: bool  # more output than OUTPUT_CAP: the rest was not read
    timed_out: bool
    records: int  # records handed to its stdin (fewer when it stopped reading)


def pipe_records(command: str, records: Iterable[bytes], *, timeout: float = PIPE_TIMEOUT,
                 cap: int = OUTPUT_CAP, cancel=None) -> PipeResult:
    """Run ``command`` (``/bin/sh -c``) with ``records`` on its stdin; its output, bounded in size and time."""
    try:
        proc = subprocess.Popen(["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
    except OSError as exc:
        raise ViewOutError(f"cannot run the command: {exc.strerror or exc}") from None
    fed = [0]
    stop = threading.Event()

    def feed() -> None:
        try:
            for line in records:
                if stop.is_set():
                    break
                proc.stdin.write(line)
                fed[0] += 1
        except (BrokenPipeError, OSError, ValueError, Cancelled):
            pass  # the command stopped reading (head) or was killed
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    writer = threading.Thread(target=feed, name="pipe-stdin", daemon=True)
    writer.start()
    out = bytearray()
    truncated = timed_out = False
    deadline = time.monotonic() + timeout
    os.set_blocking(proc.stdout.fileno(), False)
    try:
        while True:
            if cancel is not None and cancel.is_set():
                _kill(proc)
                raise Cancelled()
            if time.monotonic() > deadline:
                timed_out = True
                _kill(proc)
                break
            try:
                chunk = proc.stdout.read(65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                out += chunk[: cap - len(out)]
                if len(out) >= cap:
                    truncated = True
                    _kill(proc)
                    break
                continue
            if chunk == b"":  # EOF: the command closed its output
                break
            time.sleep(0.01)
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.wait()
    finally:
        stop.set()
        writer.join(timeout=2)
        proc.stdout.close()
    code = None if (timed_out or truncated) else proc.returncode
    return PipeResult(command, bytes(out), code, truncated, timed_out, fed[0])


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except OSError:
            pass
