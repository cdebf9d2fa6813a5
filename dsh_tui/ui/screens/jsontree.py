"""JsonTreeScreen (J): the event under the cursor as a foldable JSON tree (model/presenting/jsontree.py),
with jless's keys: h / l fold and unfold, H / L fold all and unfold all under the cursor, j / k move, /
searches inside (folded nodes too), n the next hit. c copies the value, p its JSONPath, P a jq filter,
r the raw text of a string the tree shows parsed (byte for byte), over OSC 52 (controllers/copy.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from rich.segment import Segment
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from ...model.presenting.jsontree import JsonTree, dump
from ...safety import one_line
from .view import ViewScreen
from ..keys import JSON_TREE_BINDINGS, JSON_TREE_LIST_BINDINGS
from ..widgets.vlist import VirtualList

if TYPE_CHECKING:
    from ..controllers.copy import CopyRequest

INDENT_MAX = 40  # columns of indentation at most: a deep row shows its depth as a number past it


class TreeList(VirtualList):
    BINDINGS = VirtualList.BINDINGS + JSON_TREE_LIST_BINDINGS
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {"tree--key", "tree--count", "tree--parsed"}
    DEFAULT_CSS = """
    TreeList > .vlist--cursor { background: $accent 40%; }
    TreeList:focus > .vlist--cursor { background: $accent; color: $text; }
    TreeList > .tree--key { color: $primary; text-style: bold; }
    TreeList > .tree--count { color: $text-muted; }
    TreeList > .tree--parsed { color: $success; }
    """

    def __init__(self, tree: JsonTree, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.jtree = tree

    def row_count(self) -> int:
        return len(self.jtree.rows)

    def render_row(self, k: int, width: int, is_cursor: bool) -> list[Segment]:
        r = self.jtree.rows[k]
        depth = r.depth
        pad = "  " * depth if depth * 2 <= INDENT_MAX else " " * (INDENT_MAX - 8) + f"[{depth:>5}] "
        if r.more:
            return [Segment(pad + f"… {len(r.parent.value) - r.key:,} more (l shows the next page)",
                            self.style("tree--count"))]
        key = "" if r.key is None else (f"{r.key}: " if isinstance(r.key, int) else f"{one_line(r.key, 80)}: ")
        segs = [Segment(pad), Segment(key, self.style("tree--key"))]
        if r.container:
            sign = "▾ " if r.open else "▸ "
            kind = "{…}" if isinstance(r.value, dict) else "[…]"
            noun = "keys" if isinstance(r.value, dict) else "items"
            segs.insert(1, Segment(sign))
            segs.append(Segment(f"{kind if not r.open else ''} {r.count():,} {noun}".lstrip(), self.style("tree--count")))
            if r.parsed:
                segs.append(Segment("  (a JSON string, parsed: r copies its raw text)", self.style("tree--parsed")))
        else:
            text = dump(r.value) if not isinstance(r.value, str) or len(r.value) <= 1 << 16 else \
                dump(r.value[:1 << 16])  # the row shows its start; c copies it whole
            room = max(20, width - len(pad) - len(key))
            size = f"  ({len(r.value):,} chars)" if isinstance(r.value, str) and len(text) > room else ""
            segs.append(Segment(one_line(text, max(10, room - len(size)))))
            if size:
                segs.append(Segment(size, self.style("tree--count")))
        return segs

    def action_unfold(self) -> None:
        self.jtree.unfold(self.cursor)
        self.reset_rows()

    def action_fold(self) -> None:
        self.reset_rows(self.jtree.fold(self.cursor))

    def action_unfold_all(self) -> None:
        self.jtree.unfold_all(self.cursor)
        self.reset_rows()

    def action_fold_all(self) -> None:
        self.jtree.fold_all()
        self.reset_rows(0)


class JsonTreeScreen(ViewScreen[None]):
    BINDINGS = JSON_TREE_BINDINGS
    DEFAULT_CSS = """
    #tree-box { width: 100%; height: 100%; background: $surface; }
    #tree-head { height: 1; padding: 0 1; background: $panel; }
    #tree-list { padding: 0 1; }
    #tree-search { dock: bottom; display: none; }
    #tree-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self, value: Any, title: str, *, open_levels: int = 2,
                 copy: Callable[[CopyRequest], None] | None = None) -> None:
        """``copy``: what the copy keys hand their request to (the explorer's copy path; None: nothing)."""
        super().__init__()
        self.copy_to = copy
        self.jtree = JsonTree(value, open_levels=open_levels)
        self.title_text = title
        self.needle = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="tree-box"):
            yield Static(Content(one_line(self.title_text, 300)), id="tree-head")
            yield TreeList(self.jtree, id="tree-list")
            yield Input(placeholder="search keys and values", id="tree-search")
            yield Static(Content.assemble(("h l", "bold"), " fold/unfold  ", ("H L", "bold"), " all  ",
                                          ("/ n", "bold"), " search  ", ("c p P", "bold"), " copy value/path/jq  ",
                                          ("r", "bold"), " raw  ", ("esc", "bold"), " close"), id="tree-keys")

    @property
    def tree_list(self) -> TreeList:
        return self.query_one(TreeList)

    def on_mount(self) -> None:
        self.tree_list.reset_rows(0)
        self.tree_list.focus()

    def _row(self):
        rows = self.jtree.rows
        k = self.tree_list.cursor
        return rows[k] if 0 <= k < len(rows) and not rows[k].more else None

    def _copy(self, title: str, text: str) -> None:
        if self.copy_to is not None:
            from ..controllers.copy import CopyRequest
            self.copy_to(CopyRequest(title, text, "json", "json-tree", mask=False, window=False))

    def action_copy_value(self) -> None:
        r = self._row()
        if r is not None:
            self._copy("value", r.value if isinstance(r.value, str) else self.jtree.value_text(r))

    def action_copy_path(self) -> None:
        r = self._row()
        if r is not None:
            self._copy("JSONPath", self.jtree.json_path(r))

    def action_copy_jq(self) -> None:
        r = self._row()
        if r is not None:
            self._copy("jq path", self.jtree.jq_path(r))

    def action_copy_raw(self) -> None:
        r = self._row()
        if r is None or r.raw is None:
            self.app.notify("not a string holding JSON: c copies the value", markup=False)
            return
        self._copy("raw string", r.raw)

    def action_search(self) -> None:
        box = self.query_one("#tree-search", Input)
        box.display = True
        box.value = self.needle
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.display = False
        self.needle = event.value
        self.tree_list.focus()
        self.action_next_hit()

    def action_next_hit(self) -> None:
        if not self.needle:
            return
        hit = self.jtree.search(self.needle, self.tree_list.cursor)
        if hit is None:
            hit = self.jtree.search(self.needle, -1)  # wrap to the top
        if hit is None:
            self.app.notify(f"not found: {one_line(self.needle, 60)}", markup=False)
            return
        self.tree_list.reset_rows(hit)

    def action_close(self) -> None:
        box = self.query_one("#tree-search", Input)
        if box.display:
            box.display = False
            self.tree_list.focus()
            return
        self.dismiss(None)
