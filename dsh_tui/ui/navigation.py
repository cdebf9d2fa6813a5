"""Beyond one file (a mixin of ``ExplorerApp``): the session browser, parent/child, back, permalinks.

One App. Its default screen is the explorer; the session browser is an
installed `BrowserScreen` pushed on top of it, so backing out of the explorer
(``b``/esc) finds the browser with its cursor and filter as they were.
Opening another session (Enter in the browser, ``u`` parent, ``c`` children)
re-uses the explorer: the current one is remembered (log, diagnosis, cursor),
and back restores it without reading the file again.

After a log is shown, a thread worker looks for its family (`find_lineage`):
the header gains the lineage and child failures, NOT_IN_TOOL_SET findings get
linked to the child that calls the tool (`link_findings`), and Enter on such a
finding offers to open that child.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.content import Content
from textual.message import Message
from textual.worker import WorkerState, get_current_worker

from ..clipboard import copy_layered
from ..model.presenting.summary import END_SEED, seed_boundary
from ..sessions.targets import entry_target, split_target
from ..model.presenting.detail import event_maps
from ..model.diagnosing.lineage import find_lineage, link_findings, session_root
from ..model.presenting.report import bug_report_markdown, permalink
from ..model.presenting.summary import field_text, shown
from ..safety import one_line
from .screens.browser import BrowserScreen
from .screens.family import ChildrenScreen, ConfirmScreen
from .screens.report import ReportModal
from .widgets.header import short_id

DIM, KEY = "$text-muted", "bold"
LOUD_ERROR = "bold reverse $error"
BROWSER = "browser"


class TextCopied(Message):
    def __init__(self, kind: str, title: str, text: str, result) -> None:
        super().__init__()
        self.kind, self.title, self.text, self.result = kind, title, text, result


class LineageFound(Message):
    def __init__(self, log, lineage) -> None:
        super().__init__()
        self.log, self.lineage = log, lineage


@dataclass
class Place:
    """A session shown in the explorer, kept so back can restore it."""

    path: Path
    log: object
    diag: object
    lineage: object
    index: int | None
    following: bool


def _explorer_actions() -> frozenset[str]:
    from .keys import BINDINGS
    names = {b.action.split("(", 1)[0] for b in BINDINGS}
    return frozenset(names - {"quit"})


class NavigationMixin:
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.browse_root: Path | None = None  # set: start in the session browser on this root
        self.startup_notice: str | None = None
        self.history: list[Place] = []
        self.lineage = None
        self._browser_root: Path | None = None  # the installed browser's root
        self._explorer_actions: frozenset[str] | None = None

    # -- start ---------------------------------------------------------------------------------
    def show_browser(self, root: Path | None = None) -> None:
        """Push the session browser (installing it on first use) on top of the explorer."""
        root = Path(root or self.browse_root)
        if self._browser_root is not None and self._browser_root != root:
            self.uninstall_screen(BROWSER)
            self._browser_root = None
        if self._browser_root is None:
            self.install_screen(BrowserScreen(root), BROWSER)
            self._browser_root = root
        self.push_screen(BROWSER)
        self.refresh_bindings()

    def browser_active(self) -> bool:
        return any(isinstance(s, BrowserScreen) for s in self.screen_stack)

    def on_mount(self) -> None:
        if self.startup_notice:
            self.notify(one_line(self.startup_notice, 300), markup=False, timeout=10)

    # -- keys that depend on where we are -------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if self._explorer_actions is None:
            self._explorer_actions = _explorer_actions()
        if (action in self._explorer_actions or action == "try_back") and self.browser_active():
            return False  # the browser's keys only; the explorer's wait until a session is open
        if action == "back":  # shown in the footer only when there is somewhere to go back to;
            return True if self.can_go_back() else False  # else b/esc fall through to try_back
        return super().check_action(action, parameters)

    def can_go_back(self) -> bool:
        if self.history or self._browser_root is not None or self.browse_root is not None:
            return True
        path, member = split_target(self.path)
        return member is None and session_root(path) is not None

    # -- opening sessions --------------------------------------------------------------------------
    def on_browser_screen_open(self, message: BrowserScreen.Open) -> None:
        target = entry_target(message.entry)
        self.history.clear()
        self.pop_screen()
        if self.log_ is not None and Path(target) == self.path:
            return  # the session already shown: keep its place
        self.open_target(target, remember=False)

    def current_place(self) -> Place | None:
        if self.log_ is None:
            return None
        return Place(self.path, self.log_, self.diag, self.lineage, self.current_index, self.following)

    def open_target(self, path: Path, *, at_seq: int | None = None, remember: bool = True) -> None:
        """Show another session in the explorer (remembering the current one for back)."""
        if remember:
            place = self.current_place()
            if place is not None:
                self.history.append(place)
        self._reset_explorer(Path(path), at_seq)
        self.load()

    def _reset_explorer(self, path: Path, at_seq: int | None) -> None:
        self.stop_follow()
        self.cancel_event.set()
        self.cancel_event = threading.Event()
        self.path, self.at_seq = path, at_seq
        self.log_ = self.diag = None
        self.lineage = None
        self.finding_indices = []
        self.needle = None
        for group in ("load", "search", "filter", "follow", "lineage"):  # nothing of the old session lands
            self.workers.cancel_group(self, group)
        hit_lists = getattr(self, "_hit_lists", None)  # search hit lists of the old log (ui/actions.py)
        if hit_lists is not None:
            hit_lists.clear()
        if hasattr(self, "_searching"):
            self._searching = None
        self.detail_shown = self._detail_index = None
        self.load_finished = False
        self.following = True
        self.sub_title = ""
        from .widgets.progress import LoadBar
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
        self._reset_explorer(place.path, None)
        self.lineage = place.lineage
        self.following = place.following
        if place.index is not None and place.index < len(place.log):
            self.at_seq = place.log.seq_of(place.index)
        self.show_log(place.log, place.diag)
        self.after_log_shown()

    def action_try_back(self) -> None:
        """The palette's Back: back, or say there is nowhere to go (b/esc: screens/main.py)."""
        self.action_back()

    def action_back(self) -> None:
        if not self.load_finished:  # still reading: stop, so no error screen pops up later
            self.cancel_event.set()
            self.workers.cancel_group(self, "load")
        if self.history:
            self.restore_place(self.history.pop())
            return
        if self._browser_root is None and self.browse_root is None:
            path, member = split_target(self.path)
            root = session_root(path) if member is None else None
            if root is None:
                self.notify("nothing to go back to: this log is not in a dsh session root (q quits)", markup=False)
                return
            self.browse_root = root
        self.show_browser(self._browser_root or self.browse_root)

    # -- after a log is shown ------------------------------------------------------------------------
    def on_worker_state_changed(self, event) -> None:
        worker = event.worker
        if event.state != WorkerState.SUCCESS:
            return
        if worker.group == "load":  # ExplorerApp's own handler ran first (MRO) and showed the log
            self.after_log_shown()

    def after_log_shown(self) -> None:
        log = self.log_
        if log is None or not self.screen_stack:  # not shown, or the app is closing
            return
        self.events.set_seed_end(seed_boundary(log))
        self.update_extras()
        self.start_follow()
        if self.lineage is None:
            self.lineage_worker(log)
        else:
            link_findings(self.diag.findings, self.lineage)

    @work(thread=True, exclusive=True, group="lineage", exit_on_error=False)
    def lineage_worker(self, log) -> None:
        worker = get_current_worker()
        lineage = find_lineage(log.path, log.session_id, cancel=worker.cancelled_event, max_plain=self.max_plain)
        if not worker.is_cancelled:
            self.post_message(LineageFound(log, lineage))

    def on_lineage_found(self, message: LineageFound) -> None:
        if self.log_ is None or message.log.path != self.log_.path or not self.screen_stack:
            return  # another session (a re-open of this one is the same), or closing
        self.lineage = message.lineage
        link_findings(self.diag.findings, self.lineage)
        self.update_extras()
        self.detail_shown = None  # a finding's message may now name the child
        self.flush_detail()

    def update_extras(self) -> None:
        header = self.query_one("#header")
        if self.log_ is None:
            header.set_extra(None, [])
            return
        header.set_extra(self.follow_state(), family_lines(self.log_, self.lineage, self.events.seed_end))

    # -- parent and children -------------------------------------------------------------------------
    def action_parent(self) -> None:
        log = self.log_
        if log is None:
            return
        parent_id = log.header.get("parentSession")
        if self.lineage is None:
            self.notify("still looking for this session's family…", markup=False)
        elif self.lineage.parent is not None:
            self.open_target(entry_target(self.lineage.parent))
        elif parent_id:
            self.notify(one_line(f"parent session {parent_id} is not in this root", 200), severity="warning",
                        markup=False)
        else:
            self.notify("a top-level session: no parent", markup=False)

    def action_children(self) -> None:
        if self.log_ is None:
            return
        if self.lineage is None:
            self.notify("still looking for delegated children…", markup=False)
            return
        if not self.lineage.children:
            self.notify("no delegated children of this session in its root", markup=False)
            return

        def chosen(rel) -> None:
            if rel is not None:
                self.open_target(entry_target(rel.entry))
        self.push_screen(ChildrenScreen(self.lineage.children, self.lineage.truncated), chosen)

    def offer_child(self) -> bool:
        """Enter on a NOT_IN_TOOL_SET finding linked to a child: offer to open the child."""
        cur = self.current_index
        if cur is None or self.diag is None or self.lineage is None:
            return False
        linked = [f for f in event_maps(self.diag)[1].get(cur, [])
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
                self.open_target(entry_target(rel.entry))
        self.push_screen(ConfirmScreen("NOT_IN_TOOL_SET", question), answered)
        return True

    # -- copy: permalink, markdown report ----------------------------------------------------------------
    def action_permalink(self) -> None:
        cur = self.current_index
        if cur is None or self.log_ is None:
            return
        link = permalink(self.log_, self.log_.seq_of(cur))
        self.key_gate.expect_modal()  # the keys typed meanwhile are for its window (ui/keygate.py)
        self.copy_text_worker("permalink", f"permalink {link}", link, "permalink")

    def action_copy_report_markdown(self) -> None:
        if self.log_ is None:
            return
        at_cursor = getattr(self, "finding_at_cursor", None)
        finding = (at_cursor() if at_cursor else None) or self.diag.verdict
        text = bug_report_markdown(self.log_, self.diag, finding)
        what = finding.kind if finding else "no failure"
        self.key_gate.expect_modal()
        self.copy_text_worker("markdown", f"markdown bug report: {what}", text, "bug-report")

    @work(thread=True, group="copy", exit_on_error=False)
    def copy_text_worker(self, kind: str, title: str, text: str, stem: str) -> None:
        result = copy_layered(text, osc52=self._copy_osc52, stem=stem, use_native=self.native_clipboard,
                              suffix=".md" if kind == "markdown" else ".txt")
        self.post_message(TextCopied(kind, title, text, result))

    def _copy_osc52(self, text: str) -> None:
        self.call_from_thread(self.copy_to_clipboard, text)

    def on_text_copied(self, message: TextCopied) -> None:
        if not self.screen_stack:
            return
        self.push_screen(ReportModal(message.title, message.text, message.result, kind=message.kind))
        self.key_gate.modal_done()


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
