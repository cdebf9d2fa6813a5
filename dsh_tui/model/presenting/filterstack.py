"""Stacked include/exclude filters ("chips") over the event list: on text, event type and tool name.

lnav's model, for agent logs: the events shown are those matching any enabled include chip (all events
when there is none), minus those matching any enabled exclude chip. A chip is toggled without being
removed, so a user can compare the list with and without it. Types and tools are matched with shell
globs (`tool/*`, `mcp__*`); text is a case-insensitive substring found by the caller's search (it
reads the log window by window), passed in as ``text_hits`` so this module stays a pure set algebra
over index arrays.
"""

from __future__ import annotations

import fnmatch
from array import array
from typing import Callable

from msgspec import Struct
from msgspec.structs import replace

from ...safety import one_line

FIELDS = ("text", "type", "tool")
MAX_CHIPS = 32
MAX_VALUE = 200


class Chip(Struct, frozen=True):
    field: str  # "text" | "type" | "tool"
    value: str
    include: bool = True
    on: bool = True

    @property
    def label(self) -> str:
        """How the chip reads on screen and in the help: ``+type:tool/*``, ``-text:heartbeat``."""
        return f"{'+' if self.include else '-'}{self.field}:{one_line(self.value, 40)}"

    def toggled(self) -> Chip:
        return replace(self, on=not self.on)

    def to_json(self) -> dict:
        return {"field": self.field, "value": self.value, "include": self.include, "on": self.on}


def parse_chip(text: str) -> Chip:
    """A chip typed at the prompt: ``[+|-][text:|type:|tool:]VALUE`` (no field: text). ValueError when empty
    or too long; control characters are refused by the prompt and stripped here."""
    text = one_line(text.strip(), None)
    include = True
    if text and text[0] in "+-":
        include, text = text[0] == "+", text[1:]
    field = "text"
    head, sep, rest = text.partition(":")
    if sep and head in FIELDS:
        field, text = head, rest
    if not text:
        raise ValueError("a filter needs something to match: text, type:TYPE or tool:NAME")
    if len(text) > MAX_VALUE:
        raise ValueError(f"a filter is at most {MAX_VALUE} characters")
    return Chip(field, text, include)


def chip_from_json(obj) -> Chip | None:
    """A chip read back from saved state, or None when ``obj`` is not a well-formed one."""
    if not isinstance(obj, dict):
        return None
    field, value, include, on = obj.get("field"), obj.get("value"), obj.get("include"), obj.get("on")
    if field not in FIELDS or not isinstance(value, str) or not value or len(value) > MAX_VALUE:
        return None
    if not isinstance(include, bool) or not isinstance(on, bool):
        return None
    return Chip(field, value, include, on)


def chip_indices(log, diag, chip: Chip, text_hits: Callable[[str], array]) -> array:
    """The sorted event indices ``chip`` matches (whether it includes or excludes them)."""
    if chip.field == "text":
        return text_hits(chip.value)
    if chip.field == "type":
        res = log.res
        return res.events_of({tid for tid, name in enumerate(res.types) if _glob(name, chip.value)})
    idx = {i for p in diag.pairs if p.kind in ("tool", "command") and isinstance(p.name, str) and _glob(p.name, chip.value)
           for i in (p.ask, p.open, p.close) if i is not None}
    return array("I", sorted(idx))


def apply_chips(log, diag, chips: list[Chip], text_hits: Callable[[str], array]) -> array | None:
    """The events the enabled chips leave in view (None: every event, no chip is on)."""
    active = [c for c in chips if c.on]
    if not active:
        return None
    includes = [c for c in active if c.include]
    if includes:
        shown: set[int] = set()
        for chip in includes:
            shown.update(chip_indices(log, diag, chip, text_hits))
    else:
        shown = set(range(len(log)))
    for chip in active:
        if not chip.include:
            shown.difference_update(chip_indices(log, diag, chip, text_hits))
    return array("I", sorted(shown))


def describe(chips: list[Chip]) -> str:
    """One line for the list's title: the enabled chips in order, the disabled ones in parentheses."""
    return " ".join(c.label if c.on else f"({c.label})" for c in chips)


def _glob(name: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(name.lower(), pattern.lower())
