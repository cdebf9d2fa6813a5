"""ExplorerApp: the full-screen explorer. Wiring only: the model computes, widgets draw, controllers act.

The app owns the session shown (``log_``, ``diag``), the panes, the detail debounce, the key gate
(ui/keygate.py) and ``jump_to``; it composes the controllers (ui/controllers/): loader, search,
jumps, filters, copy, follow, family, history. Each starts its thread workers under its own groups;
``route_worker`` hands a worker's state change to the controller owning its group, and the app's
message handlers hand each controller's messages back to it. The app, not the screen, owns them:
its bindings are the ones the main screen's Back falls back under and the browser screen is pushed
above, and the benchmark and the CLI drive ``app.log_``/``app.events``/``app.jump_to``.

Every string from the log reaches the screen through ``safety.clean``/``one_line`` (in
``model.summary`` and the widgets).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import Event, InputEvent, Key, MouseDown
from textual.timer import Timer
from textual.worker import Worker

from ..model.presenting.detail import detail_sections
from ..model.presenting.summary import light_event, seed_boundary
from ..safety import one_line
from ..settings import Settings
from .controllers.anomalies import AnomalyController
from .compat import clear_notices
from .compat.keyparse import install as install_key_parser
from .controllers.copy import Copied, CopyController
from .controllers.family import FamilyController, LineageFound
from .controllers.filters import FilterController, FilterReady
from .controllers.follow import FollowController, FollowFailed
from .controllers.history import HistoryController, Place
from .controllers.jumps import JumpController
from .controllers.chips import ChipsController, ChipsReady
from .controllers.loader import LoadController
from .controllers.marks import MarksController
from .controllers.search import SearchController, SearchHits
from .controllers.timing import TimingController
from .controllers.insight import InsightController
from .controllers.timeline import TimelineController
from .controllers.viewout import ViewOutController
from .controllers.views import SavedViewController
from .keydocs import explorer_help
from .keygate import KeyGate
from .actions import dispatch
from .keys import BINDINGS as KEY_BINDINGS
from .messages import GotoSeqCount, LoadProgress, PairHighlighted, RowHighlighted, SeqCountChanged, TailVerdictFound
from .messages import LaterRowsChanged
from .nocolor import no_color_variables
from .palette import explorer_commands
from .quietgc import QuietGC
from .screens.browser import BrowserScreen
from .screens.fleet import FleetScreen
from .screens.error import ErrorScreen
from .screens.header import HeaderScreen
from ..model.presenting.headerview import header_sections
from .screens.help import HelpScreen
from .screens.main import MainScreen
from .settings_ui import apply_settings, default_filter, read_settings
from .views import RowSource
from .widgets.chips import ChipsBar
from .widgets.cmdline import CommandLine
from .widgets.detail import DetailView
from .widgets.event_list import EventList
from .widgets.footer import StableFooter
from .widgets.header import HeaderPanel
from .widgets.pairs import PairsPane
from .widgets.progress import LoadBar
from .widgets.sparkline import ActivityBar

class ExplorerApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "dsh-tui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]  # a short terminal drops the activity row
    BINDINGS = KEY_BINDINGS
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, CommandLine"  # the prompt works with a pane zoomed (z)

    def __init__(self, path: str | Path, *, lenient: bool = False, max_plain: int | None = None,
                 at_seq: int | None = None, detail_delay: float = 0.06, native_clipboard: bool = True,
                 tail_probe=None, early_tail=None, settings: Settings | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.lenient, self.max_plain, self.at_seq = lenient, max_plain, at_seq
        self.detail_delay, self.native_clipboard = detail_delay, native_clipboard
        self.settings = settings or Settings()
        self.browse_root: Path | None = None  # set: start in the session browser on this root
        self.fleet_dir: Path | None = None  # set: start in the fleet view of this scan folder
        self.startup_notice: str | None = None
        self.log_ = None
        self.diag = None
        self.cancel_event = threading.Event()
        self._detail_timer: Timer | None = None
        self._detail_index: int | None = None
        self.detail_shown: int | None = None
        self.load_finished = False  # the log is shown, or the error screen is
        self.quiet_gc = QuietGC()  # full GC passes between key presses (ui/quietgc.py)
        self.key_gate = KeyGate(self)  # keys one at a time, each for the screen it was typed for (ui/keygate.py)
        install_key_parser()  # Esc then a key sent in one write is Esc, then the key (compat/keyparse.py)
        self._cache_note: str | None = None  # the index cache's notice, once shown
        self.loader = LoadController(self, tail_probe, early_tail)
        self.search = SearchController(self)
        self.jumps = JumpController(self)
        self.filters = FilterController(self)
        self.copy = CopyController(self)
        self.follow = FollowController(self)
        self.family = FamilyController(self)
        self.history = HistoryController(self)
        self.marks = MarksController(self)  # search, marks, chips and saved views: controllers/marks.py ...
        self.anomalies = AnomalyController(self)
        self.timing_view = TimingController(self)
        self.insight = InsightController(self)  # C, I, D, J (controllers/insight.py)
        self.controllers = (self.loader, self.search, self.jumps, self.filters, self.copy, self.follow, self.family, self.history)
        self.controllers += (self.anomalies, self.timing_view)
        self.chips = ChipsController(self)
        self.saved_view = SavedViewController(self)
        self.controllers += (self.marks, self.chips, self.saved_view)
        self.view_out, self.timeline = ViewOutController(self), TimelineController(self)  # ui/lnav.py's keys
        self.controllers += (self.view_out, self.timeline)
        self._worker_owners = {group: c for c in self.controllers for group in c.groups}

    @property
    def needle(self) -> str | None:
        """The current search (the search controller's)."""
        return self.search.needle

    @needle.setter
    def needle(self, value: str | None) -> None:
        self.search.needle = value

    def get_default_screen(self) -> MainScreen:
        """The main screen does not repaint whole on a focus change (the prompt takes and returns it)."""
        return MainScreen(id="_default")

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        if self.no_color:  # NO_COLOR: contrast from bold/reverse, not a grey of red (ui/nocolor.py)
            variables = self.theme_variables = {**variables, **no_color_variables(variables)}
        return variables

    # -- keys ---------------------------------------------------------------------------------------
    async def on_event(self, event: Event) -> None:
        if isinstance(event, InputEvent):
            self.quiet_gc.touch()
            if isinstance(event, Key):
                await self._on_key_event(event)
                return
            if isinstance(event, MouseDown) and not event.is_forwarded:
                self.dismiss_notices()
        await super().on_event(event)

    async def _on_key_event(self, event: Key) -> None:
        gate = self.key_gate
        if event.is_forwarded:  # back from the widget it was handed to: its binding runs now
            if not self.screen_stack:
                return  # the app is closing: no screen to take it (Textual's bindings would raise)
            await super().on_event(event)
            gate.arrived(event)
            return
        if not gate.admit(event):
            return  # held: handed out in turn (ui/keygate.py)
        self.dismiss_notices()
        target = self.focused or self.screen  # where Textual hands it, unless a priority binding takes it
        await super().on_event(event)
        gate.handed(event, target)

    def dismiss_notices(self) -> None:
        """A key or a click takes the notices away: they never cover what the user opens or moves to."""
        clear_notices(self)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "do" and self.browser_active():
            return False  # the browser's keys only; the explorer's wait until a session is open
        if action == "do" and parameters[0] in ("back", "try-back"):  # Back shows in the footer only when
            return (parameters[0] == "back") == self.can_go_back()  # there is somewhere to go back to
        return super().check_action(action, parameters)

    @property
    def escape_to_minimize(self) -> bool:
        """Escape cancels an open prompt, or clears a pending count, before it restores a zoomed pane."""
        found = self.screen.query(CommandLine)
        if found and found.first().is_open:
            return False
        if isinstance(self.focused, EventList) and self.focused.count:  # 123 of 123G
            return False
        return super().escape_to_minimize

    # -- layout ---------------------------------------------------------------------------------------
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

    @property
    def events(self) -> EventList:
        return self.query_one("#events", EventList)

    @property
    def pairs_pane(self) -> PairsPane:
        return self.query_one("#pairs", PairsPane)

    @property
    def detail(self) -> DetailView:
        return self.query_one("#detail", DetailView)

    def ask(self, kind: str, label: str, callback, **kw) -> bool:
        """Open the docked prompt of the current screen; False when that screen has none."""
        found = self.screen.query(CommandLine)
        if not found:
            return False
        found.first().ask(kind, label, callback, cover=tuple(self.screen.query(StableFooter)), **kw)
        return True

    def main_command_line(self) -> CommandLine | None:
        """The docked line of the main screen (the events list's count shows there)."""
        found = self.screen_stack[0].query(CommandLine) if self.screen_stack else None
        return found.first() if found else None

    def main_footers(self) -> tuple:
        return tuple(self.screen_stack[0].query(StableFooter)) if self.screen_stack else ()

    def on_mount(self) -> None:
        apply_settings(self, self.settings)  # keymap and theme; one notice for what the file got wrong
        self.query_one(HeaderPanel).show_loading(self.path)
        self.events.border_title = "events"
        self.pairs_pane.border_title = "pairs"
        self.detail.border_title = "detail"
        self.events.focus()
        if self.fleet_dir is not None:  # `dsh-tui SCAN-FOLDER`: the fleet view
            self.history.show_fleet()
        elif self.browse_root is not None:  # `dsh-tui DIR`: the session browser
            self.history.show_browser()
        else:
            self.loader.start_first()
        if self.startup_notice:
            self.notify(one_line(self.startup_notice, 300), markup=False, timeout=10)

    @on(Worker.StateChanged)
    def route_worker(self, event: Worker.StateChanged) -> None:
        """A worker's state change goes to the controller owning its group."""
        if (owner := self._worker_owners.get(event.worker.group)) is not None:
            owner.worker_changed(event)

    def load(self) -> None:
        """Read ``path`` (again) in a worker: the log is shown when it is read."""
        self.loader.start()

    def save_cache(self, log, diag) -> None:
        self.loader.save_cache(log, diag)

    def notify_worker_error(self, worker: Worker) -> None:
        self.notify(one_line(f"{worker.group} failed: {type(worker.error).__name__}: {worker.error}", 300),
                    severity="error", markup=False)

    def set_session(self, log, diag) -> None:
        """The log shown (and its diagnosis): read, restored by back, or grown by live follow."""
        self.log_, self.diag = log, diag
        self.jumps.set_findings(diag)

    def show_log(self, log, diag) -> None:
        self.load_finished = True
        if not log.accepted and not self.lenient:
            rej = log.rejection
            self.query_one(LoadBar).display = False
            self.push_screen(ErrorScreen("dsh rejects this log", f"{self.path.name}: {rej.code}: {rej.message}",
                                         "open it anyway with --lenient (everything is then marked UNVERIFIED)"))
            return
        self.set_session(log, diag)
        from ..model.reading import cache
        note = cache.notice()  # why the index cache is off (an untrusted directory, ...): said once
        if note and note != self._cache_note:
            self._cache_note = note
            self.notify(note, severity="warning", markup=False, timeout=10)
        self.quiet_gc.start(self)
        with self.batch_update():
            self.query_one(LoadBar).display = False
            self.query_one(HeaderPanel).show_log(log, diag, self.path)
            start = self.start_index()
            self.events.set_log(log, diag, RowSource(len(log)), start)
            if start is not None and diag.verdict is not None and start == diag.verdict.index:
                self.events.place_with_later(start)  # what came after the verdict in view too
            self.set_events_title()
            self.pairs_pane.set_pairs(diag.pairs)
            self.pairs_pane.border_title = Content(f"pairs ({len(diag.pairs):,}, newest first)")
        if not log.verified:
            self.sub_title = "UNVERIFIED"
        if diag.verdict is None and len(log):
            self.notify("No failure found in this log.", markup=False)
        if not getattr(log, "from_cache", True):  # once the verdict is painted: write the index cache
            self.call_after_refresh(self.save_cache, log, diag)
        wanted = default_filter(self.settings, log, diag)  # the settings' default filter, when this log has it
        if wanted is not None:
            self.filters.apply(*wanted, start)
        self.saved_view.restore(start)  # its marks, chips and position from the last run

    def after_log_shown(self) -> None:
        log = self.log_
        if log is None or not self.screen_stack:  # not shown, or the app is closing
            return
        self.events.set_seed_end(seed_boundary(log))
        self.update_extras()
        self.follow.start()
        self.family.log_shown(log)
        self.timing_view.log_shown()

    def update_extras(self) -> None:
        """The header's lines under the log's: follow state, lineage, child failures."""
        header = self.query_one("#header")
        if self.log_ is None:
            header.set_extra(None, [])
            return
        header.set_extra(self.follow.state(), self.family.header_lines())

    def start_index(self) -> int | None:
        log, diag = self.log_, self.diag
        if not len(log):
            return None
        if self.at_seq is not None:
            i = log.index_of_seq(self.at_seq)
            if i is not None:
                return i
            from ..sessions.locate import missing_seq
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
    def browser_active(self) -> bool:
        return self.history.browser_active()

    def can_go_back(self) -> bool:
        return self.history.can_go_back()

    def current_place(self) -> Place | None:
        if self.log_ is None:
            return None
        return Place(self.path, self.log_, self.diag, self.family.lineage, self.current_index, self.follow.following)

    def open_target(self, path: Path, *, at_seq: int | None = None, remember: bool = True) -> None:
        """Show another session in the explorer (remembering the current one for back)."""
        if remember:
            self.history.remember(self.current_place())
        self.reset_explorer(Path(path), at_seq)
        self.load()

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
        self.sub_title = ""
        with self.batch_update():
            self.query_one("#header").show_loading(self.path)
            self.query_one(LoadBar).display = True
            self.events.clear()
            self.set_events_title()
            self.pairs_pane.set_pairs([])
            self.pairs_pane.border_title = "pairs"
            self.detail.set_sections([])
            self.detail.border_title = "detail"
            self.events.focus()
        self.refresh_bindings()  # "b Back" shows only when there is somewhere to go back to

    def restore_place(self, place: Place) -> None:
        self.reset_explorer(place.path, None)
        self.family.lineage = place.lineage
        self.follow.following = place.following
        if place.index is not None and place.index < len(place.log):
            self.at_seq = place.log.seq_of(place.index)
        self.show_log(place.log, place.diag)
        self.after_log_shown()

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

    def flush_detail(self) -> None:
        i = self._detail_index
        if self.log_ is None or i is None or i == self.detail_shown:
            return
        found = self.screen_stack[0].query("#detail") if self.screen_stack else None
        if not found:  # the app is closing (the debounce timer outlived the screen)
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
        if not self.screen_stack:  # closing: a late message (e.g. after a live-follow update)
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
            self.chips.show_all(index)  # the filter dropped, the chips turned off
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
        if self.screen_stack:
            self.set_events_title()

    @on(SeqCountChanged)
    def _seq_count_changed(self, message: SeqCountChanged) -> None:
        self.jumps.show_count(message.count)

    @on(GotoSeqCount)
    def _goto_seq_count(self, message: GotoSeqCount) -> None:
        self.jumps.goto_count(message.seq)

    @on(BrowserScreen.Open)
    def _browser_open(self, message: BrowserScreen.Open) -> None:
        self.history.opened_from_browser(message)

    @on(FleetScreen.Open)
    def _fleet_open(self, message: FleetScreen.Open) -> None:
        self.history.opened_from_fleet(message)

    # -- actions: the registry's handlers (ui/actions.py), run by ``do`` ---------------------------------
    async def action_do(self, action_id: str) -> None:
        """A key, or a palette command, of the explorer: its handler, as the registry names it."""
        await dispatch(self, action_id)

    def help(self) -> None:
        self.push_screen(HelpScreen(explorer_help(self.current_keymap())))

    def current_keymap(self) -> dict[str, str]:
        """The keymap in effect (binding id -> keys), as ``set_keymap`` was given it."""
        return dict(self.settings.keymap)

    def full_header(self) -> None:
        if self.log_ is not None:
            self.push_screen(HeaderScreen(header_sections(self.log_, self.diag)))

    def toggle_pairs(self) -> None:
        self.screen.toggle_class("-pairs-flip")

    def zoom(self) -> None:
        if self.screen.maximized is not None:
            self.screen.minimize()
        elif self.focused is not None:
            self.screen.maximize(self.focused)

    def enter(self) -> None:
        if self.timeline.enter():  # the merged timeline: open the child at that event
            return
        if self.focused is self.events:
            if self.family.offer_child():  # a NOT_IN_TOOL_SET finding a child calls: open it?
                return
            self.detail.focus()
            return
        if self.focused is self.pairs_pane and self.pairs_pane.pair is not None:
            p = self.pairs_pane.pair
            self.jump_to(next(i for i in (p.open, p.ask, p.close) if i is not None))
        self.events.focus()

    def first_event(self) -> None:
        if self.log_ is not None:
            self.events.action_first()

    def last_event(self) -> None:
        if self.log_ is not None:
            self.events.action_last()

    def toggle_raw(self) -> None:
        self.events.toggle_raw()
        self.set_events_title()

    def next_hit(self, direction: int) -> None:
        if not self.search.next_hit(direction):
            self.jumps.finding(direction)  # no search: n and N step through the findings

    def shift_rows(self, direction: int) -> None:
        """< and >: scroll the rows' text (the events list's, or the merged timeline's)."""
        if self.log_ is None:
            return
        target = self.timeline.list_shown() or self.events
        if target.shift_text(direction):
            self.set_events_title()
            self.timeline.set_title()

    def checklist(self) -> None:
        if self.log_ is not None:
            from ..model.presenting.checklist import ten_minute_pass
            from .screens.checklist import ChecklistScreen
            self.push_screen(ChecklistScreen(ten_minute_pass(self.log_, self.diag)), self.jump_to)

    @on(RowHighlighted)
    def _cursor_moved_anomalies(self, message: RowHighlighted) -> None:
        self.anomalies.show(message.index)
        self.timing_view.cursor_moved(message.index)
        self.timeline.events_moved()  # a jump (n, :, v) lands in the events list: show it

    def back(self) -> None:
        """b (back, or try-back where there is nowhere to go: it says so)."""
        if not self.load_finished:  # still reading: stop, so no error screen pops up later
            self.cancel_event.set()
            self.workers.cancel_group(self, "load")
        self.history.back()

    async def action_quit(self) -> None:
        self.saved_view.save()
        self.cancel_event.set()
        self.exit(return_code=0)

    def on_unmount(self) -> None:
        self.cancel_event.set()
        self.loader.close()

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from explorer_commands(self.run_command, self.current_keymap())

    async def run_command(self, action_id: str) -> None:
        """A palette command of the explorer (none while the browser is shown: its keys wait too)."""
        if not self.browser_active():
            await dispatch(self, action_id)


_RAN: list = []  # the apps run, kept to the end of the process


def _run(app: App, **options) -> int:
    """Run ``app``; its exit code. On a loop of its own that is not closed after: closing it (what
    asyncio.run does) joins the worker threads still running, a cache save or the timing rows made
    ahead, seconds on a big session after the terminal is already restored. The process then ends by
    os._exit (`cli.entry`) once the output is flushed, freeing nothing: the app, the session it holds
    and the loop are kept to then (freeing a 3.5 GB session's objects took seconds too). A cache
    save cut short leaves only its temp file, pruned later (cache.py)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app.run(loop=loop, **options)  # (options: the tests' headless=True)
    _RAN.append((app, loop))
    return app.return_code or 0


def run_app(path: str | Path, *, lenient: bool = False, max_plain: int | None = None, at_seq: int | None = None,
            tail_probe=None, early_tail=None) -> int:
    app = ExplorerApp(path, lenient=lenient, max_plain=max_plain, at_seq=at_seq, tail_probe=tail_probe,
                      early_tail=early_tail, settings=read_settings())
    return _run(app)


def run_browser(root: str | Path, *, lenient: bool = False, max_plain: int | None = None,
                notice: str | None = None) -> int:
    """`dsh-tui DIR`: the session browser on a root, a project or a session directory (``notice``: e.g. what a
    DSH_HOME naming the sessions folder itself should be)."""
    app = ExplorerApp(root, lenient=lenient, max_plain=max_plain, settings=read_settings())
    app.browse_root = Path(root)
    app.startup_notice = notice
    return _run(app)


def run_fleet(folder: str | Path) -> int:
    """`dsh-tui SCAN-FOLDER`: the fleet view of a scan; Enter opens a session at its verdict."""
    app = ExplorerApp(folder, settings=read_settings())
    app.fleet_dir = Path(folder)
    app.run()
    return app.return_code or 0


def run_explorer(path: str | Path, *, notice: str | None = None, lenient: bool = False,
                 max_plain: int | None = None, at_seq: int | None = None) -> int:
    """`run_app` plus a startup notice (e.g. "no sessions under ~/.dsh/sessions: the demo log")."""
    app = ExplorerApp(path, lenient=lenient, max_plain=max_plain, at_seq=at_seq, settings=read_settings())
    app.startup_notice = notice
    return _run(app)
