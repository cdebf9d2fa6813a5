"""The split read as a reader (readplan.py's `Reader`): the head read here up to the plan's split, the
tail indexed by a forked helper and merged (merge.py's `read_tail`). It owns the helper: forked once
the header is known (unless the plan brings an early one) and closed by `close`, whatever happened."""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Iterator

from ..filewindow import FileBytes
from ..source import RawLog, iter_plain
from . import helper as split_helper
from .merge import SplitMissed, read_tail

if TYPE_CHECKING:
    from ..readplan import ReadPlan, ScanSink
    from ..scan import Scanner


class SplitReader:
    __slots__ = ("plan", "fb", "helper", "_raw")

    def __init__(self, plan: ReadPlan, raw: RawLog, fb: FileBytes) -> None:
        self.plan, self.fb, self._raw = plan, fb, raw
        self.helper: split_helper.TailHelper | None = plan.early

    def chunks(self) -> Iterator[bytes]:
        # The head's decode stops at the split (the file is no longer cut to the head's length).
        plan = self.plan
        return iter_plain(self._raw, self.fb, plan.limit, progress=plan.report, cancel=plan.cancel,
                          stop=memoryview(array("q", [plan.split])))

    def started(self, raw: RawLog, session_id: str | None) -> None:
        if self.helper is None:  # fork once the header is known, while the head is read here
            self.helper = split_helper.TailHelper(raw, self.fb, self.plan.split, self.plan.limit, session_id)

    def rest(self, raw: RawLog, scanner: Scanner | None, produced: int, sink: ScanSink | None) -> int:
        if scanner is None:  # a header line longer than the head: crafted input
            raise SplitMissed()
        plan = self.plan
        return read_tail(raw, scanner, self.helper, (self.fb, plan.split, plan.limit), produced, plan.cancel, sink)

    def close(self) -> None:
        if self.helper is not None:  # never leave a child running (cancel, errors)
            self.helper.close()
