"""The read's seam: the plan (`ReadPlan`), the reader that follows it (a linear read, or a split read
whose tail a forked helper indexes: `split.SplitReader`), and the sink the scan reports to as it goes
(`ScanSink`: the caller's diagnosis, fed while the rest is read).

session.py's `plan_read` makes the plan once per read and `reader_for` its reader; its one scan loop
(`_build`) feeds the reader's chunks to a Scanner, tells the reader when the header is known (a split
read forks its helper then) and lets it index what its chunks left (the tail). This module imports
nothing of the package at run time: split/ names these types without a cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Protocol

if TYPE_CHECKING:
    from .scan import Scanner
    from .source import RawLog
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


class ScanSink(Protocol):
    """What the scan reports to as it goes (opening/open.py's diagnosis)."""

    def progress(self, scanner: Scanner) -> None:
        """Every DIGEST_BYTES of text indexed, and while the tail helper reads: the facts so far are
        ``scanner.res``'s (a sink may take them, e.g. to advance a diagnosis)."""

    def done(self, log) -> None:
        """The log is read (the file closed, any helper gone): ``log`` is the SessionLog."""


class CallbackSink:
    """A bare ``while_waiting(scanner)`` callback as a sink (`load_session`'s older keyword). A plain
    class: a dataclass's generated methods cost ~2 M instructions at every start (each command's)."""

    __slots__ = ("callback",)

    def __init__(self, callback: Callable) -> None:
        self.callback = callback

    def progress(self, scanner: Scanner) -> None:
        self.callback(scanner)

    def done(self, log) -> None:
        pass


class Reader(Protocol):
    """A plan's read: the chunks of text read here, and what comes after them."""

    def chunks(self) -> Iterator[bytes]:
        """The text read in this process, a window at a time."""

    def started(self, raw: RawLog, session_id: str | None) -> None:
        """The header line is indexed (a split read forks its helper now, unless one is running)."""

    def rest(self, raw: RawLog, scanner: Scanner | None, produced: int, sink: ScanSink | None) -> int:
        """Index what the chunks left (a split read's tail); returns the plaintext length. ``scanner``
        is None when the chunks held no complete header line."""

    def close(self) -> None:
        """Always called, whatever happened: no helper is left running."""


class LinearReader:
    """The whole text read here: the chunks are all there is."""

    __slots__ = ("_chunks",)

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks

    def chunks(self) -> Iterator[bytes]:
        return self._chunks

    def started(self, raw: RawLog, session_id: str | None) -> None:
        pass

    def rest(self, raw: RawLog, scanner: Scanner | None, produced: int, sink: ScanSink | None) -> int:
        return produced

    def close(self) -> None:
        pass
