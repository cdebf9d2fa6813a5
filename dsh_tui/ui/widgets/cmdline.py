"""CommandLine: a one-line prompt docked at the bottom of the main screen (like vim's).

It lies over the footer while it is open, docked on the same line, so nothing
else moves: opening and closing repaint one line (a modal screen would dim and
then repaint the whole screen: ~100 ms on a big terminal). It is shown and
hidden by ``visibility``, not ``display``, and the footer stays displayed under
it (``StableFooter.covered``): a ``display`` change re-numbered every widget's
paint order, so the whole screen was recomposed on each Enter (~5 ms at 160x45 on
a slow core), and the footer re-shown rebuilt its keys. Escape cancels,
Enter applies; either way focus returns to the widget that had it. That
widget keeps its focused look meanwhile (class ``-prompt-origin``, styled like
``:focus`` in app.tcss), so the focus round trip repaints nothing else (the
panes skip their repaint and restyle meanwhile: widgets/pane.py; the screen is
not repainted on a focus change: screens/explorer.py).

Each kind of prompt keeps the values submitted to it: a prompt opens empty, and Up
(Down) puts the previous (next) one in it, as in less and vim; the placeholder names
the last one. Between prompts the line can show a note without taking the focus (``note``:
the events list's pending count, ``123`` before ``G``); a prompt replaces it.

The label is plain text (never markup) and the input refuses control
characters, so a pasted escape sequence cannot reach the terminal.
"""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.events import DescendantBlur
from textual.widget import Widget
from textual.widgets import Input, Label

from ...safety import one_line
from ..keys import PROMPT_BINDINGS
from .footer import StableFooter
from .pane import PROMPT_ORIGIN, Pane

NO_CONTROLS = r"[^\x00-\x1f\x7f-\x9f]*"
DIGITS = r"[0-9]*"
HISTORY = 50  # values kept per kind of prompt


