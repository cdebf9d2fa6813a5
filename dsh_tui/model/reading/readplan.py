"""The read's seam: the plan (`ReadPlan`) of how a log is read, made once per read by session.py's
`plan_read`, the one place that decides a linear read or a split read (a forked helper indexing the
tail: split/). This module imports nothing of the package at run time: split/ can name its types
without a cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

if TYPE_CHECKING:
    from .split.helper import TailHelper


class ReadPlan(NamedTuple):
    """What to read and how: one per read, made by `plan_read` (or by hand for text in memory). Frozen
    as a NamedTuple, not a dataclass: a dataclass's generated methods cost ~6 M instructions at every
    start, over 1% of `check` on a small log."""
    lenient: bool = False  # read past a header or load check dsh would refuse (the log says it was)
    limit: int | None = None  # the plaintext limit, in bytes (None: the text is in hand, a ZIP member's)
    cancel: Any = None  # a threading.Event: the read stops with Cancelled
    report: Callable | None = None  # report(done, total): the decode's progress, in file bytes
    keep_plain: bool = True  # hold the plaintext (a ZIP member's); False: the views decode the frames they show
    split: int | None = None  # where a split read's tail begins (a frame's file offset); None: a linear read
    early: TailHelper | None = None  # a helper already reading the tail from ``split`` (TailHelper.early)
