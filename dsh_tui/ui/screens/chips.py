"""ChipsScreen: the filter chips, one a line: space turns one on or off, delete removes it, esc or enter
closes (the list then shows what the chips leave)."""

from __future__ import annotations

from textual.app import ComposeResult
from ..keys import CHIPS_BINDINGS
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...model.presenting.filterstack import Chip
from .modal import Modal
from ..widgets.picklist import PickList


def chip_option(chip: Chip) -> Content:
    state = ("on ", "bold reverse") if chip.on else ("off", "dim")
    how = "show only" if chip.include else "hide"
    return Content.assemble(state, " ", (chip.label, "bold" if chip.on else "dim strike"), (f"  ({how})", "dim"))


class ChipsScreen(Modal["list[Chip] | None"]):
    DEFAULT_CSS = """
    ChipsScreen { align: center middle; }
    ChipsScreen > #chips-list { width: 70; max-width: 96%; height: auto; max-height: 90%;
                                border: round $accent; background: $surface; }
    """
    BINDINGS = CHIPS_BINDINGS

    def __init__(self, chips: list[Chip]) -> None:
        super().__init__()
        self.chips = list(chips)

    def compose(self) -> ComposeResult:
        ol = PickList(*(Option(chip_option(c)) for c in self.chips), id="chips-list")
        ol.border_title = "filters"
        ol.border_subtitle = "space on/off · del removes · esc closes"
        yield ol

    @property
    def options(self) -> OptionList:
        return self.query_one("#chips-list", OptionList)

    def action_toggle(self) -> None:
        k = self.options.highlighted
        if k is not None and k < len(self.chips):
            self.chips[k] = self.chips[k].toggled()
            self.options.replace_option_prompt_at_index(k, chip_option(self.chips[k]))

    def action_remove(self) -> None:
        ol = self.options
        k = ol.highlighted
        if k is not None and k < len(self.chips):
            del self.chips[k]
            ol.remove_option_at_index(k)
            if not self.chips:
                self.dismiss(self.chips)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.chips)

    def action_close(self) -> None:
        self.dismiss(self.chips)
