"""The explorer's actions on the loaded log: jumps, search, filters, copy and save.

A mixin of ``ExplorerApp`` (which owns ``log_``, ``diag``, the panes and
``jump_to``). Slow work (search over the whole log, building a filter, the
layered copy) runs in thread workers that post a message back.
"""

from __future__ import annotations

import bisect
import weakref
from collections import OrderedDict

from textual import work
from textual.content import Content
from textual.worker import get_current_worker

from ..clipboard import copy_layered, prepare
from ..model.presenting.report import snippet
from ..model.reading.search import MAX_HITS, HitList, find_all, needle_key
from ..model.reading.source import Cancelled
from ..model.presenting.detail import event_maps
from ..model.presenting.summary import call_id_of, light_event
from ..safety import escape_json, one_line
from .export import save_event_json
from .messages import CopyDone, FilterReady, GotoSeqCount, SearchHits, SeqCountChanged
from ..model.presenting.checklist import ten_minute_pass
from .screens.checklist import ChecklistScreen
from .screens.filter import FilterScreen
from .screens.main import MainScreen
from .screens.report import ReportModal
from .views import RowSource, build_filter, filter_specs
from .widgets.cmdline import CommandLine
from .widgets.event_list import EventList
from .widgets.footer import StableFooter

SEARCH_LISTS = 4  # hit lists kept (the newest needles)