class CommandLine(Horizontal):
    DEFAULT_CSS = """
    CommandLine { dock: bottom; height: 1; width: 100%; visibility: hidden; }
    CommandLine > #prompt-label { width: auto; }
    CommandLine > #prompt-input { border: none; height: 1; padding: 0; width: 1fr; }
    """
    BINDINGS = PROMPT_BINDINGS

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.kind: str | None = None  # what is being asked ("goto", "search"), None when closed
        self._callback: Callable[[str | None], None] | None = None
        self._return_to: Widget | None = None
        self._covered: list[StableFooter] = []
        self.noting = False  # a note is shown (no prompt)
        self.history: dict[str, list[str]] = {}  # kind -> values submitted, oldest first
        self._recall: int | None = None  # the history entry shown (Up/Down), None: the user's own text
        self._draft = ""  # what was typed before Up
        self._toggle: Callable[[], tuple[str, str]] | None = None  # ctrl+r: (label, placeholder) after it

    def compose(self) -> ComposeResult:
        yield Label("", id="prompt-label", markup=False)
        yield Input(id="prompt-input", select_on_focus=False, restrict=NO_CONTROLS)

    @property
    def input(self) -> Input:
        return self.query_one("#prompt-input", Input)

    @property
    def is_open(self) -> bool:
        return self.kind is not None

    def ask(self, kind: str, label: str, callback: Callable[[str | None], None], *, value: str = "",
            integer: bool = False, placeholder: str = "", cover: tuple[StableFooter, ...] = (),
            toggle: Callable[[], tuple[str, str]] | None = None, allowed: str | None = None) -> None:
        """Show the prompt (over ``cover``, the footer) and focus its input.

        ``callback`` gets the submitted text, or None when cancelled (Escape, or
        focus moved elsewhere on this screen). A prompt already open is cancelled first.
        It opens holding ``value`` (empty by default); Up recalls what was submitted before.
        ``toggle`` (the search's regex mode) runs on ctrl+r and gives the new label and placeholder;
        ``allowed`` is a regex of the characters the input takes (``:``'s seq or time).
        """
        if self.is_open:
            self._close(None)
        self.kind, self._callback, self._toggle = kind, callback, toggle
        focused = self.app.focused
        self._return_to = focused if focused is not None and focused.screen is self.screen else None
        self.query_one("#prompt-label", Label).update(Content(one_line(label, 40)))
        inp = self.input
        inp.restrict = DIGITS if integer else allowed or NO_CONTROLS
        past = self.history.get(kind)
        if past:
            placeholder = f"{placeholder}  (↑ {one_line(past[-1], 40)})".strip()
        inp.placeholder = one_line(placeholder, 80)
        self._recall, self._draft = None, ""
        inp.value = one_line(value, 1000) if not integer else "".join(c for c in value if c.isdigit())
        inp.cursor_position = len(inp.value)
        with self.app.batch_update():
            if self.noting:  # the note's line becomes the prompt: what it covered stays covered
                self.noting = False
                inp.display = True
            else:
                self._cover_footer(cover)
            if self._return_to is not None:  # its Blur restyles it once (a Pane: not at all, pane.py)
                self._return_to.add_class(PROMPT_ORIGIN, update=False)
            # Not Widget.focus(): it repaints the widget and defers the focus change.
            self.screen.set_focus(inp, scroll_visible=False)

    def note(self, text: Content | None, *, cover: tuple[StableFooter, ...] = ()) -> None:
        """Show ``text`` in this line (over ``cover``) without taking the focus; None takes it away.

        Ignored while a prompt is open: the prompt has replaced the note.
        """
        if self.is_open:
            return
        with self.app.batch_update():
            if text is None:
                if self.noting:
                    self.noting = False
                    self._uncover_footer()
                    self.input.display = True
                return
            self.query_one("#prompt-label", Label).update(text)
            if not self.noting:
                self.noting = True
                self.input.display = False
                self._cover_footer(cover)

    def _cover_footer(self, cover: tuple[StableFooter, ...]) -> None:
        self._covered = [w for w in cover if w.display]
        for w in self._covered:
            w.covered = True
        self.visible = True

    def _uncover_footer(self) -> None:
        self.visible = False
        for w in self._covered:
            w.covered = False
        self._covered = []

    def _close(self, value: str | None) -> None:
        callback, target = self._callback, self._return_to
        if value and self.kind is not None:
            past = self.history.setdefault(self.kind, [])
            if value in past:
                past.remove(value)
            past.append(value)
            del past[:-HISTORY]
        self.kind, self._callback, self._return_to, self._toggle = None, None, None, None
        with self.app.batch_update():
            self._uncover_footer()
            if target is not None:
                refocus = target.is_attached and target.focusable and self.app.screen is self.screen
                if refocus:
                    self.screen.set_focus(target, scroll_visible=False)
                if not (refocus and isinstance(target, Pane)):  # a Pane's Focus handler drops the class itself
                    # With a refocus its Focus event re-applies its styles, :focus set and this class gone.
                    target.remove_class(PROMPT_ORIGIN, update=not refocus)
        if callback is not None:
            callback(value)

    # -- events ----------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.is_open:
            self._close(event.value)

    def action_cancel(self) -> None:
        if self.is_open:
            self._close(None)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "toggle":
            return self._toggle is not None  # only a prompt with a mode (search) takes ctrl+r
        return super().check_action(action, parameters)

    def action_toggle(self) -> None:
        """ctrl+r: the prompt's mode (the search's literal / regex), named in its label and placeholder."""
        if self.is_open and self._toggle is not None:
            label, placeholder = self._toggle()
            self.query_one("#prompt-label", Label).update(Content(one_line(label, 40)))
            self.input.placeholder = one_line(placeholder, 80)

    def action_history(self, step: int) -> None:
        """Up (-1) / Down (+1): the previous / next value of this kind; past the newest, the draft."""
        past = self.history.get(self.kind or "", [])
        if not self.is_open or not past:
            return
        at = len(past) if self._recall is None else self._recall
        at = max(0, min(len(past), at + step))
        if self._recall is None:
            self._draft = self.input.value
        self._recall = None if at == len(past) else at
        self.input.value = self._draft if self._recall is None else past[at]
        self.input.cursor_position = len(self.input.value)

    def on_descendant_blur(self, event: DescendantBlur) -> None:
        # Focus moved elsewhere on this screen (tab, a click on a pane): cancel, as vim does.
        # A screen pushed on top (command palette) keeps the prompt open for its return.
        if self.is_open and self.app.screen is self.screen:
            self.call_after_refresh(self._cancel_if_unfocused)

    def _cancel_if_unfocused(self) -> None:
        if self.is_open and self.app.screen is self.screen and self.app.focused is not self.input:
            if self._return_to is not None:
                self._return_to.remove_class(PROMPT_ORIGIN)
            self._return_to = self.app.focused  # keep the focus where the user put it
            self._close(None)
