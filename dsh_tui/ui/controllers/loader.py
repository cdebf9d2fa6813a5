"""LoadController: reading the log in a thread worker (group "load"), the provisional verdict from its last
frames meanwhile, the error screen when it cannot be read, and the index cache written after the first
paint (group "cache"). Quitting sets the explorer's ``cancel_event``, which the reader checks, so the process
exits promptly even mid-decode.
"""

from __future__ import annotations

import threading
import time
from functools import partial

from textual.worker import WorkerState

from ...model.reading.gcpause import gc_paused
from ...model.opening.open import save_to_cache
from ...model.reading.source import Cancelled, LogUnreadable
from ...model.reading.tail import tail_verdict
from ...model.opening.target import OpenOptions, keep_for_exploring, open_target
from ..messages import LoadProgress, TailVerdictFound
from ..screens.error import ErrorScreen
from .base import Controller
from .ports import LoaderPort


class LoadController(Controller):
    port: LoaderPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("load", "cache")

    def __init__(self, port, tail_probe=None, early_tail=None) -> None:
        super().__init__(port)
        self.tail_probe = tail_probe  # a ForkedCall of tail_verdict started by the CLI, or None
        self.early_tail = early_tail  # a TailHelper.early started by the CLI (handed to the decode), or None
        self._shown_early: threading.Event | None = None  # set once a verdict painted at mount is on screen

    def reset(self) -> None:
        self.port.cancel_workers("load")  # a cache being written for the old log is finished

    # -- start --------------------------------------------------------------------------------------
    def start_first(self) -> None:
        """The first load: a provisional verdict the CLI's tail probe found already goes in the first paint."""
        port = self.port
        probe = self.tail_probe
        if probe is not None and probe.ready():  # usually done by now: in the very first paint
            self.tail_probe = None
            tv = probe.collect(port.cancel_event, patience=0.5)
            if tv is not None:
                port.header.show_provisional(port.path, tv)
                self._shown_early = threading.Event()  # the decode waits for this paint (probe_tail)
                port.call_after_refresh(self._shown_early.set)
        self.start()

    def start(self) -> None:
        self.run(self._load_paused, "load", exclusive=True, description="load")

    def reopen_lenient(self) -> None:
        """L on the refused log's error screen: read it again as ``--lenient`` does (from then on, as
        that option, every refused log opens marked UNVERIFIED instead of on the error screen)."""
        port = self.port
        port.lenient = True
        port.load_finished = False
        port.header.show_loading(port.path, "reading again, --lenient: shown UNVERIFIED…")
        port.load_bar.display = True
        self.start()

    def _load_paused(self):  # in the worker's thread
        # The model pauses the cyclic GC while it indexes and diagnoses; one pause around the whole
        # load, frozen at its end, keeps the collector from walking all it built right after
        # (QuietGC.start freezes too, but only once the log is shown).
        with gc_paused(freeze=True):
            return self._load()

    def _load(self):
        port = self.port
        cancel = port.cancel_event
        last = [0.0]

        def progress(stage: str, done: int, total: int) -> None:  # at most 10 a second, plus the last
            now = time.monotonic()
            if now - last[0] >= 0.1 or (total and done >= total):
                last[0] = now
                port.post_message(LoadProgress(stage, done, total))

        early, self.early_tail = self.early_tail, None  # the decode owns (and closes) it from here
        # One way in (model/reading/target.py): a file from the index cache when fresh (written by
        # `save_cache` after the first paint), else decoded; an export ZIP or one of its members in memory.
        log, diag = open_target(port.path, OpenOptions(lenient=port.lenient, max_plain=port.max_plain, cancel=cancel,
                                                       progress=progress, write_cache=False,
                                                       before_decode=self.probe_tail, early_tail=early))
        if cancel.is_set():
            raise Cancelled()
        keep_for_exploring(log, diag)  # no dict of the call ids, a byte a row for shared context values
        return log, diag

    def probe_tail(self) -> None:
        """A crash's verdict from the last frames, painted before the full decode ends.

        Runs in the load worker just before the decode, which then waits until the
        verdict is on screen: a decoding thread holds the GIL so much that the paint
        came ~0.7 s late on the 936k log."""
        port = self.port
        shown, self._shown_early = self._shown_early, None
        if shown is not None:  # painted at mount: let that paint finish first
            shown.wait(0.5)
            return
        probe, self.tail_probe = self.tail_probe, None
        tv = (probe.collect(port.cancel_event, patience=1.0) if probe is not None
              else tail_verdict(port.path, limit=port.max_plain))
        if tv is not None and not port.load_finished:
            painted = threading.Event()
            port.post_message(TailVerdictFound(tv, painted))
            painted.wait(0.5)  # bounded: a busy screen must not stall the decode

    def verdict_found(self, message: TailVerdictFound) -> None:
        port = self.port
        if not port.load_finished:
            port.header.show_provisional(port.path, message.verdict)
        port.call_after_refresh(message.painted.set)

    def progress(self, message: LoadProgress) -> None:
        self.port.load_bar.set_progress(message.stage, message.done, message.total)

    # -- done -----------------------------------------------------------------------------------------
    def worker_changed(self, event) -> None:
        port, worker = self.port, event.worker
        if worker.group != "load":
            return
        if event.state == WorkerState.SUCCESS:
            if self.tail_probe is not None:  # opened from the index cache: the early look was not needed
                self.tail_probe.close()
            port.show_log(*worker.result)
            port.after_log_shown()
        elif event.state == WorkerState.ERROR and not port.cancel_event.is_set():
            self.show_error(worker.error)

    def show_error(self, error: BaseException | None) -> None:
        port = self.port
        if isinstance(error, Cancelled):
            return
        port.load_finished = True
        if isinstance(error, LogUnreadable):
            reason, title = error.message, "cannot open this log"
        elif isinstance(error, MemoryError):
            reason, title = f"{port.path}: out of memory while decoding; lower --max-plain-size", "cannot open this log"
        else:
            reason, title = f"{port.path}: {type(error).__name__}: {error}", "internal error while reading"
        port.load_bar.display = False
        port.push_screen(ErrorScreen(title, reason, can_go_back=port.can_go_back))

    def save_cache(self, log, diag) -> None:
        """Write the index cache (best effort, group "cache"), so the next open of this file is near-instant."""
        self.run(partial(self._save, log, diag), "cache", description="save the index cache")  # no repr(diag)

    def _save(self, log, diag) -> None:  # in the worker's thread
        if not self.port.cancel_event.is_set():
            save_to_cache(log, diag)

    def close(self) -> None:
        """The app is closing: the CLI's helpers not handed to a decode are stopped."""
        if self.tail_probe is not None:  # not needed (fresh index cache) or the app quit early
            self.tail_probe.close()
        if self.early_tail is not None:  # the app quit before its decode began
            self.early_tail.close()
