"""HeaderScreen: the session's whole header (model/presenting/headerview.py), scrollable, over the explorer.

The header bar cuts its lines at the terminal's width (a long cwd at 80 columns); this shows every field,
what the session is, dsh's refusal and the raw header line, wrapped in a detail pane of its own. ``y``
copies the raw header line through the explorer's one copy path (controllers/copy.py).
"""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content

from ...model.presenting.summary import Section
from ..keys import HEADER_SCREEN_BINDINGS
from ..widgets.detail import DetailView
from .modal import Modal


class HeaderScreen(Modal[None]):
    BINDINGS = HEADER_SCREEN_BINDINGS
    DEFAULT_CSS = """
    HeaderScreen { align: center middle; }
    HeaderScreen > #header-box {
        width: 100; max-width: 96%; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
        border-title-color: $text; border-title-style: bold; border-subtitle-color: $text-muted;
    }
    """

    def __init__(self, sections: list[Section], copy_line: Callable[[str], None] | None = None) -> None:
        """``copy_line``: what y does with the raw header line (the explorer's copy path; None: nothing)."""
        super().__init__()
        self.sections = sections
        self.copy_line = copy_line

    def compose(self) -> ComposeResult:
        with Vertical(id="header-box") as box:
            box.border_title = "the full header"
            box.border_subtitle = Content("y copies the raw header line · esc closes")
            view = DetailView(id="header-view")
            view.set_styles("border: none;")  # inline: the stylesheet gives every detail pane a top rule
            yield view

    def on_mount(self) -> None:
        view = self.query_one("#header-view", DetailView)
        view.set_sections(self.sections)
        view.focus()

    @property
    def raw_line(self) -> str:
        """The raw header line as the view shows it (sanitised, capped at 64 KiB)."""
        raw = next((s for s in self.sections if s.kind == "raw"), None)
        return raw.lines[0] if raw is not None and raw.lines else ""

    def action_copy_header(self) -> None:
        if self.copy_line is not None:
            self.copy_line(self.raw_line)

    def action_close(self) -> None:
        self.dismiss(None)
