"""SearchController: ``/``, ``\\`` and n/N. The needle, its direction, its hit lists (the newest few), and
the background scan.

The first search for a needle builds its hit list in a worker (group "search"); a newer needle cancels
it; n and N are then a bisect. The events pane title says "searching" meanwhile, then "k of n".

A search's direction is chosen as less does it, with a default for the crash a user walks back from:
on a log with a verdict, or with the cursor on the list's last screen, ``/`` searches backward (up)
from the cursor; ``\\`` searches the other way. n goes on in the search's direction, N the other way.
Chunk deltas of one content block count as one hit (model/presenting/hits.py).

ctrl+r in the search line switches between a literal needle (the default, case-insensitive) and a regex
with smart case (model/reading/query.py); the mode stays for the next ``/``. A pattern that does not
compile gives a one-line notice; one that runs past its time bound stops the scan with a notice.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from functools import partial
from typing import Any

from textual.content import Content
from textual.message import Message
from textual.worker import WorkerState, get_current_worker

from ...model.presenting.hits import collapse_chunk_runs, count_text
from ...model.reading.query import BadPattern, PatternTooSlow, Query, make_query
from ...model.reading.search import MAX_HITS, HitList, find_all
from ...model.reading.source import Cancelled
from ...safety import one_line
from .base import Controller
from .ports import SearchPort

SEARCH_LISTS = 4  # hit lists kept (the newest needles)


class SearchHits(Message):
    """Every hit of ``needle`` (a `Query`) in ``log`` (a `model.search.HitList`; None with ``error``), from the
    search worker."""

    def __init__(self, needle: Query, hits: Any, log: Any, error: BaseException | None = None) -> None:
        super().__init__()
        self.needle, self.hits, self.log, self.error = needle, hits, log, error


class SearchController(Controller):
    port: SearchPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("search",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self._needle: str | None = None
        self._hit_lists: OrderedDict[bytes, HitList] = OrderedDict()  # needle key -> hits in ``_hits_log``
        self._hits_log: weakref.ref | None = None
        self._searching: tuple[bytes, int] | None = None  # (needle key, direction) being scanned
        self.direction = 1  # the search's own direction (1 down, -1 up): n goes on in it, N the other way
        self.count: str | None = None  # "3 of 17" after a jump to a hit
        self.regex = False  # the prompt's mode (ctrl+r), kept for the next /
        self.query: Query | None = None  # the needle as searched (literal or regex)

    @property
    def needle(self) -> str | None:
        return self._needle

    @needle.setter
    def needle(self, value: str | None) -> None:
        """The text searched; set from outside (the benchmark), it is searched as a literal."""
        self._needle = value
        if value is None:
            self.query = None
        elif self.query is None or self.query.text != value:
            self.query = make_query(value)

    @property
    def searching(self) -> bool:
        return self._searching is not None

    def reset(self) -> None:
        super().reset()
        self.needle = None
        self.query = None
        self.count = None
        if self.port.is_open:
            self.highlight(None)
        self.direction = 1
        self._hit_lists.clear()
        self._searching = None

    # -- keys ---------------------------------------------------------------------------------
    def default_direction(self) -> int:
        """-1 (up) on a log with a verdict or with the cursor on the list's last screen, else 1 (down)."""
        port = self.port
        if port.diag is not None and port.diag.verdict is not None:
            return -1
        events = port.events
        rows = events.row_count()
        return -1 if rows and rows - events.cursor <= max(1, events.scrollable_content_region.height) else 1

    def ask(self, reverse: bool = False) -> None:
        """``/`` (the default direction) or ``\\`` (the other one): the prompt, its direction in its label."""
        if self.port.log_ is None:
            return
        direction = -self.default_direction() if reverse else self.default_direction()
        self.port.ask("search", *self._prompt(direction), partial(self.search_for, direction=direction),
                      placeholder=self._placeholder(direction), toggle=partial(self.toggle_regex, direction))

    def _prompt(self, direction: int) -> tuple[str]:
        return (("regex " if self.regex else "") + ("?" if direction < 0 else "/"),)

    def _placeholder(self, direction: int) -> str:
        way, other = ("up", "down") if direction < 0 else ("down", "up")
        what = "regex, smart case" if self.regex else "text, tool or callId"
        return f"{what} · {way} from here (\\ {other} · ctrl+r {'literal' if self.regex else 'regex'})"

    def toggle_regex(self, direction: int) -> tuple[str, str]:
        """ctrl+r in the search line: literal <-> regex; the new label and placeholder."""
        self.regex = not self.regex
        return self._prompt(direction)[0], self._placeholder(direction)

    def search_for(self, value: str | None, direction: int = 1) -> None:
        if value:
            try:
                query = make_query(value, self.regex)
            except BadPattern as exc:
                self.port.notify(one_line(str(exc), 200), severity="warning", markup=False)
                return
            self._needle, self.query = value, query
            self.direction = direction
            self.count = None
            self.highlight(query.shown)
            self.find_hit(direction)

    def highlight(self, pattern) -> None:
        """The matches styled in the list's rows and, when it can, the detail pane's (widgets/detail.py)."""
        port = self.port
        port.events.set_highlight(pattern)
        in_detail = getattr(port.detail, "set_highlight", None)
        if in_detail is not None:
            in_detail(pattern)

    def next_hit(self, direction: int) -> bool:
        """n/N: the next hit in the search's direction (N: the other way); False when there is no search
        (n and N then step through the findings)."""
        if not self.needle or self.port.log_ is None:
            return False
        self.find_hit(direction * self.direction)
        return True

    def find_hit(self, direction: int) -> None:
        """Jump to the next (previous) hit of ``needle``: a bisect once its hit list is built."""
        log, query = self.port.log_, self.query
        if log is None or query is None or not query.key:
            return
        key = query.key
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
        self.show_status(f"searching “{one_line(query.label, 40)}”…")
        self.run(partial(self._scan, log, query), "search", exclusive=True, description="search")

    def _hits_for(self, log) -> None:
        """Forget the hit lists (and a running scan) of another log (the browser opened a new one)."""
        if self._hits_log is None or self._hits_log() is not log:
            self._hit_lists.clear()
            self._hits_log = weakref.ref(log)
            if self._searching is not None:
                self._searching = None
                self.cancel()
                self.show_status(None)

    def _scan(self, log, needle: Query) -> None:  # in the worker's thread
        try:
            cancel = get_current_worker().cancelled_event
            what = needle if needle.regex else needle.text  # a literal: the text, as ever
            hits = collapse_chunk_runs(log, find_all(log, what, cancel=cancel), cancel=cancel)
        except Cancelled:
            return
        except Exception as exc:  # reported by hits_found, which also ends the "searching" state
            self.port.post_message(SearchHits(needle, None, log, error=exc))
            return
        self.port.post_message(SearchHits(needle, hits, log))

    # -- results ------------------------------------------------------------------------------
    def hits_found(self, message: SearchHits) -> None:
        port = self.port
        hits, key = message.hits, message.needle.key
        if port.log_ is None or message.log is not port.log_:
            return  # another log was opened meanwhile
        self._hits_for(port.log_)
        if hits is None:
            if self._searching is not None and self._searching[0] == key:
                self._searching = None
                self.show_status(None)
            err = message.error
            if isinstance(err, PatternTooSlow):
                if self.query is not None and self.query.key == key:  # n would only stall again
                    self.needle = None
                    self.highlight(None)
                    self.show_status(None)
                port.notify(one_line(f"the regex {message.needle.text} took too long on part of the log "
                                     "(nested repeats?): search stopped; try a simpler pattern", 300),
                           severity="warning", markup=False, timeout=8)
                return
            port.notify(one_line(f"search failed: {type(err).__name__}: {err}", 300), severity="error", markup=False)
            return
        self._hit_lists[key] = hits
        self._hit_lists.move_to_end(key)
        while len(self._hit_lists) > SEARCH_LISTS:
            self._hit_lists.popitem(last=False)
        if self._searching is None or self._searching[0] != key:
            return  # an older needle's list, kept for when it comes back
        direction = self._searching[1]
        self._searching = None
        self.show_status(None)
        if hits.capped:
            port.notify(f"more than {MAX_HITS:,} events hold “{one_line(message.needle.label, 40)}”: n and N "
                        f"visit the first {MAX_HITS:,}; a longer needle narrows it", severity="warning",
                        markup=False, timeout=8)
        if self.query is not None and self.query.key == key:
            self.jump_to_hit(hits, direction)

    def jump_to_hit(self, hits: HitList, direction: int) -> None:
        port = self.port
        if not len(hits):
            port.notify(f"not found: {one_line(hits.needle, 80)}", severity="warning", markup=False)
            return
        cur = port.current_index
        if cur is None:
            cur = -1 if direction >= 0 else len(port.log_)
        hit, wrapped = hits.step(cur, direction)
        port.jump_to(hit)
        self.count = count_text(hits, hit)
        self.show_status(None)
        if wrapped:
            port.notify("search wrapped around" + (" (within the first hits)" if hits.capped else ""), markup=False)

    def title_note(self) -> str:
        """What the events pane title says of the search: "/needle 3 of 17" (empty without a search)."""
        if not self.needle or self.count is None or self.query is None:
            return ""
        return f"{'/' if self.direction > 0 else '?'}{one_line(self.query.label, 36)} {self.count}"

    def show_status(self, text: str | None) -> None:
        """The events pane title (with the hit count), with ``text`` (e.g. "searching …") appended."""
        port = self.port
        port.set_events_title()
        if text:
            port.events.border_title = Content.assemble(port.events.border_title or "", (f" · {text}", "italic"))

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)
