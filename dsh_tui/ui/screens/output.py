"""OutputModal: what a command the view was piped to (``|``) printed, sanitised, with how it ended."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...safety import clean, one_line
from ..keys import OUTPUT_BINDINGS
from .modal import Modal


def ending_text(result) -> str:
    """How the command ended, in one line."""
    fed = f"{result.records:,} record{'s' if result.records != 1 else ''} on its stdin"
    if result.timed_out:
        return f"killed after its time limit · {fed}"
    if result.truncated:
        return f"output cut at {len(result.output):,} bytes (the command was stopped) · {fed}"
    return f"exit {result.returncode} · {fed}"


class OutputModal(Modal[None]):
    BINDINGS = OUTPUT_BINDINGS

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        r = self.result
        with VerticalScroll(id="report-box") as box:
            box.border_title = Content(one_line(f"| {r.command}", 80))
            box.border_subtitle = "esc closes"
            yield Static(Content(one_line(ending_text(r), 200)), id="report-status")
            text = r.output.decode("utf-8", "replace")
            yield Static(Content(clean(text, max_chars=64 * 1024).expandtabs(4) or "(no output)"), id="output-text")
