"""BrowserScreen: every session under a dsh root, grouped by project, children under parents.

Lists from header frames only (`list_target`, a thread worker that also builds
the tree, so no listing holds up keys), paints, then fills each session's status
in a second thread worker (`fill_status`, newest first, cancellable; an export
ZIP is read through the one archive the listing opened), posting coalesced
`StatusFilled` messages. Enter posts `BrowserScreen.Open` for the app to show the
session in the explorer; the app installs this screen once, so going back finds
the cursor and filter as they were.
"""

from __future__ import annotations

import time
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Label
from textual.worker import Worker, WorkerState, get_current_worker

from ...sessions.browse import (browser_rows, display_root, entry_details, footer_notes, head_text, layout_for,
                                summary_line)
from ...model.sessions.discovery import Listing, RootUnreadable, build_tree, fill_status, list_target
from ...model.sessions.entry import SessionEntry
from ...safety import one_line
from ..messages import NewestWins
from ..widgets.sessions import FitLines, SessionHighlighted, SessionList
from ..keydocs import browser_help
from ..keys import BROWSER_BAR_BINDINGS, BROWSER_BINDINGS
from .help import HelpScreen

NO_CONTROLS = r"[^\x00-\x1f\x7f-\x9f]*"
REFILTER_MIN, REFILTER_GAP = 0.25, 4  # re-filtering as statuses fill: how often (see refilter_soon)
STYLE = {"dim": "$text-muted", "id": "bold", "value": "", "bad": "bold $error", "warn": "$warning"}

