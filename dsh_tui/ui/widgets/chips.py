"""ChipsBar: one row above the events list, shown only while there are filter chips or marks.

It says how many events are marked and in view, then each chip by its label: an enabled chip reversed
(bold reverse reads under NO_COLOR too), a disabled one dim and struck through. Labels are built by
the model (``Chip.label``, sanitised by ``one_line``) and drawn as Content, never markup.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ...model.presenting.filterstack import Chip


def bar_content(chips: list[Chip], marks: int, shown: int | None, total: int | None) -> Content:
    parts: list = []
    if shown is not None and total is not None:
        parts.append((f"{shown:,} of {total:,} events" if shown != total else f"all {total:,} events", "bold"))
    if marks:
        parts += ["  " if parts else "", (f"● {marks:,} mark{'s' if marks != 1 else ''}", "bold")]
    for chip in chips:
        parts.append("  ")
        parts.append((f" {chip.label} ", "bold reverse" if chip.on else "dim strike"))
    if chips:
        parts.append(("  x: on/off", "dim"))
    return Content.assemble(*parts)


class ChipsBar(Static):
    DEFAULT_CSS = """
    ChipsBar { height: 1; width: 100%; display: none; text-wrap: nowrap; text-overflow: ellipsis; }
    ChipsBar.-shown { display: block; }
    """

    def show(self, chips: list[Chip], marks: int, source) -> None:
        shown = bool(chips or marks)
        self.set_class(shown, "-shown")
        if shown:
            self.update(bar_content(chips, marks, len(source) if source is not None else None,
                                    source.total if source is not None else None))
