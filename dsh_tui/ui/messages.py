"""Messages between the explorer's worker threads, widgets and the app.

Progress and cursor messages are `NewestWins` messages, so a burst collapses into
one dispatch (the newest wins).
"""

from __future__ import annotations

import threading

from typing import Any

from textual.message import Message


class NewestWins(Message):
    """A message a newer one of the same class replaces while it waits in the queue."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, type(self))


class LoadProgress(NewestWins):
    """The loader's progress: stage is "decode" or "index"."""

    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage, self.done, self.total = stage, done, total


class TailVerdictFound(Message):
    """A provisional verdict read from the last frames while the full decode runs."""

    def __init__(self, verdict: Any, painted: threading.Event) -> None:
        super().__init__()
        self.verdict = verdict
        self.painted = painted  # set once the header shows it (the decode waits for it)


class RowHighlighted(NewestWins):
    """The event list cursor moved (row in the current view, event index; ``jump``: to a row picked
    by its index (goto, home, end, a click), not a step a held key repeats)."""

    def __init__(self, row: int, index: int, jump: bool = False) -> None:
        super().__init__()
        self.row, self.index, self.jump = row, index, jump


class PairHighlighted(NewestWins):
    """The pairs pane cursor moved to ``pairs[row]``."""

    def __init__(self, row: int) -> None:
        super().__init__()
        self.row = row


class SearchHits(Message):
    """Every hit of ``needle`` in ``log`` (a `model.search.HitList`; None with ``error``), from the search worker."""

    def __init__(self, needle: str, hits: Any, log: Any, error: BaseException | None = None) -> None:
        super().__init__()
        self.needle, self.hits, self.log, self.error = needle, hits, log, error


class FilterReady(Message):
    def __init__(self, key: str, label: str, indices: Any, focus_index: int | None) -> None:
        super().__init__()
        self.key, self.label, self.indices, self.focus_index = key, label, indices, focus_index


class SeqCountChanged(NewestWins):
    """The events list's pending count (digits typed before G) changed; "" when cleared."""

    def __init__(self, count: str) -> None:
        super().__init__()
        self.count = count


class GotoSeqCount(Message):
    """G after a count in the events list: go to the event with that seq (vim's ``123G``)."""

    def __init__(self, seq: int) -> None:
        super().__init__()
        self.seq = seq


class LaterRowsChanged(NewestWins):
    """The events list's count of later rows below the view changed (its title says it)."""
