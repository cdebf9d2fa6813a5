"""ViewOutController: ``o`` writes the view (the filtered events) as JSONL to a file, ``|`` pipes it
to a shell command the user types; both in a worker (model/presenting/viewout.py does the work).

The file goes to ``$XDG_STATE_HOME/dsh-tui/exports/`` when the prompt is left empty, else to the path typed
(a directory gets the default name); it is never overwritten and never the log being read. The command's
output shows in a window, bounded; a running write or command is cancelled by a new one or another session.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from textual.worker import WorkerState, get_current_worker

from ...model.presenting.viewout import (ViewOutError, default_name, pipe_records, target_path, view_indices,
                                         view_records, write_jsonl)
from ...model.reading.source import Cancelled
from ...safety import one_line
from ..export import events_dir
from .base import Controller
from .ports import ViewOutPort


def exports_dir() -> Path:
    """``$XDG_STATE_HOME/dsh-tui/exports`` (next to the saved events and the bug reports; ``views`` holds
    the saved marks and chips)."""
    return events_dir().parent / "exports"


class ViewOutController(Controller):
    port: ViewOutPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("viewout",)

    def _view(self):
        """(log, the view's event indices, its label), or None without a log or rows."""
        port = self.port
        src = port.events.source
        if port.log_ is None or not len(src):
            if port.log_ is not None:
                port.notify("no events in this view", severity="warning", markup=False)
            return None
        return port.log_, view_indices(src.total, src.indices), src.label if src.filtered else "all"

    def _count(self) -> str:
        n = len(self.port.events.source)
        return f"{n:,} event{'s' if n != 1 else ''}"

    # -- write ---------------------------------------------------------------------------------
    def ask_write(self) -> None:
        if self._view() is None:
            return
        self.port.ask("write", "write view to: ", self.write,
                      placeholder=f"{self._count()} as JSONL · enter: {exports_dir()} · or a path (never overwritten)")

    def write(self, typed: str | None) -> None:
        view = self._view()
        if typed is None or view is None:
            return
        log, indices, label = view
        directory = exports_dir()
        path = target_path(typed, directory, default_name(log, label))
        if path.parent == directory:
            try:
                directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            except OSError as exc:
                self.port.notify(one_line(f"cannot create {directory}: {exc.strerror or exc}", 300),
                                 severity="error", markup=False)
                return
        self.run(partial(self._write, log, indices, path, Path(self.port.path)), "viewout", exclusive=True)

    def _write(self, log, indices, path: Path, log_path: Path) -> None:  # in the worker's thread
        cancel = get_current_worker().cancelled_event
        try:
            done = write_jsonl(path, view_records(log, indices, cancel), log_path=log_path, cancel=cancel)
        except Cancelled:
            return
        except ViewOutError as exc:
            self.port.call_from_thread(self._notice, str(exc), "error")
            return
        self.port.call_from_thread(self._notice, f"wrote {done.records:,} records ({done.size:,} bytes, not masked) "
                                                f"to {done.path}", "information")

    def _notice(self, text: str, severity: str) -> None:
        self.port.notify(one_line(text, 300), severity=severity, markup=False, timeout=8)

    # -- pipe ----------------------------------------------------------------------------------
    def ask_pipe(self) -> None:
        if self._view() is None:
            return
        self.port.ask("pipe", "| ", self.pipe,
                      placeholder=f"a shell command: {self._count()}' raw records on its stdin (e.g. wc -l)")

    def pipe(self, command: str | None) -> None:
        view = self._view()
        if not command or not command.strip() or view is None:
            return
        log, indices, _ = view
        self.port.notify(one_line(f"| {command}: running…", 120), markup=False, timeout=3)
        self.run(partial(self._pipe, log, indices, command), "viewout", exclusive=True)

    def _pipe(self, log, indices, command: str) -> None:  # in the worker's thread
        cancel = get_current_worker().cancelled_event
        try:
            result = pipe_records(command, view_records(log, indices, cancel), cancel=cancel)
        except Cancelled:
            return
        except ViewOutError as exc:
            self.port.call_from_thread(self._notice, str(exc), "error")
            return
        self.port.call_from_thread(self._show, result)

    def _show(self, result) -> None:
        from ..screens.output import OutputModal
        if self.port.is_open:
            self.port.dismiss_notices()  # the "running…" toast: the window says how it ended
            self.port.push_screen(OutputModal(result))

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)
