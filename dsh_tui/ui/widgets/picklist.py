"""PickList: the pickers' OptionList (anomaly kind, filter, checklist, chips, children), with j / k as in
the explorer's lists (ui/keys.py: PICK_BINDINGS, ids for a keymap)."""

from __future__ import annotations

from textual.widgets import OptionList

from ..keys import PICK_BINDINGS


class PickList(OptionList):
    BINDINGS = PICK_BINDINGS  # with OptionList's own (up, down, enter, ...)
