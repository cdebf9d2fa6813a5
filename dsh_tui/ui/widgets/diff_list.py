"""DiffList: one side of the diff view, a row per aligned row (model/diffing/compare.py), so the two
lists' rows line up: a gap (the row is on the other side only) is drawn as a gap, a changed row is
marked. The text of each row comes from the model (model/diffing/view.py), already sanitised."""

from __future__ import annotations

from rich.segment import Segment
from textual.message import Message

from ...model.diffing.compare import DiffResult
from ...model.diffing.view import MARKS, side_line
from .vlist import VirtualList


class DiffList(VirtualList):
    COMPONENT_CLASSES = {"diff--changed", "diff--only", "diff--gap", "diff--shared", "diff--turn"}
    DEFAULT_CSS = """
    DiffList { border: round $panel; }
    DiffList:focus { border: round $accent; }
    DiffList > .vlist--cursor { background: $accent 40%; }
    DiffList > .diff--changed { color: $warning; }
    DiffList > .diff--only { color: $error; }
    DiffList > .diff--gap { color: $text-disabled; }
    DiffList > .diff--shared { color: $text-muted; }
    DiffList > .diff--turn { text-style: bold; }
    """

    class Moved(Message):
        def __init__(self, source: DiffList, row: int) -> None:
            super().__init__()
            self.source, self.row = source, row

    def __init__(self, result: DiffResult, side: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result, self.side = result, side
        self.empty_text = "no turns"
        self._lines: dict[int, str] = {}

    def row_count(self) -> int:
        return len(self.result.rows)

    def line(self, k: int) -> str:
        text = self._lines.get(k)
        if text is None:
            text = self._lines[k] = side_line(self.result, k, self.side)
        return text

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        r = self.result.rows[row]
        text = self.line(row)
        if not text:
            return [Segment("  " + "·" * max(0, min(width - 2, 12)), self.style("diff--gap"))]
        mine = (r.state == "only_left") == (self.side == "left") if r.state.startswith("only") else True
        style = {"changed": "diff--changed", "shared": "diff--shared"}.get(r.state, "diff--only" if
                                                                         r.state.startswith("only") and mine else "")
        base = self.style(style) if style else self._base
        if r.kind != "call":
            base = base + self.style("diff--turn")
        indent = "" if r.kind != "call" else "  "
        return [Segment(f"{MARKS.get(r.state, ' ')} {indent}{text}"[:max(0, width)], base)]

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        self.post_message(self.Moved(self, row))
