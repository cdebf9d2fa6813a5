"""ExplorerScreen: one session shown. It owns what is shown (``log_``, ``diag``, the path and how it was
opened), the panes, the explorer's bindings (ui/actions.py: each key runs its handler here or on a
controller) and the controllers (ui/controllers/), each of which sees this screen only through its
port (controllers/ports.py; the screen's side of those ports, thin forwards, is the mixin in
explorer_ports.py; what its own keys do, the mixin in explorer_keys.py). With the fast render, a
screen that repaints little (compat/screen.py).

Workers run on this screen: ``route_worker`` hands a worker's state change to the controller owning its
group. A new log in place (read, restored by back, grown by live follow) and a log painted are published
to every controller (``SessionChanged``), which each takes as it needs; none calls another.

Every string from the log reaches the screen through ``safety.clean``/``one_line`` (in ``model.summary``
and the widgets).
"""

from __future__ import annotations

import threading
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.timer import Timer
from textual.worker import Worker

from ...model.presenting.detail import detail_sections
from ...model.presenting.headerview import no_failure_note
from ...model.presenting.summary import light_event, seed_boundary
from ...safety import one_line
from ..actions import dispatch
from ..compat import ScreenBase
from ..controllers.anomalies import AnomalyController
from ..controllers.base import SessionChanged
from ..controllers.chips import ChipsController, ChipsReady
from ..controllers.copy import Copied, CopyController
from ..controllers.family import FamilyController, LineageFound
from ..controllers.filters import FilterController, FilterReady
from ..controllers.follow import FollowController, FollowFailed
from ..controllers.history import HistoryController, Place
from ..controllers.insight import InsightController
from ..controllers.jumps import JumpController
from ..controllers.loader import LoadController
from ..controllers.marks import MarksController
from ..controllers.search import SearchController, SearchHits
from ..controllers.timeline import TimelineController
from ..controllers.timing import TimingController
from ..controllers.viewout import ViewOutController
from ..controllers.views import SavedViewController
from ..keys import BINDINGS
from ..messages import GotoSeqCount, LaterRowsChanged, LoadProgress, PairHighlighted, RowHighlighted, SeqCountChanged
from ..messages import TailVerdictFound
from ..settings_ui import default_filter
from ..views import RowSource
from ..widgets.chips import ChipsBar
from ..widgets.cmdline import CommandLine
from ..widgets.detail import DetailView
from ..widgets.event_list import EventList
from ..widgets.footer import StableFooter
from ..widgets.header import HeaderPanel
from ..widgets.pairs import PairsPane
from ..widgets.progress import LoadBar
from ..widgets.sparkline import ActivityBar
from .error import ErrorScreen
from .explorer_keys import ExplorerKeys
from .explorer_ports import ExplorerPortSide


