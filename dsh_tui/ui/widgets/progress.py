"""LoadBar: what the loader is doing, shown until the log is ready."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Label, ProgressBar

STAGES = {"decode": "decoding", "index": "indexing", "diagnose": "diagnosing"}


class LoadBar(Horizontal):
    DEFAULT_CSS = "LoadBar { height: 1; } LoadBar > Label { width: auto; }"

    _label = "reading"

    def compose(self) -> ComposeResult:
        yield Label(self._label, id="load-label")
        yield ProgressBar(total=None, show_eta=False, id="load-bar")

    def set_progress(self, stage: str, done: int, total: int) -> None:
        text = f"{STAGES.get(stage, stage)} "
        if text != self._label:  # a label update is a layout pass: only when the stage changes
            self._label = text
            self.query_one("#load-label", Label).update(Content(text))
        self.query_one("#load-bar", ProgressBar).update(total=max(total, 1), progress=min(done, total))
