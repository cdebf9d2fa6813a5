"""The explorer's actions on the loaded log: jumps, search, filters, copy and save.

A mixin of ``ExplorerApp`` (which owns ``log_``, ``diag``, the panes and
``jump_to``). Slow work (search over the whole log, building a filter, the
layered copy) runs in thread workers that post a message back.
"""

from __future__ import annotations

import bisect

from textual import work

from ..clipboard import copy_layered
from ..model.report import snippet
from ..model.detail import event_maps
from ..model.summary import call_id_of, light_event
from ..safety import one_line
from .export import save_event_json
from .messages import CopyDone, FilterReady, SearchDone
from .screens.checklist import ChecklistScreen, ten_minute_pass
from .screens.filter import FilterScreen
from .screens.prompt import PromptScreen
from .screens.report import ReportModal
from .views import RowSource, build_filter, filter_specs


class ExplorerActions:
    # -- jumping -------------------------------------------------------------------------------------
    def action_first_event(self) -> None:
        if self.log_ is not None:
            self.events.action_first()

    def action_last_event(self) -> None:
        if self.log_ is not None:
            self.events.action_last()

    def action_goto(self) -> None:
        if self.log_ is None:
            return

        def done(value: str | None) -> None:
            if value:
                seq = int(value)
                i = self.log_.index_of_seq(seq)
                if i is None:
                    self.notify(f"no event has seq {seq}", severity="warning", markup=False)
                    i = max(0, min(seq, len(self.log_) - 1))
                self.jump_to(i)
        self.push_screen(PromptScreen("go to seq: ", integer=True), done)

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

        def done(value: str | None) -> None:
            if value:
                self.needle = value
                self.search(value, self.current_index or 0, False)
        self.push_screen(PromptScreen("/", value=self.needle or "", placeholder="type, tool, callId or text"), done)

    def action_next_hit(self, direction: int) -> None:
        if self.needle and self.log_ is not None:
            self.search(self.needle, self.current_index or 0, direction < 0)
        else:
            self.action_finding(direction)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search(self, needle: str, start: int, backward: bool) -> None:
        log = self.log_
        hit = log.search(needle, start, backward=backward)
        wrapped = hit is None
        if hit is None and not backward:
            hit = log.search(needle, -1)
        elif hit is None:
            last = len(log) - 1
            if needle.lower().encode("utf-8", "replace") in log.record_bytes(log.res.ev_rec[last]).lower():
                hit = log._first_event_of_record(log.res.ev_rec[last], needle)
            else:
                hit = log.search(needle, last, backward=True)
        self.post_message(SearchDone(needle, hit, backward, wrapped))

    def on_search_done(self, message: SearchDone) -> None:
        if message.index is None:
            self.notify(f"not found: {one_line(message.needle, 80)}", severity="warning", markup=False)
            return
        self.jump_to(message.index)
        if message.wrapped:
            self.notify("search wrapped around", markup=False)

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
        text = snippet(self.log_, self.diag, finding)
        what = finding.kind if finding else "no failure"
        self.copy_worker(f"bug report: {what}", text, "bug-report")

    @work(thread=True, group="copy", exit_on_error=False)
    def copy_worker(self, title: str, text: str, stem: str) -> None:
        result = copy_layered(text, osc52=self._osc52, stem=stem, use_native=self.native_clipboard)
        self.post_message(CopyDone(title, text, result))

    def _osc52(self, text: str) -> None:
        self.call_from_thread(self.copy_to_clipboard, text)

    def on_copy_done(self, message: CopyDone) -> None:
        self.push_screen(ReportModal(message.title, message.text, message.result))

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
        self.copy_to_clipboard(cid)
        self.notify(f"copied callId {one_line(cid, 120)} (OSC 52)", markup=False)

    def action_save_event(self) -> None:
        cur = self.current_index
        if cur is None:
            return
        try:
            path = save_event_json(self.log_, cur)
        except OSError as exc:
            self.notify(one_line(f"could not save: {exc}", 300), severity="error", markup=False)
            return
        self.notify(f"saved the full event to {one_line(str(path), 300)}", markup=False, timeout=10)

    def action_checklist(self) -> None:
        if self.log_ is not None:
            self.push_screen(ChecklistScreen(ten_minute_pass(self.log_, self.diag)), self.jump_to)
