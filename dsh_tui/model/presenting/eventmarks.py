"""Each event's mark in the event list: the verdict, or the severity of the finding that wins there.

A finding marks its event with its severity; at an event with several, a failure wins over a warning,
a warning over the rest, and among equals the newest. The verdict's event is marked "verdict" over
all. Kept as two sorted arrays (the events, a byte a mark into the severities met), read by ``get``:
a dict and an int object an event held ~1.25 MiB for the x11 file's 24.6k findings.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Any

VERDICT = "verdict"
_RANK = {"failure": 2, "warning": 1}  # any other severity: 0


class EventMarks:
    __slots__ = ("events", "codes", "names")

    def __init__(self, findings: list, verdict_index: int | None = None) -> None:
        marks: dict[int, str] = {}
        for f in reversed(findings):  # oldest first (the diagnosis lists newest first): the newest wins a tie
            if f.index is not None:
                old = marks.get(f.index)
                if old is None or _RANK.get(f.severity, 0) >= _RANK.get(old, 0):
                    marks[f.index] = f.severity
        if verdict_index is not None:
            marks[verdict_index] = VERDICT
        events = sorted(marks)
        self.names = list(dict.fromkeys(marks.values()))
        at = {name: k for k, name in enumerate(self.names)}
        try:
            self.events: Any = array("q", events)
        except OverflowError:  # (an index past int64: a list, searched alike)
            self.events = events
        self.codes = array("B" if len(self.names) <= 256 else "I", [at[marks[i]] for i in events])

    def get(self, index: Any, default: Any = None) -> Any:
        """The mark of event ``index`` (verdict, failure, warning, info...), ``default`` if it has none."""
        if type(index) is not int:
            return default
        events = self.events
        k = bisect_left(events, index)
        return self.names[self.codes[k]] if k < len(events) and events[k] == index else default

    def __len__(self) -> int:
        return len(self.events)
