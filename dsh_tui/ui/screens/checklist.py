"""The ten-minute pass as a checklist (model/presenting/checklist.py computes the steps); Enter jumps to its event."""

from __future__ import annotations

from textual.app import ComposeResult
from ..keys import CHECKLIST_BINDINGS
from textual.content import Content
from .modal import Modal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...model.presenting.checklist import Step, ten_minute_pass  # noqa: F401 (the screen shows these)
from ...safety import one_line
from ..nocolor import colourless
from ..widgets.hanging import HangingLines
from ..widgets.picklist import PickList

GLYPH = {"ok": ("✓", "bold $success"), "fail": ("✗", "bold $error"), "warn": ("!", "bold $warning"),
         "info": ("i", "bold $accent")}


INDENT = 6  # a step's lines, under its title's words


def step_content(step: Step, no_color: bool = False) -> HangingLines:
    """A step's title and its lines; a line too long for the width wraps under its own indent."""
    glyph, style = GLYPH[step.status]
    if no_color:  # bold, in the highlight bar's colours when highlighted (ui/nocolor.py)
        style = colourless(style)
    parts: list = [(f" {glyph} ", style), (f"{step.number}. {step.title}", "bold")]
    if step.index is not None:
        parts.append(("   ⏎ jump", "$text-muted"))
    return HangingLines(Content.assemble(*parts), [Content(one_line(str(line), 240)) for line in step.lines], INDENT)


class ChecklistScreen(Modal[int | None]):
    BINDINGS = CHECKLIST_BINDINGS

    def __init__(self, steps: list[Step]) -> None:
        super().__init__()
        self.steps = steps

    def compose(self) -> ComposeResult:
        options = PickList(*(Option(step_content(s, self.app.no_color), id=f"step-{s.number}") for s in self.steps),
                             id="checklist")
        options.border_title = "the ten-minute pass"
        options.border_subtitle = "enter jumps to the event · esc closes"
        yield options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        step = self.steps[event.option_index]
        if step.index is not None:
            self.dismiss(step.index)

    def action_close(self) -> None:
        self.dismiss(None)