class ExplorerActions:
    ALLOW_IN_MAXIMIZED_VIEW = "Footer, CommandLine"  # the prompt works with a pane zoomed (z)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._hit_lists: OrderedDict[bytes, HitList] = OrderedDict()  # needle key -> hits in ``_hits_log``
        self._hits_log: weakref.ref | None = None
        self._searching: tuple[bytes, int] | None = None  # (needle key, direction) being scanned

    # -- the command line (goto, search) ------------------------------------------------------
    def get_default_screen(self) -> MainScreen:
        """The main screen does not repaint whole on a focus change (the prompt takes and returns it)."""
        return MainScreen(id="_default")

    @property
    def escape_to_minimize(self) -> bool:
        """Escape cancels an open prompt, or clears a pending count, before it restores a zoomed pane."""
        found = self.screen.query(CommandLine)
        if found and found.first().is_open:
            return False
        if isinstance(self.focused, EventList) and self.focused.count:  # 123 of 123G
            return False
        return super().escape_to_minimize

    def ask(self, kind: str, label: str, callback, **kw) -> bool:
        """Open the docked prompt of the current screen; False when that screen has none."""
        found = self.screen.query(CommandLine)
        if not found:
            return False
        found.first().ask(kind, label, callback, cover=tuple(self.screen.query(StableFooter)), **kw)
        return True

    # -- jumping -------------------------------------------------------------------------------------
    def action_first_event(self) -> None:
        if self.log_ is not None:
            self.events.action_first()

    def action_last_event(self) -> None:
        if self.log_ is not None:
            self.events.action_last()

    def action_goto(self) -> None:
        log = self.log_
        if log is None or not len(log):
            return
        first, last = log.seq_of(0), log.seq_of(len(log) - 1)
        self.ask("goto", "go to seq: ", self.goto_seq, integer=True, placeholder=f"{first}–{last}")

    def _main_command_line(self) -> CommandLine | None:
        """The docked line of the main screen (the events list's count shows there)."""
        found = self.screen_stack[0].query(CommandLine) if self.screen_stack else None
        return found.first() if found else None

    def on_seq_count_changed(self, message: SeqCountChanged) -> None:
        """Show the events list's pending count (``123`` of ``123G``) in the footer's place."""
        line = self._main_command_line()
        if line is None:
            return
        count = message.count
        text = Content.assemble(("go to seq ", "$text-muted"), (count, "bold"),
                                ("   G jumps there · esc clears", "$text-muted")) if count else None
        line.note(text, cover=tuple(self.screen_stack[0].query(StableFooter)))

    def on_goto_seq_count(self, message: GotoSeqCount) -> None:
        line = self._main_command_line()
        if line is not None:
            line.note(None)
        self.goto_seq(str(message.seq))

    def goto_seq(self, value: str | None) -> None:
        """Jump to the event carrying seq ``value``; when none does, to the nearest one, with a notice."""
        log = self.log_
        if not value or log is None or not len(log):
            return
        try:
            seq = int(value)
        except ValueError:
            self.notify(f"not a seq: {one_line(value, 40)}", severity="warning", markup=False)
            return
        i = log.index_of_seq(seq)
        if i is None:
            n = len(log)
            i = min(n - 1, bisect.bisect_left(range(n), seq, key=log.seq_of))
            first, last = log.seq_of(0), log.seq_of(n - 1)
            where = "before the first" if seq < first else "after the last" if seq > last else "in a gap"
            self.notify(f"no event has seq {seq} ({where}; seqs run {first}–{last}): "
                        f"showing seq {log.seq_of(i)}", severity="warning", markup=False)
        self.jump_to(i)

    def action_verdict(self) -> None:
        if self.diag is not None and self.diag.verdict is not None:
            self.jump_to(self.diag.verdict.index)
        elif self.log_ is not None:
            self.notify("No failure found in this log.", markup=False)

    def action_finding(self, direction: int) -> None:
        cur, idx = self.current_index, self.finding_indices
        if cur is None:
            return
        if not idx:
            self.notify("no findings", markup=False)
            return
        k = bisect.bisect_right(idx, cur) if direction > 0 else bisect.bisect_left(idx, cur) - 1
        if 0 <= k < len(idx):
            self.jump_to(idx[k])
        else:
            self.notify("no more findings " + ("below" if direction > 0 else "above"), markup=False)

    def action_partner(self) -> None:
        cur = self.current_index
        if cur is None:
            return
        pairs = event_maps(self.diag)[0].get(cur)
        p = pairs[0] if pairs else None
        if p is None:
            cid = call_id_of(light_event(self.log_, cur))
            p = self.diag.pairing.tools.get(cid) if cid else None
        if p is None:
            self.notify("not part of a call/result, command or approval pair", markup=False)
            return
        order = [p.open, p.ask] if cur == p.close else [p.close] if cur == p.open else [p.open, p.close]
        target = next((i for i in order if i is not None and i != cur), None)
        if target is None:
            self.notify(one_line(f"{p.key}: no result ({p.status})", 200), severity="warning", markup=False)
        else:
            self.jump_to(target)

    # -- search and filter ------------------------------------------------------------------
    def action_search(self) -> None:
        if self.log_ is None:
            return
        self.ask("search", "/", self.search_for, placeholder="type, tool, callId or text")

    def search_for(self, value: str | None) -> None:
        if value:
            self.needle = value
            self.find_hit(1)

    def action_next_hit(self, direction: int) -> None:
        if self.needle and self.log_ is not None:
            self.find_hit(direction)
        else:
            self.action_finding(direction)

    def find_hit(self, direction: int) -> None:
        """Jump to the next (previous) hit of ``needle``: a bisect once its hit list is built.

        The first search for a needle builds the list in a worker; a newer needle
        cancels it. The events pane title says "searching" meanwhile.
        """
        log, key = self.log_, needle_key(self.needle or "")
        if log is None or not key:
            return
        self._hits_for(log)
        hits = self._hit_lists.get(key)
        if hits is not None and hits.events == len(log):
            self._hit_lists.move_to_end(key)
            self.jump_to_hit(hits, direction)
            return
        if self._searching is not None and self._searching[0] == key:
            self._searching = (key, direction)  # still scanning: the newest direction wins
            return
        self._searching = (key, direction)
        self.show_search_status(f"searching “{one_line(self.needle, 40)}”…")
        self.search_worker(log, self.needle)

    def _hits_for(self, log) -> None:
        """Forget the hit lists (and a running scan) of another log (the browser opened a new one)."""
        if self._hits_log is None or self._hits_log() is not log:
            self._hit_lists.clear()
            self._hits_log = weakref.ref(log)
            if self._searching is not None:
                self._searching = None
                self.workers.cancel_group(self, "search")
                self.show_search_status(None)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="search")
    def search_worker(self, log, needle: str) -> None:
        try:
            hits = find_all(log, needle, cancel=get_current_worker().cancelled_event)
        except Cancelled:
            return
        except Exception as exc:  # reported by on_search_hits, which also ends the "searching" state
            self.post_message(SearchHits(needle, None, log, error=exc))
            return
        self.post_message(SearchHits(needle, hits, log))

    def on_search_hits(self, message: SearchHits) -> None:
        hits, key = message.hits, needle_key(message.needle)
        if self.log_ is None or message.log is not self.log_:
            return  # another log was opened meanwhile
        self._hits_for(self.log_)
        if hits is None:
            if self._searching is not None and self._searching[0] == key:
                self._searching = None
                self.show_search_status(None)
            err = message.error
            self.notify(one_line(f"search failed: {type(err).__name__}: {err}", 300), severity="error", markup=False)
            return
        self._hit_lists[key] = hits
        self._hit_lists.move_to_end(key)
        while len(self._hit_lists) > SEARCH_LISTS:
            self._hit_lists.popitem(last=False)
        if self._searching is None or self._searching[0] != key:
            return  # an older needle's list, kept for when it comes back
        direction = self._searching[1]
        self._searching = None
        self.show_search_status(None)
        if hits.capped:
            self.notify(f"more than {MAX_HITS:,} events hold “{one_line(message.needle, 40)}”: n and N "
                        f"visit the first {MAX_HITS:,}; a longer needle narrows it", severity="warning",
                        markup=False, timeout=8)
        if needle_key(self.needle or "") == key:
            self.jump_to_hit(hits, direction)

    def jump_to_hit(self, hits: HitList, direction: int) -> None:
        if not len(hits):
            self.notify(f"not found: {one_line(hits.needle, 80)}", severity="warning", markup=False)
            return
        cur = self.current_index
        hit, wrapped = hits.step(-1 if cur is None else cur, direction)
        self.jump_to(hit)
        if wrapped:
            self.notify("search wrapped around" + (" (within the first hits)" if hits.capped else ""), markup=False)

    def show_search_status(self, text: str | None) -> None:
        """The events pane title, with ``text`` (e.g. "searching …") appended."""
        self.set_events_title()
        if text:
            self.events.border_title = Content.assemble(self.events.border_title or "", (f" · {text}", "italic"))

    def action_filter(self) -> None:
        if self.log_ is None:
            return

        def done(key: str | None) -> None:
            if key:
                label = next((s.label for s in specs if s.key == key), key)
                self.build_filter_worker(key, label, self.current_index)
        specs = filter_specs(self.log_, self.diag)
        self.push_screen(FilterScreen(specs, self.events.source.key), done)

    @work(thread=True, exclusive=True, group="filter", exit_on_error=False)
    def build_filter_worker(self, key: str, label: str, focus: int | None) -> None:
        self.post_message(FilterReady(key, label, build_filter(self.log_, self.diag, key), focus))

    def on_filter_ready(self, message: FilterReady) -> None:
        self.events.set_source(RowSource(len(self.log_), message.indices, message.key, message.label),
                               message.focus_index)
        self.set_events_title()

    def action_clear_filter(self) -> None:
        if self.log_ is not None and self.events.source.filtered:
            self.events.set_source(RowSource(len(self.log_)), self.current_index)
            self.set_events_title()

    # -- report ---------------------------------------------------------------------------------
    def finding_at_cursor(self):
        cur = self.current_index
        if cur is None:
            return None
        found = event_maps(self.diag)[1].get(cur, [])
        ranked = sorted(found, key=lambda f: {"failure": 0, "warning": 1}.get(f.severity, 2))
        return ranked[0] if ranked else None

    def action_copy_report(self) -> None:
        if self.log_ is None:
            return
        finding = self.finding_at_cursor() or self.diag.verdict
        text = snippet(self.log_, self.diag, finding, mask=True)
        what = finding.kind if finding else "no failure"
        self.key_gate.expect_modal()  # the keys typed meanwhile are for its window (ui/keygate.py)
        self.copy_worker(f"bug report: {what}", text, "bug-report")

    def action_copy_raw(self) -> None:
        """The event's record exactly as written, secrets NOT masked (on purpose: the notice says so).

        As JSON it means exactly what the log holds; characters a terminal acts on are ``\\uXXXX``
        escapes in it (``escape_json``), so the file and the clipboard hold no raw control.
        """
        cur = self.current_index
        if cur is None or self.log_ is None:
            return
        ev = light_event(self.log_, cur)
        text = escape_json(bytes(ev.raw).decode("utf-8", "replace").rstrip("\r\n"))
        what = "the packed row holding it" if ev.packed else "exactly as written"
        self.key_gate.expect_modal()
        self.copy_worker(f"UNMASKED raw record of seq {ev.seq} ({what})", text, "raw-record-unmasked", mask=False)

    @work(thread=True, group="copy", exit_on_error=False)
    def copy_worker(self, title: str, text: str, stem: str, mask: bool = True) -> None:
        result = copy_layered(text, osc52=self._osc52, stem=stem, use_native=self.native_clipboard, mask=mask)
        self.post_message(CopyDone(title, text, result))

    def _osc52(self, text: str) -> None:
        self.call_from_thread(self.copy_to_clipboard, text)

    def on_copy_done(self, message: CopyDone) -> None:
        kind = "snippet" if message.result.masked else "raw"
        self.push_screen(ReportModal(message.title, message.text, message.result, kind=kind))
        self.key_gate.modal_done()

    def action_copy_call_id(self) -> None:
        cur = self.current_index
        if cur is None:
            return
        f = self.finding_at_cursor()
        pairs = event_maps(self.diag)[0].get(cur)
        p = pairs[0] if pairs else None
        cid = (f.call_id if f else None) or (p.key if p and p.kind == "tool" else None) \
            or call_id_of(light_event(self.log_, cur)) or (self.diag.verdict.call_id if self.diag.verdict else None)
        if not cid:
            self.notify("no callId here", severity="warning", markup=False)
            return
        text = prepare(one_line(cid, None))  # one line, masked, sanitised: like every copy
        self.copy_to_clipboard(text)
        self.notify(f"copied callId {one_line(text, 120)} (OSC 52)", markup=False)

    def action_save_event(self) -> None:
        cur = self.current_index
        if cur is None:
            return
        try:
            path = save_event_json(self.log_, cur)
        except OSError as exc:
            self.notify(one_line(f"could not save: {exc}", 300), severity="error", markup=False)
            return
        self.notify(f"saved the full event, secrets NOT masked, to {one_line(str(path), 300)}", markup=False,
                    timeout=10)

    def action_checklist(self) -> None:
        if self.log_ is not None:
            self.push_screen(ChecklistScreen(ten_minute_pass(self.log_, self.diag)), self.jump_to)
