"""TimelineController: C shows the merged timeline of the session and its subagent children in the
events list's place (widgets/timeline.py), C again the events list. The children are the lineage's
(controllers/family.py, at most 64); a worker (group "timeline") reads each and merges them by time
(model/diagnosing/timeline.py). The detail pane follows the timeline's cursor; Enter on a child's row
opens the child at that event, on the session's own row goes to it in the events list.
"""

from __future__ import annotations

from functools import partial

from textual.content import Content
from textual.worker import WorkerState, get_current_worker

from ...model.diagnosing.timeline import Member, merge, session_tag
from ...model.presenting.detail import detail_sections
from ...model.presenting.summary import light_event, seed_boundary
from ...model.reading.source import Cancelled
from ...safety import one_line
from ...model.opening.target import OpenOptions, load_log
from ...sessions.targets import entry_target
from ..widgets.timeline import TimelineList
from .base import Controller
from .ports import TimelinePort


class TimelineController(Controller):
    port: TimelinePort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("timeline",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self.timeline = None  # the merged timeline of the session shown (kept while it is shown)
        self.shown = False
        self.children_failed = 0  # children that could not be read (left out)

    def reset(self) -> None:
        super().reset()
        self.timeline = None
        self.children_failed = 0
        if self.shown:
            self.hide()

    def widget(self) -> TimelineList | None:
        return self.port.timeline_list()

    def list_shown(self) -> TimelineList | None:
        return self.widget() if self.shown else None

    # -- toggling -----------------------------------------------------------------------------
    def toggle(self) -> None:
        if self.shown:
            self.hide()
            return
        port = self.port
        if port.log_ is None:
            return
        lineage = port.lineage
        if lineage is None:
            port.notify("still looking for this session's children…", markup=False)
            return
        if not lineage.children:
            port.notify("no subagent children of this session in its root: no timeline to merge", markup=False)
            return
        self.show()
        if self.timeline is None:
            self.run(partial(self._build, port.log_, list(lineage.children), port.max_plain, port.current_index),
                     "timeline", exclusive=True, description="timeline")
        else:
            self._place(port.current_index)

    def show(self) -> None:
        port = self.port
        tl = self.widget()
        if tl is None:
            tl = TimelineList(id="timeline")
            tl.on_cursor = self.cursor_moved
            port.mount_beside_events(tl)
        self.shown = True
        with port.batch_update():
            port.events.display = False
            tl.display = True
            self.set_title()
            tl.focus()

    def hide(self) -> None:
        port = self.port
        self.shown = False
        tl = self.widget()
        if tl is None:
            return
        with port.batch_update():
            tl.display = False
            port.events.display = True
            port.events.focus()
        port.redraw_detail()

    def set_title(self) -> None:
        tl = self.widget()
        if tl is None:
            return
        t = self.timeline
        if t is None:
            tl.border_title = "timeline · merging…"
            return
        kids = len(t.members) - 1
        text = (f"timeline · main + {kids} child{'ren' if kids != 1 else ''} · "
                f"{len(t):,} events{' (cut)' if t.truncated else ''}")
        if self.children_failed:
            text += f" · {self.children_failed} unreadable left out"
        if tl.shift:
            text += f" · text from col {tl.shift + 1} (< >)"
        tl.border_title = Content(text + " · C: events")

    # -- building -----------------------------------------------------------------------------
    def _build(self, log, children, max_plain, cursor) -> None:  # in the worker's thread
        cancel = get_current_worker().cancelled_event
        members = [Member(log, session_tag(log.session_id, 0), 0)]
        failed = 0
        for rel in children:
            if cancel.is_set():
                return
            target = entry_target(rel.entry)
            try:
                child = load_log(target, OpenOptions(max_plain=max_plain, cancel=cancel))
            except Cancelled:
                return
            except Exception:  # unreadable, rejected, too large: left out, counted in the title
                failed += 1
                continue
            seed = seed_boundary(child)
            members.append(Member(child, session_tag(child.session_id or rel.entry.session_id, rel.depth),
                                  rel.depth, target, 0 if seed is None else seed + 1))
        try:
            timeline = merge(members, cancel=cancel)
        except Cancelled:
            return
        start = _start_row(timeline, cursor)
        self.port.call_from_thread(self._ready, log, timeline, failed, start)

    def _ready(self, log, timeline, failed: int, start: int) -> None:
        if self.port.log_ is not log:
            return  # another session meanwhile
        self.timeline, self.children_failed = timeline, failed
        tl = self.widget()
        if tl is not None:
            tl.set_timeline(timeline, start)
        self.set_title()

    def _place(self, index) -> None:
        tl = self.widget()
        if tl is not None and self.timeline is not None:
            tl.set_timeline(self.timeline, _start_row(self.timeline, index))

    # -- the cursor and Enter -----------------------------------------------------------------
    def events_moved(self) -> None:
        """The hidden events list's cursor moved (a search hit, a seq, the verdict): the events list comes
        back, so what the key found is seen."""
        if self.shown:
            self.hide()

    def cursor_moved(self, row: int) -> None:
        """The detail pane shows the timeline's event (a child's without its diagnosis)."""
        port = self.port
        t = self.timeline
        if t is None or not self.shown or row >= len(t):
            return
        member, index = t.row(row)
        main = t.session[row] == 0
        ev = light_event(member.log, index)
        port.detail.set_sections(detail_sections(ev, member.log, port.diag if main else None))
        port.detail.border_title = Content(one_line(f"detail · {member.tag} · seq {ev.seq}", 60))
        port.detail_shown = None  # the events list's event is drawn again when the timeline closes

    def enter(self) -> bool:
        """Enter on the timeline: a child's row opens the child at that event; the session's own row goes
        to it in the events list. False when the timeline does not have the focus."""
        port = self.port
        tl = self.list_shown()
        if tl is None or port.focused is not tl or self.timeline is None or not len(self.timeline):
            return False
        member, index = self.timeline.row(tl.cursor)
        if member.target is None:
            self.hide()
            port.jump_to(index)
            return True
        seq = member.log.seq_of(index)
        self.hide()
        port.open_target(member.target, at_seq=seq)
        return True

    def worker_changed(self, event) -> None:
        if event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)



def _start_row(timeline, index) -> int:
    """The row of the session's own event ``index`` (the events list's cursor), else the first row."""
    row = timeline.row_of(0, index) if index is not None else None
    return row if row is not None else 0
