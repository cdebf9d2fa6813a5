"""FamilyController: a session's family. After a log is shown a thread worker (group "lineage") looks for it
(`find_lineage`): the header gains the lineage and child failures, NOT_IN_TOOL_SET findings get linked to
the child that calls the tool (`link_findings`), and Enter on such a finding offers to open that child.
``u`` opens the parent, ``c`` picks a delegated child.
"""

from __future__ import annotations

from functools import partial

from textual.content import Content
from textual.message import Message
from textual.worker import get_current_worker

from ...model.sessions.lineage import find_lineage, link_findings
from ...model.presenting.detail import event_maps
from ...model.presenting.summary import END_SEED, field_text, shown
from ...safety import one_line
from ...sessions.targets import entry_target
from ..screens.family import ChildrenScreen, ConfirmScreen
from ..widgets.header import short_id
from .base import Controller, SessionChanged
from .ports import FamilyPort

DIM, KEY = "$text-muted", "bold"
LOUD_ERROR = "bold reverse $error"


class LineageFound(Message):
    def __init__(self, log, lineage) -> None:
        super().__init__()
        self.log, self.lineage = log, lineage


class FamilyController(Controller):
    port: FamilyPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("lineage",)

    def __init__(self, port) -> None:
        super().__init__(port)
        self.lineage = None  # found (a `Lineage`), or None while looking

    def reset(self) -> None:
        super().reset()
        self.lineage = None

    def restore(self, lineage) -> None:
        """Back restored a session: its family as it was found."""
        self.lineage = lineage

    def session_changed(self, change: SessionChanged) -> None:
        if change.how == "shown":
            self.log_shown(change.log)
        elif change.how == "grown":
            self.log_changed(change.diag, replaced=change.replaced)

    # -- looking ------------------------------------------------------------------------------------
    def log_shown(self, log) -> None:
        """A log is shown: link its findings to the family known already (back restored it), else look for it."""
        if self.lineage is None:
            self.look_up(log)
        else:
            link_findings(self.port.diag.findings, self.lineage)

    def log_changed(self, diag, *, replaced: bool) -> None:
        """Live follow read more (or a replaced file): link the new findings, or forget the old file's family."""
        if replaced:
            self.lineage = None  # the old file's family; looked up again for the new one
            self.look_up(self.port.log_)
        elif self.lineage is not None:
            link_findings(diag.findings, self.lineage)

    def look_up(self, log) -> None:
        self.run(partial(self._find, log, self.port.max_plain), "lineage", exclusive=True)

    def _find(self, log, max_plain) -> None:  # in the worker's thread
        worker = get_current_worker()
        lineage = find_lineage(log.path, log.session_id, cancel=worker.cancelled_event, max_plain=max_plain)
        if not worker.is_cancelled:
            self.port.post_message(LineageFound(log, lineage))

    def found(self, message: LineageFound) -> None:
        port = self.port
        if port.log_ is None or message.log.path != port.log_.path or not port.is_open:
            return  # another session (a re-open of this one is the same), or closing
        self.lineage = message.lineage
        link_findings(port.diag.findings, self.lineage)
        port.update_extras()
        port.redraw_detail()  # a finding's message may now name the child

    def header_lines(self) -> list[list]:
        port = self.port
        return family_lines(port.log_, self.lineage, port.events.seed_end)

    # -- parent and children -------------------------------------------------------------------------
    def parent(self) -> None:
        port = self.port
        log = port.log_
        if log is None:
            return
        parent_id = log.header.get("parentSession")
        if self.lineage is None:
            port.notify("still looking for this session's family…", markup=False)
        elif self.lineage.parent is not None:
            port.open_target(entry_target(self.lineage.parent))
        elif parent_id:
            port.notify(one_line(f"parent session {parent_id} is not in this root", 200), severity="warning",
                        markup=False)
        else:
            port.notify("a top-level session: no parent", markup=False)

    def children(self) -> None:
        port = self.port
        if port.log_ is None:
            return
        if self.lineage is None:
            port.notify("still looking for delegated children…", markup=False)
            return
        if not self.lineage.children:
            port.notify("no delegated children of this session in its root", markup=False)
            return

        def chosen(rel) -> None:
            if rel is not None:
                port.open_target(entry_target(rel.entry))
        port.push_screen(ChildrenScreen(self.lineage.children, self.lineage.truncated), chosen)

    def offer_child(self) -> bool:
        """Enter on a NOT_IN_TOOL_SET finding linked to a child: offer to open the child."""
        port = self.port
        cur = port.current_index
        if cur is None or port.diag is None or self.lineage is None:
            return False
        linked = [f for f in event_maps(port.diag)[1].get(cur, [])
                  if f.kind == "NOT_IN_TOOL_SET" and f.child_session]
        if not linked:
            return False
        f = linked[0]
        rel = next((c for c in self.lineage.children if c.entry.session_id == f.child_session), None)
        if rel is None:
            return False
        question = Content.assemble(
            (one_line(shown(f.name), 60), KEY), " is not in this session's tool set;\nthe delegated child ",
            (one_line(f.child_session, 80), KEY), " calls it.\n\nOpen the child session? ",
            ("enter", KEY), " opens, ", ("esc", KEY), " stays, ", ("b", KEY), " comes back.")

        def answered(yes: bool | None) -> None:
            if yes:
                port.open_target(entry_target(rel.entry))
        port.push_screen(ConfirmScreen("NOT_IN_TOOL_SET", question), answered)
        return True


