"""Rows whose text scrolls sideways (`<` and `>`, as lnav's), their columns staying: the events list
and the merged timeline."""

from __future__ import annotations

SHIFT_STEP = 20  # columns < and > move the rows' text, as less's half-screen but steadier
SHIFT_MAX = 400  # a summary (300) or a raw row (event_list.RAW_CHARS) never runs past it


class ShiftedText:
    """What a list with sideways-scrolled row text has; the list calls `clear_cache` (VirtualList's)."""

    shift = 0  # columns of each row's text scrolled off to the left

    def shift_text(self, direction: int) -> bool:
        """Scroll the rows' text (not the seq, time and type columns) by `SHIFT_STEP`; False at an end."""
        shift = max(0, min(SHIFT_MAX - SHIFT_STEP, self.shift + direction * SHIFT_STEP))
        if shift == self.shift:
            return False
        self.shift = shift
        self.clear_cache()
        return True

    def shifted(self, text: str) -> str:
        """A row's text after its separator, scrolled ``shift`` columns (« says some is off the left)."""
        if not self.shift:
            return " " + text
        return "«" + text[self.shift:] if len(text) > self.shift else "«"
