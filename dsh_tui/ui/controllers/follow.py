"""FollowController: live follow. A timer (``interval``, 1 s) starts a thread worker (group "follow") that
polls the file (`sessions.follow.follow_step`: `SessionLog.refresh`, re-open on -1 or for a cached index,
re-diagnose). New events grow the lists in place: the cursor stays on its event, or at the end when it
was on the last one. A file replaced under us (`FollowStep.replaced`) is shown re-opened with one notice
saying what changed; the cursor keeps its seq when the new file has it, else goes to the end. ``w``
pauses/resumes; the header shows "following" / "paused". Export-ZIP members cannot be followed.
"""

from __future__ import annotations

from functools import partial

from textual.content import Content
from textual.message import Message
from textual.worker import WorkerState, get_current_worker

from ...model.presenting.summary import seed_boundary
from ...model.reading.source import Cancelled
from ...safety import one_line
from ...sessions.follow import FollowStep, follow_step
from ..views import RowSource, build_filter
from .base import Controller, SessionChanged
from .ports import FollowPort

FOLLOWING = ("following", "bold $success")
PAUSED = ("paused", "bold $warning")
NOT_FOLLOWED = ("not followed", "$text-muted")
STATIC_DEMO = ("demo (static)", "$text-muted")


class FollowFailed(Message):
    def __init__(self, source, error: BaseException) -> None:
        super().__init__()
        self.source, self.error = source, error


class FollowController(Controller):
    port: FollowPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("follow",)

    def __init__(self, port, interval: float = 1.0) -> None:
        super().__init__(port)
        self.interval = interval
        self.following = True
        self._timer = None
        self._error: str | None = None  # the last poll's error, notified once
        self._demo_path, self._demo = None, False  # the file last asked whether it is the bundled demo

    def reset(self) -> None:
        super().reset()  # the timer runs on: it polls whatever log is shown
        self.following = True

    def restore(self, following: bool) -> None:
        """Back restored a session: followed or paused as it was."""
        self.following = following

    def session_changed(self, change: SessionChanged) -> None:
        if change.how == "shown":
            self.start()

    # -- state -------------------------------------------------------------------------------
    def state(self) -> tuple[str, str] | None:
        """The header's follow badge, or None with no log."""
        log = self.port.log_
        if log is None:
            return None
        if not getattr(log, "followable", False):
            return NOT_FOLLOWED
        if self.is_demo():
            return STATIC_DEMO
        return FOLLOWING if self.following else PAUSED

    def is_demo(self) -> bool:
        """The bundled demo log: written once, never grows, so it is not followed (nor said to be)."""
        from ...demo import is_bundled_demo
        return is_bundled_demo(self.port.path)

    def start(self) -> None:
        if self._timer is None:
            self._timer = self.port.set_interval(self.interval, self.tick, name="follow")

    def toggle(self) -> None:
        port = self.port
        log = port.log_
        if log is None:
            return
        if not getattr(log, "followable", False):
            port.notify("this log cannot be followed (read from an export ZIP)", markup=False)
            return
        if self.is_demo():
            port.notify("the bundled demo log never changes: nothing to follow", markup=False)
            return
        self.following = not self.following
        port.update_extras()
        port.notify("following the file" if self.following else "paused: the file is not re-read", markup=False)
        if self.following:
            self.tick()

    # -- polling -------------------------------------------------------------------------------
    def tick(self) -> None:
        port = self.port
        log = port.log_
        if not self.following or log is None or not getattr(log, "followable", False) or not port.load_finished:
            return
        if self._demo_path != port.path:  # asked once per file (a resolve per tick would cost a syscall or two)
            self._demo_path, self._demo = port.path, self.is_demo()
        if self._demo:
            return
        if port.browser_active():  # the explorer is hidden under the session browser
            return
        # one poll at a time, and never while the index cache is being written from this same log
        if port.busy("follow", "cache"):
            return
        self.run(partial(self._poll, log), "follow", exclusive=True)

    def _poll(self, log) -> FollowStep | None:  # in the worker's thread
        port = self.port
        worker = get_current_worker()
        try:
            return follow_step(log, lenient=port.lenient, max_plain=port.max_plain, cancel=worker.cancelled_event)
        except Cancelled:
            return None
        except Exception as exc:  # the file vanished, became unreadable, or too large
            port.post_message(FollowFailed(log, exc))
            return None

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.SUCCESS:
            self.apply(event.worker.result)

    def failed(self, message: FollowFailed) -> None:
        """Keep polling (a file being rewritten fails once, then reads again); say so once per error."""
        if message.source is not self.port.log_:
            return
        err = message.error
        text = getattr(err, "message", None) or f"{type(err).__name__}: {err}"
        if text != self._error:
            self._error = text
            self.port.notify(one_line(f"cannot re-read the log (still trying; w pauses): {text}", 300),
                             severity="warning", markup=False, timeout=10)

    def apply(self, step: FollowStep | None) -> None:
        """Show what the poll found, keeping the user's place."""
        port = self.port
        if step is None or step.source is not port.log_ or port.log_ is None or not port.is_open:
            return
        self._error = None
        events = port.events
        old_log, log, diag = port.log_, step.log, step.diag
        old_total = events.source.total
        cur = events.index
        at_end = cur is not None and cur >= old_total - 1
        seq = old_log.seq_of(cur) if cur is not None else None
        # Published to the controllers: the family relinks its findings, or looks again for a new file's.
        port.set_session(log, diag, grown=True, replaced=step.replaced is not None)
        if step.replaced is not None:
            self.notify_replaced(step, old_log)
        n = len(log)
        if not n:
            target = None
        elif at_end or cur is None:
            target = n - 1
        elif step.reopened:
            target = log.index_of_seq(seq) if seq is not None else None
            target = n - 1 if target is None else target
        else:
            target = cur
        src = events.source
        if src.filtered:
            try:
                source = RowSource(n, build_filter(log, diag, src.key), src.key, src.label)
            except Exception:  # noqa: BLE001 - a filter that no longer applies: show everything
                source = RowSource(n)
        else:
            source = RowSource(n)
        pairs_pane = port.pairs_pane
        pair = pairs_pane.pair
        with port.batch_update():
            port.header.show_log(log, diag, port.path)
            events.set_log(log, diag, source, target)
            events.set_seed_end(seed_boundary(log))
            port.set_events_title()
            pairs_pane.set_pairs(diag.pairs)
            if pair is not None:
                row = diag.pairs.position(pair)
                if row is not None:
                    pairs_pane.move_to(row)
            pairs_pane.border_title = Content(f"pairs ({len(diag.pairs):,}, newest first)")
            port.update_extras()
        port.redraw_detail()  # the same event may have new findings or a result now

    def notify_replaced(self, step: FollowStep, old_log) -> None:
        """One notice per replacement: what changed, and the session it holds now when that differs."""
        text = f"the file was replaced: reopened ({step.replaced})"
        if step.log.session_id != old_log.session_id:
            text += f"; now session {step.log.session_id or '(no id)'}"
        self.port.notify(one_line(text, 300), severity="warning", markup=False, timeout=10)