class ExplorerScreen(ExplorerPortSide, ExplorerKeys, ScreenBase):
    BINDINGS = BINDINGS
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, CommandLine"  # the prompt works with a pane zoomed (z)

    def __init__(self, path: str | Path, *, lenient: bool = False, max_plain: int | None = None,
                 at_seq: int | None = None, detail_delay: float = 0.06, native_clipboard: bool = True,
                 tail_probe=None, early_tail=None) -> None:
        super().__init__(id="_default")
        self.path = Path(path)
        self.lenient, self.max_plain, self.at_seq = lenient, max_plain, at_seq
        self.detail_delay, self.native_clipboard = detail_delay, native_clipboard
        self.log_ = None
        self.diag = None
        self.cancel_event = threading.Event()
        self._detail_timer: Timer | None = None
        self._detail_index: int | None = None
        self.detail_shown: int | None = None
        self.load_finished = False  # the log is shown, or the error screen is
        self._cache_note: str | None = None  # the index cache's notice, once shown
        self.loader = LoadController(self, tail_probe, early_tail)
        self.search, self.jumps, self.filters = SearchController(self), JumpController(self), FilterController(self)
        self.copy, self.follow, self.family = CopyController(self), FollowController(self), FamilyController(self)
        self.history, self.marks = HistoryController(self), MarksController(self)
        self.anomalies, self.timing_view = AnomalyController(self), TimingController(self)
        self.insight = InsightController(self)  # C, I, D, J
        self.chips, self.saved_view = ChipsController(self), SavedViewController(self)
        self.view_out, self.timeline = ViewOutController(self), TimelineController(self)  # lnav's o, |, C
        # In this order they hear of a new session (follow starts before the family is looked for).
        self.controllers = (self.loader, self.search, self.jumps, self.filters, self.copy, self.follow, self.family,
                            self.history, self.anomalies, self.timing_view, self.marks, self.chips, self.saved_view,
                            self.view_out, self.timeline)
        self._worker_owners = {group: c for c in self.controllers for group in c.groups}

    # -- the panes -----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield HeaderPanel(id="header")
        yield ActivityBar(id="activity")  # the header's activity sparkline (widgets/sparkline.py)
        yield LoadBar(id="loadbar")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ChipsBar(id="chips")  # filter chips and marks: shown while there are any
                yield EventList(id="events")
                yield PairsPane(id="pairs")
            yield DetailView(id="detail")
        yield StableFooter(compact=True)
        yield CommandLine(id="cmdline")  # goto and search prompts: shown in the footer's place

    def on_mount(self) -> None:
        self.header.show_loading(self.path)
        self.events.border_title = "events"
        self.pairs_pane.border_title = "pairs"
        self.detail.border_title = "detail"
        self.events.focus()
        self.app.start_up()  # the app's start: this session read, or the browser or the fleet view first

    def on_pairs_pane_shown(self, message) -> None:
        self.header.pairs_shown()  # its note of stranded calls shows while the pane is hidden

    # -- the session shown ---------------------------------------------------------------------------
    @on(Worker.StateChanged)
    def route_worker(self, event: Worker.StateChanged) -> None:
        """A worker's state change goes to the controller owning its group."""
        if (owner := self._worker_owners.get(event.worker.group)) is not None:
            owner.worker_changed(event)

    def publish(self, change: SessionChanged) -> None:
        for controller in self.controllers:
            controller.session_changed(change)

    def load(self) -> None:
        """Read ``path`` (again) in a worker: the log is shown when it is read."""
        self.loader.start()

    def notify_worker_error(self, worker: Worker) -> None:
        self.notify(one_line(f"{worker.group} failed: {type(worker.error).__name__}: {worker.error}", 300),
                    severity="error", markup=False)

    def set_session(self, log, diag, *, grown: bool = False, replaced: bool = False) -> None:
        """The log shown (and its diagnosis): read, restored by back, or grown by live follow."""
        self.log_, self.diag = log, diag
        self.publish(SessionChanged("grown" if grown else "set", log, diag, replaced))

    def show_log(self, log, diag) -> None:
        self.load_finished = True
        if not log.accepted and not self.lenient:
            rej = log.rejection
            self.load_bar.display = False
            self.push_screen(ErrorScreen("dsh rejects this log", f"{self.path.name}: {rej.code}: {rej.message}",
                                         "open it anyway with --lenient (everything is then marked UNVERIFIED)",
                                         can_go_back=self.can_go_back, reopen_lenient=self.loader.reopen_lenient))
            return
        self.set_session(log, diag)
        from ...model.opening import cache
        note = cache.notice()  # why the index cache is off (an untrusted directory, ...): said once
        if note and note != self._cache_note:
            self._cache_note = note
            self.notify(note, severity="warning", markup=False, timeout=10)
        self.app.quiet_gc.start(self.app)
        with self.batch_update():
            self.load_bar.display = False
            self.header.show_log(log, diag, self.path)
            start = self.start_index()
            self.events.set_log(log, diag, RowSource(len(log)), start)
            if start is not None and diag.verdict is not None and start == diag.verdict.index:
                self.events.place_with_later(start)  # what came after the verdict in view too
            self.set_events_title()
            self.pairs_pane.set_pairs(diag.pairs)
            self.pairs_pane.border_title = Content(f"pairs ({len(diag.pairs):,}, newest first)")
        if not log.verified:
            self.app.sub_title = "UNVERIFIED"
        if diag.verdict is None and len(log):
            self.notify(no_failure_note(log), markup=False)
        if not getattr(log, "from_cache", True):  # once the verdict is painted: write the index cache
            self.call_after_refresh(self.loader.save_cache, log, diag)
        wanted = default_filter(self.settings, log, diag)  # the settings' default filter, when this log has it
        if wanted is not None:
            self.filters.apply(*wanted, start)
        self.saved_view.restore(start)  # its marks, chips and position from the last run

    def after_log_shown(self) -> None:
        log = self.log_
        if log is None or not self.is_open:  # not shown, or the app is closing
            return
        self.events.set_seed_end(seed_boundary(log))
        self.update_extras()
        self.publish(SessionChanged("shown", log, self.diag))

    def update_extras(self) -> None:
        """The header's lines under the log's: follow state, lineage, child failures."""
        if self.log_ is None:
            self.header.set_extra(None, [])
            return
        self.header.set_extra(self.follow.state(), self.family.header_lines())

    def start_index(self) -> int | None:
        log, diag = self.log_, self.diag
        if not len(log):
            return None
        if self.at_seq is not None:
            i = log.index_of_seq(self.at_seq)
            if i is not None:
                return i
            from ...sessions.locate import missing_seq
            self.notify(f"{missing_seq(log, self.at_seq)}: showing the verdict", severity="warning", markup=False)
        if diag.verdict is not None and diag.verdict.index is not None:
            return diag.verdict.index
        return len(log) - 1

    def set_events_title(self) -> None:
        src = self.events.source
        text = "events" if not src.filtered else f"events · filter: {src.label} ({len(src):,} of {src.total:,})"
        notes = [n for n in (self.events.mode_note(), self.search.title_note(), self.anomalies.title_note(),
                             self.events.later_note()) if n]
        self.events.border_title = Content(" · ".join([text, *notes]))

    # -- sessions: open, back, restore ------------------------------------------------------------
    def current_place(self) -> Place | None:
        if self.log_ is None:
            return None
        return Place(self.path, self.log_, self.diag, self.family.lineage, self.current_index, self.follow.following)

    def open_target(self, path: Path, *, at_seq: int | None = None, remember: bool = True) -> None:
        """Show another session (remembering the current one for back)."""
        if remember:
            self.history.remember(self.current_place())
        self.reset_explorer(Path(path), at_seq)
        self.load()

    def open_from_home(self, path: Path, at_seq: int | None = None, *, keep: bool = False) -> None:
        """A session picked in the browser or the fleet view (the back stack starts again); ``keep``: the
        session shown already keeps its place."""
        self.history.forget()
        if keep and self.log_ is not None and Path(path) == self.path:
            return
        self.open_target(path, at_seq=at_seq, remember=False)

    def reset_explorer(self, path: Path, at_seq: int | None) -> None:
        """Empty panes for ``path``; nothing of the old session (its workers, searches, family) lands."""
        self.saved_view.save()  # the old session's marks, chips and position, for its next opening
        self.cancel_event.set()
        self.cancel_event = threading.Event()
        self.path, self.at_seq = path, at_seq
        self.log_ = self.diag = None
        for controller in self.controllers:
            controller.reset()
        self.detail_shown = self._detail_index = None
        self.load_finished = False
        self.app.sub_title = ""
        with self.batch_update():
            self.header.show_loading(self.path)
            self.load_bar.display = True
            self.events.clear()
            self.set_events_title()
            self.pairs_pane.set_pairs([])
            self.pairs_pane.border_title = "pairs"
            self.detail.set_sections([])
            self.detail.border_title = "detail"
            self.events.focus()
        self.app.refresh_bindings()  # "b Back" shows only when there is somewhere to go back to

    def restore_place(self, place: Place) -> None:
        self.reset_explorer(place.path, None)
        self.family.restore(place.lineage)
        self.follow.restore(place.following)
        if place.index is not None and place.index < len(place.log):
            self.at_seq = place.log.seq_of(place.index)
        self.show_log(place.log, place.diag)
        self.after_log_shown()

    def leave(self) -> None:
        """The app quits: this session's view is kept, its reading stopped."""
        self.saved_view.save()
        self.cancel_event.set()

    def close(self) -> None:
        self.cancel_event.set()
        self.loader.close()

    # -- selection and detail -------------------------------------------------------------------
    def on_row_highlighted(self, message: RowHighlighted) -> None:
        self._detail_index = message.index
        if self._detail_timer is not None:
            self._detail_timer.stop()
            self._detail_timer = None
        if message.jump:  # goto, G, home, end, a click: no key repeat to wait out; drawn with the jump
            self.flush_detail()
        else:
            self._detail_timer = self.set_timer(self.detail_delay, self.flush_detail)
        self.anomalies.show(message.index)
        self.timing_view.cursor_moved(message.index)
        self.timeline.events_moved()  # a jump (n, :, v) lands in the events list: show it

    def flush_detail(self) -> None:
        i = self._detail_index
        if self.log_ is None or i is None or i == self.detail_shown:
            return
        found = self.query("#detail")
        if not found or not self.is_open:  # the app is closing (the debounce timer outlived the screen)
            return
        detail = found.first()
        ev = light_event(self.log_, i)
        detail.set_sections(detail_sections(ev, self.log_, self.diag))
        detail.border_title = Content(f"detail · seq {ev.seq}")
        self.detail_shown = i

    def redraw_detail(self) -> None:
        """Draw the detail pane again for the event under the cursor (its findings or result changed)."""
        self.detail_shown = None
        if self.log_ is not None and self.events.index is not None:
            self._detail_index = self.events.index
        self.flush_detail()

    def on_pair_highlighted(self, message: PairHighlighted) -> None:
        if not self.is_open:  # closing: a late message (e.g. after a live-follow update)
            return
        if self.focused is not self.pairs_pane or self.log_ is None:
            return
        p = self.pairs_pane.pairs[message.row]
        target = next(i for i in (p.open, p.ask, p.close) if i is not None)
        self.jump_to(target, center=True)

    def jump_to(self, index: int | None, *, center: bool = True) -> None:
        """Put the event list cursor on event ``index``, clearing a filter that hides it."""
        if index is None or self.log_ is None:
            return
        if not self.events.show_index(index, center=center):
            self.filters.drop()  # the filter dropped, the chips turned off
            self.chips.show_all(index)
            self.notify("filter cleared to show that event", markup=False)

    @property
    def current_index(self) -> int | None:
        return self.events.index if self.log_ is not None else None

    # -- messages to the controllers ---------------------------------------------------------------
    @on(LoadProgress)
    def _load_progress(self, message: LoadProgress) -> None:
        self.loader.progress(message)

    @on(TailVerdictFound)
    def _tail_verdict_found(self, message: TailVerdictFound) -> None:
        self.loader.verdict_found(message)

    @on(SearchHits)
    def _search_hits(self, message: SearchHits) -> None:
        self.search.hits_found(message)

    @on(FilterReady)
    def _filter_ready(self, message: FilterReady) -> None:
        self.filters.ready(message)

    @on(ChipsReady)
    def _chips_ready(self, message: ChipsReady) -> None:
        self.chips.ready(message)

    @on(Copied)
    def _copied(self, message: Copied) -> None:
        self.copy.copied(message)

    @on(FollowFailed)
    def _follow_failed(self, message: FollowFailed) -> None:
        self.follow.failed(message)

    @on(LineageFound)
    def _lineage_found(self, message: LineageFound) -> None:
        self.family.found(message)

    @on(LaterRowsChanged)
    def _later_rows_changed(self, message: LaterRowsChanged) -> None:
        if self.is_open:
            self.set_events_title()

    @on(SeqCountChanged)
    def _seq_count_changed(self, message: SeqCountChanged) -> None:
        self.jumps.show_count(message.count)

    @on(GotoSeqCount)
    def _goto_seq_count(self, message: GotoSeqCount) -> None:
        self.jumps.goto_count(message.seq)

    # -- the keys: the registry's handlers (ui/actions.py, here or in explorer_keys.py), run by ``do`` -
    async def action_do(self, action_id: str) -> None:
        """A key, or a palette command, of the explorer: its handler, as the registry names it."""
        await dispatch(self, action_id)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "do" and parameters[0] in ("back", "try-back"):  # Back shows in the footer only when
            return (parameters[0] == "back") == self.can_go_back()  # there is somewhere to go back to
        return super().check_action(action, parameters)
