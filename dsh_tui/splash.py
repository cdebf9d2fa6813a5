"""A plain first frame while Textual is imported (~0.3 s): the crash's provisional verdict.

The tail probe (model/reading/tail.py) usually answers before Textual has loaded. Rather
than hold that answer until the explorer's first paint, the CLI imports the
explorer in a thread and, if the probe answers first, draws it on the
terminal's alternate screen, which the explorer then enters and repaints. Text
from the log passes through `safety.one_line`, as everywhere else.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .safety import one_line

ENTER = "\x1b[?1049h\x1b[H\x1b[2J"  # alternate screen, cleared, cursor home
LEAVE = "\x1b[?1049l"
UI_MODULE = "dsh_tui.ui.app"


def splash_lines(path: Path, tv, width: int) -> list[str]:
    """The frame's lines, each at most ``width - 1`` cells (no line wraps on a small terminal)."""
    who = " ".join(one_line(str(x), 60) for x in (tv.call_id, tv.name) if x)
    where = f"seq {tv.seq}" + (f" · turn {one_line(str(tv.turn), 20)}/{one_line(str(tv.step), 20)}"
                               if tv.turn is not None else "")
    lines = [f"dsh-tui  {one_line(path.name, 100)}",
             f" VERDICT {one_line(tv.kind, 40)}  {who}  {where}",
             f"provisional: read from the last {tv.tail_bytes // 1024:,} KiB; loading the explorer…"]
    cut = max(1, width - 1)
    return [line if len(line) <= cut else line[:cut - 1] + "…" for line in lines]


def wanted(stream) -> bool:
    term = os.environ.get("TERM", "")
    return stream.isatty() and term not in ("", "dumb", "unknown")


def import_ui_with_splash(path: Path, probe, stream=None, module: str = UI_MODULE) -> bool:
    """Import ``module`` (the explorer); meanwhile, draw the probe's verdict if it comes first. Returns True
    if a frame was drawn: the caller then leaves the alternate screen should the explorer fail
    before taking it over. The probe keeps its answer for the explorer (`ForkedCall.collect`)."""
    stream = sys.stdout if stream is None else stream
    failed: list[BaseException] = []

    def load() -> None:
        try:
            importlib.import_module(module)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread below
            failed.append(exc)

    loader = threading.Thread(target=load, name="import-ui", daemon=True)
    loader.start()
    drawn = False
    try:
        if probe is not None and wanted(stream):
            while loader.is_alive():
                if probe.ready():
                    tv = probe.collect(patience=0.5)
                    if tv is not None and loader.is_alive():
                        width = shutil.get_terminal_size().columns
                        stream.write(ENTER + "\r\n".join(splash_lines(path, tv, width)) + "\r\n")
                        stream.flush()
                        drawn = True
                    break
                loader.join(0.01)
        loader.join()
        if failed:
            raise failed[0]
    except BaseException:  # an import error or Ctrl-C: leave no stray screen behind
        if drawn:
            leave(stream)
        raise
    return drawn


@contextmanager
def quiet_input(fd: int) -> Iterator[None]:
    """Keys typed before the explorer takes the terminal are not echoed over the first frame (or
    left on the shell's screen); they stay queued, and the explorer reads them. Ctrl-C still
    interrupts. The settings found are put back when the block ends, whatever Textual restores
    on its way out (it saves the settings it finds on entry: these)."""
    try:
        import termios
    except ImportError:  # not a POSIX terminal API
        yield
        return
    try:
        saved = termios.tcgetattr(fd)
        quiet = list(saved)
        quiet[3] &= ~(termios.ECHO | termios.ICANON)  # lflag: no echo, keys readable one by one
        quiet[6] = list(saved[6])
        quiet[6][termios.VMIN], quiet[6][termios.VTIME] = 1, 0
        termios.tcsetattr(fd, termios.TCSANOW, quiet)  # TCSANOW: nothing typed so far is dropped
    except (termios.error, OSError):  # not a terminal
        yield
        return
    try:
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
        except (termios.error, OSError):
            pass  # the terminal is gone (a dropped SSH session): nothing to restore


def leave(stream) -> None:
    stream.write(LEAVE)
    stream.flush()
