"""LoadBar: what the loader is doing, shown until the log is ready."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

STAGES = {"decode": "decoding", "index": "indexing", "diagnose": "diagnosing"}


class LoadBar(Horizontal):
    DEFAULT_CSS = "LoadBar { height: 1; } LoadBar > Label { width: auto; }"

    def compose(self) -> ComposeResult:
        yield Label("reading", id="load-label")
        yield ProgressBar(total=None, show_eta=False, id="load-bar")

    def set_progress(self, stage: str, done: int, total: int) -> None:
        self.query_one("#load-label", Label).update(f"{STAGES.get(stage, stage)} ")
        self.query_one("#load-bar", ProgressBar).update(total=max(total, 1), progress=min(done, total))
