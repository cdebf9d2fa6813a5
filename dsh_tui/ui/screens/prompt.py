"""PromptScreen: one line of input at the bottom (goto seq, search)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class PromptScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, label: str, *, value: str = "", integer: bool = False, placeholder: str = "") -> None:
        super().__init__()
        self.label, self.value, self.integer, self.placeholder = label, value, integer, placeholder

    def compose(self) -> ComposeResult:
        with Horizontal(id="prompt-bar"):
            yield Label(self.label, id="prompt-label", markup=False)
            yield Input(self.value, placeholder=self.placeholder, restrict=r"[0-9]*" if self.integer else None,
                        id="prompt-input", select_on_focus=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
