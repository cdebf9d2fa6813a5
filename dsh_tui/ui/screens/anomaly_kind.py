"""AnomalyKindScreen: pick which kind of anomaly e / E step through (a), each kind with its count."""

from __future__ import annotations

from textual.app import ComposeResult
from ..keys import ANOMALY_KIND_BINDINGS
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...model.presenting.timing_view import KIND_NAMES
from .modal import Modal
from ..widgets.picklist import PickList


def kind_label(kind: str, stall_ms: int) -> str:
    name = KIND_NAMES[kind]
    return f"{name} (a gap over {stall_ms / 1000:g} s between a call's outputs)" if kind == "stall" else name


class AnomalyKindScreen(Modal[str | None]):
    BINDINGS = ANOMALY_KIND_BINDINGS
    DEFAULT_CSS = """
    AnomalyKindScreen { align: center middle; }
    #anomaly-kinds { width: 72; max-width: 96%; height: auto; max-height: 90%;
                     border: round $accent; background: $surface; }
    """

    def __init__(self, counts: dict[str, int], current: str, stall_ms: int) -> None:
        super().__init__()
        self.counts, self.current, self.stall_ms = counts, current, stall_ms

    def compose(self) -> ComposeResult:
        options = []
        for kind, n in self.counts.items():
            mark = "● " if kind == self.current else "  "
            style = "bold" if n else "$text-muted"
            options.append(Option(Content.assemble(mark, (f"{n:>6,}  ", style), (kind_label(kind, self.stall_ms), style)),
                                  id=kind))
        ol = PickList(*options, id="anomaly-kinds")
        ol.border_title = "e / E step through"
        ol.border_subtitle = "enter picks · esc closes"
        yield ol

    def on_mount(self) -> None:
        found = self.query(OptionList)
        if not found:  # mounted as the app quits: nothing was composed
            return
        ol = found.first()
        ol.highlighted = list(self.counts).index(self.current) if self.current in self.counts else 0
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