class StatusFilled(NewestWins):
    """The status worker finished ``done`` of ``total`` sessions (coalesced: the newest wins)."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total


class FilterBar(Horizontal):
    DEFAULT_CSS = """
    FilterBar { dock: bottom; height: 1; width: 100%; display: none; }
    FilterBar > Label { width: auto; }
    FilterBar > Input { border: none; height: 1; padding: 0; width: 1fr; }
    """
    BINDINGS = BROWSER_BAR_BINDINGS

    def compose(self) -> ComposeResult:
        yield Label("filter: ", id="browser-filter-label", markup=False)
        yield Input(id="browser-filter-input", restrict=NO_CONTROLS, select_on_focus=False,
                    placeholder="words in id, cwd, project, preset or status")

    def action_clear(self) -> None:
        self.screen.clear_filter()

    def action_leave(self) -> None:
        self.screen.sessions.focus()


class BrowserScreen(Screen[None]):
    BINDINGS = BROWSER_BINDINGS

    class Open(Message):
        """Open ``entry`` in the explorer."""

        def __init__(self, entry: SessionEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, root: Path, *, status: bool = True, name: str | None = None,
                 max_plain: int | None = None) -> None:
        super().__init__(name=name)
        self.root = Path(root)
        self.status = status
        self.max_plain = max_plain  # --max-plain-size: the statuses are read under the limit the explorer has
        self.listing: Listing | None = None
        self.roots: list[SessionEntry] = []
        self.filter_text = ""
        self.error: str | None = None
        self.filled = 0
        self.pending = 0
        self._refilter: Timer | None = None  # a re-filter for statuses read since the last one
        self._rows_cost = 0.0  # seconds the last refresh_rows took

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield FitLines(id="browser-head")
        yield FitLines(id="browser-cols")
        yield SessionList(id="sessions")
        yield FitLines(id="browser-detail")
        yield FitLines(id="browser-note")
        yield FilterBar(id="browser-filter")
        yield Footer(compact=True)

    @property
    def sessions(self) -> SessionList:
        return self.query_one("#sessions", SessionList)

    def on_mount(self) -> None:
        self.sessions.border_title = "sessions"
        self.query_one("#browser-note").display = False
        self.update_head()
        self.sessions.focus()
        self.list_root()

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_cols)  # the list's new width is known after the layout

    # -- listing and status ------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="listing", exit_on_error=False)
    def list_root(self) -> tuple[Listing, list[SessionEntry]]:
        listing = list_target(self.root)
        return listing, build_tree(listing.entries)

    @work(thread=True, exclusive=True, group="fill", exit_on_error=False)
    def fill_worker(self, entries: list[SessionEntry], archive=None, max_plain: int | None = None) -> None:
        worker = get_current_worker()
        last = 0.0
        for k, entry in enumerate(entries, 1):
            if worker.is_cancelled:
                return
            fill_status(entry, cancel=worker.cancelled_event, max_plain=max_plain, archive=archive)
            now = time.monotonic()
            if now - last >= 0.1 or k == len(entries):
                last = now
                self.post_message(StatusFilled(k, len(entries)))

    @on(Worker.StateChanged)
    def worker_changed(self, event: Worker.StateChanged) -> None:
        """The listing's and the status filling's workers, told apart by group."""
        worker = event.worker
        if worker.group == "listing":
            if event.state == WorkerState.SUCCESS:
                self.show_listing(*worker.result)
            elif event.state == WorkerState.ERROR:
                err = worker.error
                self.error = err.args[0] if isinstance(err, RootUnreadable) and err.args else \
                    f"{type(err).__name__}: {err}"
                self.sessions.empty_text = "cannot list this directory"
                self.sessions.set_rows([])
                self.update_head()
        elif worker.group == "fill" and event.state == WorkerState.ERROR:
            self.pending = 0
            self.update_head()
            self.notify(one_line(f"reading statuses failed: {worker.error}", 300), severity="error", markup=False)

    def show_listing(self, listing: Listing, roots: list[SessionEntry]) -> None:
        self.listing, self.error = listing, None
        self.roots = roots
        todo = [e for e in listing.entries if e.status == "unknown"]  # newest first
        self.filled, self.pending = 0, len(todo) if self.status else 0
        self.sessions.empty_text = "no sessions here" if not listing.entries else "no session matches the filter"
        self.refresh_rows()
        notes = footer_notes(listing)
        note = self.query_one("#browser-note", FitLines)
        note.set_lines([[(n, "")] for n in notes])
        note.display = bool(notes)
        if self.status and todo:
            self.fill_worker(todo, listing.archive, self.max_plain)

    def on_status_filled(self, message: StatusFilled) -> None:
        self.filled, self.pending = message.done, message.total - message.done
        if self.filter_text.strip():
            self.refilter_soon(message.done == message.total)  # a status can start or stop matching
        else:
            self.sessions.clear_cache()
        self.update_head()
        self.update_detail()

    def refilter_soon(self, last: bool) -> None:
        """Filter again for the statuses read so far: at once for the last, else at most once per
        REFILTER_GAP times what a pass costs (at least REFILTER_MIN s). A pass walks every session
        (~0.3 s for 20,000): one per status batch would leave no time for keys."""
        if last or self._refilter is None:
            if self._refilter is not None:
                self._refilter.stop()
            self._refilter = None if last else self.set_timer(max(REFILTER_MIN, REFILTER_GAP * self._rows_cost),
                                                              self._refilter_now)
            if last:
                self.refresh_rows()

    def _refilter_now(self) -> None:
        self._refilter = None
        if self.filter_text.strip():
            self.refresh_rows()

    def refresh_rows(self) -> None:
        if self.listing is None:
            return
        start = time.monotonic()
        current = self.sessions.current
        keep = current.entry if current is not None else None
        self.sessions.set_rows(browser_rows(self.roots, self.listing.entries, self.filter_text), keep)
        self.update_head()
        self.update_detail()
        self._rows_cost = time.monotonic() - start

    # -- texts ------------------------------------------------------------------------------------
    def update_head(self) -> None:
        parts: list = [("sessions", "bold $accent")]
        if self.listing is not None and self.listing.breaks_listing:  # the root level, before the path cuts it
            parts += ["  ", (" DSH CANNOT LIST THIS ROOT (see below) ", "bold reverse $error")]
        parts += [("  under ", "$text-muted"), (display_root(self.root), "bold")]
        if self.error is not None:
            parts += ["  ", (one_line(self.error, 300), "bold $error")]
        elif self.listing is None:
            parts += [("  listing…", "$text-muted")]
        else:
            shown = None
            if self.filter_text.strip():
                shown = sum(1 for r in self.sessions.rows if r.kind == "session" and not r.context)
            parts += ["  ", (summary_line(self.listing, self.filled, self.pending, shown), "$text-muted")]
            if self.filter_text.strip():
                parts += [("  filter: ", "$text-muted"), (one_line(self.filter_text, 60), "bold")]
        self.query_one("#browser-head", FitLines).set_lines([parts])
        self.update_cols()

    def update_cols(self) -> None:
        width = self.sessions.scrollable_content_region.width or self.size.width
        self.query_one("#browser-cols", FitLines).set_lines([[head_text(layout_for(width))]])

    def update_detail(self) -> None:
        row = self.sessions.current
        detail = self.query_one("#browser-detail", FitLines)
        if row is None or row.entry is None:
            text = "" if row is None else f"{row.title}: {row.count} session{'s' if row.count != 1 else ''}"
            detail.set_lines([[(text, "bold")]] if text else [])
            return
        detail.set_lines([[(t, STYLE.get(c, "")) for t, c in line] for line in entry_details(row.entry, self.root)])

    def on_session_highlighted(self, message: SessionHighlighted) -> None:
        self.update_detail()

    # -- actions -------------------------------------------------------------------------------
    def action_open(self) -> None:
        row = self.sessions.current
        if row is None:
            return
        if row.kind == "group":  # to the group's first match, never one of its context rows
            self.sessions.select_next_session(1, matched=True)
            return
        self.post_message(self.Open(row.entry))

    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.display = True
        inp = self.query_one("#browser-filter-input", Input)
        inp.value = self.filter_text
        inp.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "browser-filter-input":
            self.filter_text = event.value
            self.refresh_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "browser-filter-input":
            event.stop()
            if not self.filter_text.strip():
                self.query_one(FilterBar).display = False
            self.sessions.focus()

    def clear_filter(self) -> None:
        bar = self.query_one(FilterBar)
        had = bool(self.filter_text)
        self.filter_text = ""
        self.query_one("#browser-filter-input", Input).value = ""
        bar.display = False
        self.sessions.focus()
        if had:
            self.refresh_rows()

    def action_clear_filter(self) -> None:
        self.clear_filter()

    def action_rescan(self) -> None:
        self.workers.cancel_group(self, "fill")
        self.listing = None
        self.update_head()
        self.list_root()

    def action_help(self) -> None:
        keymap = getattr(self.app, "current_keymap", dict)()  # the keys in effect after the user's keymap
        self.app.push_screen(HelpScreen(browser_help(keymap)))

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "fill")
