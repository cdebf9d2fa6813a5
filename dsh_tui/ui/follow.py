"""Live follow for the explorer (a mixin of ``ExplorerApp``).

A timer (``follow_interval``, 1 s) starts a thread worker that polls the
file (`live.follow_step`: `SessionLog.refresh`, re-open on -1 or for a cached
index, re-diagnose). New events grow the lists in place: the cursor stays on
its event, or at the end when it was on the last one. A file replaced under us
(`FollowStep.replaced`) is shown re-opened with one notice saying what changed;
the cursor keeps its seq when the new file has it, else goes to the end. ``w``
pauses/resumes; the header shows "following" / "paused". Export-ZIP members
cannot be followed.
"""

from __future__ import annotations

from textual import work
from textual.content import Content
from textual.message import Message
from textual.worker import get_current_worker

from ..model.presenting.summary import seed_boundary
from ..sessions.follow import FollowStep, follow_step
from ..model.reading.source import Cancelled
from ..safety import one_line
from .views import RowSource, build_filter

FOLLOWING = ("following", "bold $success")
PAUSED = ("paused", "bold $warning")
NOT_FOLLOWED = ("not followed", "$text-muted")


class FollowFailed(Message):
    def __init__(self, source, error: BaseException) -> None:
        super().__init__()
        self.source, self.error = source, error


class FollowMixin:
    follow_interval = 1.0

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.following = True
        self._follow_timer = None
        self._follow_error: str | None = None  # the last poll's error, notified once

    # -- state -------------------------------------------------------------------------------
    def follow_state(self) -> tuple[str, str] | None:
        log = self.log_
        if log is None:
            return None
        if not getattr(log, "followable", False):
            return NOT_FOLLOWED
        return FOLLOWING if self.following else PAUSED

    def start_follow(self) -> None:
        if self._follow_timer is None:
            self._follow_timer = self.set_interval(self.follow_interval, self.follow_tick, name="follow")

    def stop_follow(self) -> None:
        self.workers.cancel_group(self, "follow")

    def action_toggle_follow(self) -> None:
        log = self.log_
        if log is None:
            return
        if not getattr(log, "followable", False):
            self.notify("this log cannot be followed (read from an export ZIP)", markup=False)
            return
        self.following = not self.following
        self.update_extras()
        self.notify("following the file" if self.following else "paused: the file is not re-read", markup=False)
        if self.following:
            self.follow_tick()

    # -- polling -------------------------------------------------------------------------------
    def follow_tick(self) -> None:
        log = self.log_
        if not self.following or log is None or not getattr(log, "followable", False) or not self.load_finished:
            return
        if self.browser_active():  # the explorer is hidden under the session browser
            return
        # one poll at a time, and never while the index cache is being written from this same log
        if any(w.group in ("follow", "cache") and not w.is_finished for w in self.workers):
            return
        self.follow_worker(log)

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def follow_worker(self, log) -> FollowStep | None:
        worker = get_current_worker()
        try:
            return follow_step(log, lenient=self.lenient, max_plain=self.max_plain, cancel=worker.cancelled_event)
        except Cancelled:
            return None
        except Exception as exc:  # the file vanished, became unreadable, or too large
            self.post_message(FollowFailed(log, exc))
            return None

    def on_follow_failed(self, message: FollowFailed) -> None:
        """Keep polling (a file being rewritten fails once, then reads again); say so once per error."""
        if message.source is not self.log_:
            return
        err = message.error
        text = getattr(err, "message", None) or f"{type(err).__name__}: {err}"
        if text != self._follow_error:
            self._follow_error = text
            self.notify(one_line(f"cannot re-read the log (still trying; w pauses): {text}", 300),
                        severity="warning", markup=False, timeout=10)

    def apply_follow(self, step: FollowStep | None) -> None:
        """Show what the poll found, keeping the user's place."""
        if step is None or step.source is not self.log_ or self.log_ is None or not self.screen_stack:
            return
        self._follow_error = None
        events = self.events
        old_log, log, diag = self.log_, step.log, step.diag
        old_total = events.source.total
        cur = events.index
        at_end = cur is not None and cur >= old_total - 1
        seq = old_log.seq_of(cur) if cur is not None else None
        self.log_, self.diag = log, diag
        self.finding_indices = sorted({f.index for f in diag.findings if f.index is not None})
        if step.replaced is not None:
            self.notify_replaced(step, old_log)
            self.lineage = None  # the old file's family; found again for this one below
        if self.lineage is not None:
            from ..model.diagnosing.lineage import link_findings
            link_findings(diag.findings, self.lineage)
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
        pair = self.pairs_pane.pair
        with self.batch_update():
            self.query_one("#header").show_log(log, diag, self.path)
            events.set_log(log, diag, source, target)
            events.set_seed_end(seed_boundary(log))
            self.set_events_title()
            self.pairs_pane.set_pairs(diag.pairs)
            if pair is not None:
                row = next((k for k, p in enumerate(diag.pairs) if p.key == pair.key and p.kind == pair.kind), None)
                if row is not None:
                    self.pairs_pane.move_to(row)
            self.pairs_pane.border_title = Content(f"pairs ({len(diag.pairs):,}, newest first)")
            self.update_extras()
        self.detail_shown = None  # the same event may have new findings or a result now
        if events.index is not None:
            self._detail_index = events.index
            self.flush_detail()
        if step.replaced is not None:
            self.lineage_worker(log)

    def notify_replaced(self, step: FollowStep, old_log) -> None:
        """One notice per replacement: what changed, and the session it holds now when that differs."""
        text = f"the file was replaced: reopened ({step.replaced})"
        if step.log.session_id != old_log.session_id:
            text += f"; now session {step.log.session_id or '(no id)'}"
        self.notify(one_line(text, 300), severity="warning", markup=False, timeout=10)

    def on_worker_state_changed(self, event) -> None:
        from textual.worker import WorkerState
        if event.worker.group == "follow" and event.state == WorkerState.SUCCESS:
            self.apply_follow(event.worker.result)
