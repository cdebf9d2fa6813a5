"""PairsPane: call -> result, command run -> done, approval asked -> decided, newest first."""

from __future__ import annotations

from rich.segment import Segment
from textual.message import Message

from ...model.presenting.summary import shown
from ...safety import one_line
from ..messages import PairHighlighted
from .vlist import VirtualList

STATUS_CLASS = {
    "paired": "pairs--paired",
    "error": "pairs--error",
    "TOOL_NOT_STARTED": "pairs--not-started",
    "TOOL_OUTCOME_UNKNOWN": "pairs--unknown",
}
ROLES = {"tool": ("ask", "call", "result"), "command": ("", "run", "done"), "approval": ("", "asked", "decided")}


def pair_seqs(p) -> str:
    """``ask 318 → call 319 → result ?`` in the pair's own vocabulary."""
    ask, open_, close = ROLES.get(p.kind, ("", "open", "close"))
    out = []
    if ask and ask in p.seqs:
        out.append(f"{ask} {p.seqs[ask]}")
    out.append(f"{open_} {p.seqs.get(open_, '—')}")
    out.append(f"{close} {p.seqs.get(close, '?')}")
    return " → ".join(out)


class PairsPane(VirtualList):
    class Shown(Message):
        """The pane was shown (``shown``) or hidden: the narrow layout's P, or a resize across it."""

        def __init__(self, shown: bool) -> None:
            super().__init__()
            self.shown = shown

    COMPONENT_CLASSES = {"pairs--paired", "pairs--error", "pairs--not-started", "pairs--unknown",
                         "pairs--other", "pairs--key", "pairs--dim"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.pairs: list = []
        self._rows: dict[int, tuple[str, str, str, str, str, str]] = {}
        self.empty_text = "no calls, commands or approvals"

    def on_show(self) -> None:
        self.post_message(self.Shown(True))

    def on_hide(self) -> None:
        self.post_message(self.Shown(False))

    def set_pairs(self, pairs: list) -> None:
        self.pairs = pairs
        self._rows = {}
        self.reset_rows(0)

    def row_count(self) -> int:
        return len(self.pairs)

    @property
    def pair(self):
        return self.pairs[self.cursor] if self.pairs and self.cursor < len(self.pairs) else None

    def row_text(self, row: int) -> tuple[str, str, str, str, str, str]:
        hit = self._rows.get(row)
        if hit is None:
            p = self.pairs[row]
            status = p.status + (" (repaired)" if p.repaired else "")
            hit = (one_line(status, 40), p.kind, one_line(shown(p.key), 60), one_line(shown(p.name), 40),
                   one_line(pair_seqs(p), 80), one_line(p.detail or p.result or "", 200))
            self._rows[row] = hit
        return hit

    def row_plain(self, row: int) -> str:
        return "  ".join(self.row_text(row))

    def cursor_moved(self, row: int, jump: bool = False) -> None:
        if self.pairs:
            self.post_message(PairHighlighted(row))

    def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
        status, kind, key, name, seqs, detail = self.row_text(row)
        p = self.pairs[row]
        st = self.style
        return [
            Segment(f"{status:<21} ", st(STATUS_CLASS.get(p.status, "pairs--other"))),
            Segment(f"{kind:<8} ", st("pairs--dim")),
            Segment(key, st("pairs--key")),
            Segment(f" {name}  "),
            Segment(seqs, st("pairs--dim")),
            Segment(f"  {detail}"),
        ]
