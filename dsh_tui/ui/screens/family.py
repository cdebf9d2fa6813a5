"""A session's family: pick a delegated child to open (c), confirm opening one from a finding."""

from __future__ import annotations

from textual.app import ComposeResult
from ..keys import CHILDREN_BINDINGS, CONFIRM_BINDINGS
from textual.containers import Vertical
from textual.content import Content
from .modal import Modal
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...sessions.browse import status_of
from ...model.sessions.lineage import tree_guides
from ...safety import one_line
from ..nocolor import colourless
from ..widgets.picklist import PickList


def relative_content(rel, guide: str | None = None, no_color: bool = False) -> Content:
    """One descendant: its tree guide (from `tree_guides`), id, status, verdict, events, ZIP member.

    ``no_color``: the parts drop their colours (bold stays), so a highlighted row reads in the
    highlight bar's colours (ui/nocolor.py)."""
    e = rel.entry
    label, cls = status_of(e)
    style = {"ok": "$success", "bad": "bold $error", "warn": "$warning"}.get(cls, "$text-muted")
    if guide is None:
        guide = "  " * (rel.depth - 1) + "↳ "
    parts: list = [(guide, "$text-muted"), (one_line(e.display_id, 80), "bold"), "  ", (label, style)]
    if e.verdict_kind:
        parts += ["  ", (f"failed: {one_line(e.verdict_kind, 40)}", "bold $error")]
        if e.verdict_call_id:
            parts += [" ", one_line(e.verdict_call_id, 60)]
    if e.events is not None:
        parts += [(f"  {e.events:,} event{'' if e.events == 1 else 's'}", "$text-muted")]
    if e.member:
        parts += [(f"  {one_line(e.member, 80)}", "$text-muted")]
    if no_color:
        parts = [part if isinstance(part, str) else (part[0], colourless(part[1])) for part in parts]
    return Content.assemble(*parts)


class ChildrenScreen(Modal):
    """The delegated descendants (from `find_lineage`, depth-first) drawn as a tree; Enter dismisses
    with the chosen Relative."""

    BINDINGS = CHILDREN_BINDINGS

    def __init__(self, children: list, truncated: bool = False) -> None:
        super().__init__()
        self.children_ = children
        self.truncated = truncated

    def compose(self) -> ComposeResult:
        guides = tree_guides(self.children_)
        options = PickList(*(Option(relative_content(r, g, self.app.no_color), id=f"child-{k}")
                               for k, (r, g) in enumerate(zip(self.children_, guides))), id="children-list")
        options.border_title = f"delegated children ({len(self.children_)}{'+' if self.truncated else ''})"
        options.border_subtitle = "enter opens · b comes back · esc closes"
        yield options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.children_[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(Modal[bool]):
    """One question; enter or y answers yes, esc or n no."""

    BINDINGS = CONFIRM_BINDINGS

    def __init__(self, title: str, question: Content) -> None:
        super().__init__()
        self.title_text, self.question = title, question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = Content(one_line(self.title_text, 60))
            box.border_subtitle = "enter opens · esc stays"
            yield Static(self.question, id="confirm-text")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
