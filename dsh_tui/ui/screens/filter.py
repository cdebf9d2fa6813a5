"""FilterScreen: pick which events the list shows."""

from __future__ import annotations

from textual.app import ComposeResult
from ..keys import FILTER_BINDINGS
from textual.content import Content
from .modal import Modal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ..views import FilterSpec
from ..widgets.picklist import PickList


class FilterScreen(Modal[str | None]):
    BINDINGS = FILTER_BINDINGS

    def __init__(self, specs: list[FilterSpec], current: str) -> None:
        super().__init__()
        self.specs, self.current = specs, current

    def compose(self) -> ComposeResult:
        options = []
        for spec in self.specs:
            mark = "● " if spec.key == self.current else "  "
            count = f"  ({spec.count:,})" if spec.count is not None else ""
            options.append(Option(Content.assemble(mark, (spec.label, "bold"), (count, "$text-muted")), id=spec.key))
        ol = PickList(*options, id="filter-list")
        ol.border_title = "show only"
        ol.border_subtitle = "enter picks · esc closes · F clears"
        yield ol

    def on_mount(self) -> None:
        found = self.query(OptionList)
        if not found:  # mounted as the app quits (q typed just before f): nothing was composed
            return
        ol = found.first()
        for k, spec in enumerate(self.specs):
            if spec.key == self.current:
                ol.highlighted = k

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