def family_lines(log, lineage, seed_end: int | None) -> list[list]:
    """Header lines: lineage (parent, depth, seedLength, children, the seed boundary) and child failures.

    The parent id is cut in the middle (the full id is on the DELEGATED badge above) and the long
    seed-boundary text comes last, so depth, seedLength and the family badge fit in 80 columns.
    """
    h = log.header
    parent_id = h.get("parentSession")
    seed_len = h.get("seedLength")
    parts: list = []
    if parent_id or (lineage is not None and lineage.parent is not None):
        where = "" if lineage is None else "" if lineage.parent is not None else " (not in this root)"
        parts += [("fork of " if h.forked else "parent ", DIM), (short_id(field_text(h.raw, "parentSession")), KEY),
                  (where, DIM),
                  (" ⟨u⟩" if lineage is not None and lineage.parent is not None else "", DIM), "  "]
        parts += [("depth ", DIM), (one_line(field_text(h.raw, "delegationDepth"), 8), KEY), "  "]
    if seed_len is not None:
        parts += [("seedLength ", DIM), (one_line(shown(seed_len), 12), KEY), "  "]
    if lineage is not None and lineage.children:
        direct = sum(1 for c in lineage.children if c.depth == 1)
        n = len(lineage.children)
        text = f"{direct} child{'ren' if direct != 1 else ''}" + (f", {n} descendants" if n != direct else "")
        parts += [("family ", DIM), (text + ("+" if lineage.truncated else ""), KEY), (" ⟨c⟩", DIM), "  "]
    if lineage is not None and lineage.forks:
        parts += [("forks ", DIM), (str(len(lineage.forks)), KEY), "  "]
    if seed_end is not None:
        at = log.seq_of(seed_end)
        whose = ("this session's earlier runs (dsh resumed it here)" if h.seed_length is None or at > h.seed_length
                 else "the parent's history" if h.delegated else "the fork source's history")
        parts += [(f"{END_SEED} ", DIM), (f"at seq {at:,}: the {seed_end:,} event{'s' if seed_end != 1 else ''} before "
                                          f"it are {whose} ┊", KEY), "  "]
    out: list[list] = []
    if parts:
        out.append(parts)
    if lineage is not None:
        failed = lineage.failures()
        line: list = []
        for rel in failed[:2]:
            e = rel.entry
            line += [(f" child {one_line(e.display_id, 60)} failed: {one_line(e.verdict_kind, 40)} ", LOUD_ERROR),
                     " "]
            if e.verdict_call_id:
                line += [(one_line(e.verdict_call_id, 60), KEY), "  "]
        if len(failed) > 2:
            line += [(f"+{len(failed) - 2} more failed children ⟨c⟩", DIM)]
        if line:
            out.append(line)
    return out
