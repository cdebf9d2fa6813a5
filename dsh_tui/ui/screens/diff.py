"""DiffScreen (`dsh-tui diff A B`): two event lists side by side with aligned rows, stacked when the
terminal is narrow (under STACK_BELOW columns), and under them the detail of the row under the cursor:
the two arguments, results or prompts as a diff. Moving in either list moves both cursors; n / N go
to the next / previous difference; the cursor starts on the first divergence. Everything shown is
computed by the model (model/diffing/); this screen lays it out."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ...model.diffing.compare import DiffResult
from ...model.diffing.view import detail, headline
from ...safety import one_line
from ..keys import DIFF_BINDINGS
from ..widgets.diff_list import DiffList
from ..widgets.footer import StableFooter

STACK_BELOW = 120  # columns: narrower, the two lists are stacked (two 60-column lists cut every row)
LINE_STYLES = (("+++", "bold $success"), ("---", "bold $error"), ("@@", "$accent"), ("+", "$success"), ("-", "$error"))


def detail_content(text: str) -> Content:
    """The detail text (sanitised by the model) with a diff's added and removed lines coloured."""
    parts: list = []
    for k, line in enumerate(text.split("\n")):
        style = "bold" if k == 0 else next((s for p, s in LINE_STYLES if line.startswith(p)), "")
        parts.append((line + "\n", style) if style else line + "\n")
    return Content.assemble(*parts)


class DiffScreen(Screen[None]):
    BINDINGS = DIFF_BINDINGS
    DEFAULT_CSS = """
    DiffScreen { layout: vertical; }
    #diff-head { height: 2; padding: 0 1; background: $panel; }
    #diff-sides { height: 1fr; layout: horizontal; }
    #diff-sides.stacked { layout: vertical; }
    DiffScreen.narrow #diff-head { display: none; }
    #diff-sides DiffList { width: 1fr; height: 1fr; }
    #diff-detail { height: 40%; border: round $panel; padding: 0 1; }
    #diff-detail:focus { border: round $accent; }
    """

    def __init__(self, result: DiffResult, left_log=None, right_log=None, *, start_row: int | None = None) -> None:
        super().__init__()
        self.result, self.left_log, self.right_log = result, left_log, right_log
        self.start_row = result.first if start_row is None else start_row

    def compose(self) -> ComposeResult:
        r = self.result
        yield Static(Content(one_line(f"left  {r.left.label}", 400) + "\n" + one_line(f"right {r.right.label}", 400)),
                     id="diff-head")
        with Container(id="diff-sides"):
            left = DiffList(r, "left", id="diff-left")
            left.border_title = one_line(" ".join(filter(None, ("left:", r.left.session_id or r.left.label, r.left.run))), 80)
            right = DiffList(r, "right", id="diff-right")
            right.border_title = one_line(" ".join(filter(None, ("right:", r.right.session_id or r.right.label,
                                                                  r.right.run))), 80)
            yield left
            yield right
        with VerticalScroll(id="diff-detail", can_focus=True) as box:
            box.border_title = one_line(headline(r), 200)
            yield Static(id="diff-detail-text")
        yield StableFooter()

    def on_mount(self) -> None:
        self._layout_for(self.app.size.width)
        left = self.query_one("#diff-left", DiffList)
        left.reset_rows()
        self.query_one("#diff-right", DiffList).reset_rows()
        left.focus()
        self.go(self.start_row or 0)

    def on_resize(self) -> None:
        self._layout_for(self.app.size.width)

    def _layout_for(self, width: int) -> None:
        self.query_one("#diff-sides").set_class(width < STACK_BELOW, "stacked")
        self.set_class(width < STACK_BELOW, "narrow")  # the lists' titles name the sides: no head

    # -- moving ------------------------------------------------------------------------------------
    def go(self, row: int) -> None:
        """Both lists' cursors to ``row`` (centred), and its detail."""
        for lst in self.query(DiffList):
            lst.move_to(row, center=True)
        self.show_detail(row)

    @on(DiffList.Moved)
    def _follow(self, event: DiffList.Moved) -> None:
        for lst in self.query(DiffList):
            if lst is not event.source and lst.cursor != event.row:
                lst.move_to(event.row)
        self.show_detail(event.row)

    def show_detail(self, row: int) -> None:
        if not self.result.rows:
            return
        text = detail(self.result, max(0, min(row, len(self.result.rows) - 1)), self.left_log, self.right_log)
        self.query_one("#diff-detail-text", Static).update(detail_content(text))
        self.query_one("#diff-detail", VerticalScroll).scroll_home(animate=False)

    def _cursor(self) -> int:
        return self.query_one("#diff-left", DiffList).cursor

    # -- actions (ui/keys.py's DIFF_BINDINGS) --------------------------------------------------------
    def action_difference(self, direction: int) -> None:
        diffs, at = self.result.differences, self._cursor()
        ahead = [k for k in diffs if (k > at if direction > 0 else k < at)]
        if not ahead:
            self.app.notify("no more differences " + ("below" if direction > 0 else "above"), timeout=3)
            return
        self.go(ahead[0] if direction > 0 else ahead[-1])

    def action_first_divergence(self) -> None:
        if self.result.first is None:
            self.app.notify("the runs did the same calls with the same outcomes", timeout=3)
            return
        self.go(self.result.first)

    def action_help(self) -> None:
        from ..keydocs import diff_help
        from .help import HelpScreen
        keymap = getattr(self.app, "keymap_in_effect", {})
        self.app.push_screen(HelpScreen(diff_help(keymap)))

    def action_quit(self) -> None:
        self.app.exit()

    def action_copy_diff(self) -> None:
        self._copy()

    @work(thread=True, exclusive=True, group="diff-copy")
    def _copy(self) -> None:
        from ...clipboard import copy_layered
        from ...model.diffing.report import diff_text
        app = self.app
        res = copy_layered(diff_text(self.result, markdown=True), stem="dsh-diff",
                           osc52=lambda text: app.call_from_thread(app.copy_to_clipboard, text),
                           use_native=getattr(self.app, "native_clipboard", True), suffix=".md")
        self.app.call_from_thread(self.app.notify, one_line(" ".join(res.notes[:2]), 300), timeout=6)
