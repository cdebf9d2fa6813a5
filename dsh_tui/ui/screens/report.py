"""ReportModal: what the copy key copied (exactly: masked, sanitised), where the file is, whether OSC 52 was sent."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from .modal import Modal
from textual.widgets import Static

from ...clipboard import TMUX_HINT
from ...safety import clean, one_line
from ..keys import REPORT_BINDINGS


def status_content(result, advice: str | None = TMUX_HINT, saved: bool = True) -> Content:
    """Masked or not, the file (``saved``: one was asked for), the clipboard, and ``advice`` on OSC 52
    (None: the terminal gives a sign it takes it, and five lines of advice would be noise)."""
    parts: list = []
    if not getattr(result, "masked", True):
        parts += [("UNMASKED: ", "bold $warning"), ("secrets are NOT masked in this copy", "$warning"), "\n"]
    if result.path is not None:
        parts += [("saved to ", "$text-muted"), (one_line(str(result.path), 300), "bold"), "\n"]
    elif saved:
        parts += [("could not write the report file", "bold $error"), "\n"]
    parts += [("clipboard: ", "$text-muted"),
              ("sent via OSC 52" if result.osc52 else "NOT sent via OSC 52 (see the file)", "bold"),
              (" (works only if your terminal allows it)" if result.osc52 else "", "$text-muted")]
    if result.native:
        parts += [" and ", (one_line(result.native, 40), "bold")]
    if advice:
        parts += ["\n", (one_line(advice, 300), "$text-muted")]
    notes = [n for n in result.notes if n != TMUX_HINT and not n.startswith(("Saved to", "Sent "))]
    for n in notes[:4]:
        parts += ["\n", (one_line(n, 300), "$text-muted")]
    return Content.assemble(*parts)


class ReportModal(Modal[None]):
    BINDINGS = REPORT_BINDINGS

    def __init__(self, title: str, text: str, result, kind: str = "snippet", *, advice: str | None = TMUX_HINT,
                 saved: bool = True) -> None:
        super().__init__()
        self.advice, self.saved = advice, saved
        # Show what was copied and saved (masked, sanitised), not the text handed to the copy.
        self.title_text, self.text, self.result = title, getattr(result, "text", "") or text, result
        self.kind = kind  # "snippet" | "markdown" | "permalink" | "raw"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="report-box") as box:
            box.border_title = Content(one_line(self.title_text, 80))
            other = "plain snippet" if self.kind == "markdown" else "markdown bug report (secrets masked)"
            box.border_subtitle = f"esc closes · m copies the {other}"
            yield Static(status_content(self.result, self.advice, self.saved), id="report-status")
            yield Static(Content(clean(self.text, max_chars=64 * 1024).expandtabs(4)), id="report-text")

    def action_switch(self) -> None:
        """Copy the other format of the report (the app builds it for the same finding)."""
        app = self.app
        action = "screen.do('copy-report')" if self.kind == "markdown" else "screen.do('copy-report-markdown')"
        if self.dismiss() is not None:  # None: dismissed already (screens/modal.py)
            app.call_later(app.run_action, action)
