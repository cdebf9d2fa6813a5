"""Row sources for the event list: all events, or a lazily built filtered index list.

Textual-free. A filter is an ``array('I')`` of event indices built from the
scan's compact columns (``res.rec_type``) or the diagnosis, never by parsing
events, so even a million-event log filters in tens of milliseconds.
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass

from ..safety import one_line


class RowSource:
    """Maps list rows to event indices (identity when ``indices`` is None)."""

    def __init__(self, total: int, indices: array | None = None, key: str = "all", label: str = "all events") -> None:
        self.total = total
        self.indices = indices
        self.key = key
        self.label = label

    def __len__(self) -> int:
        return self.total if self.indices is None else len(self.indices)

    @property
    def filtered(self) -> bool:
        return self.indices is not None

    def index(self, row: int) -> int:
        return row if self.indices is None else self.indices[row]

    def row_of(self, index: int) -> int | None:
        """The row showing event ``index``, or None when the view hides it."""
        if self.indices is None:
            return index if 0 <= index < self.total else None
        k = bisect.bisect_left(self.indices, index)
        return k if k < len(self.indices) and self.indices[k] == index else None

    def nearest_row(self, index: int) -> int:
        if self.indices is None:
            return max(0, min(index, self.total - 1))
        k = bisect.bisect_left(self.indices, index)
        return max(0, min(k, len(self.indices) - 1))


@dataclass(frozen=True)
class FilterSpec:
    key: str  # "all" | "findings" | "problems" | "pairs" | "no-chunks" | "type:<id>"
    label: str  # sanitised
    count: int | None = None


def filter_specs(log, diag) -> list[FilterSpec]:
    """The filters offered for ``log``: fixed ones first, then one per event type."""
    res = log.res
    counts = res.type_counts()
    chunk = res.types.index("assistant/chunk") if "assistant/chunk" in res.types else None
    out = [FilterSpec("all", "all events", len(log)),
           FilterSpec("findings", "findings (every event a finding points at)", len({f.index for f in diag.findings if f.index is not None})),
           FilterSpec("problems", "problems (failures, warnings, unpaired or failed calls)"),
           FilterSpec("pairs", "call/result pairs (tool, command, approval)")]
    if chunk is not None:
        out.append(FilterSpec("no-chunks", "everything but assistant/chunk deltas", len(log) - counts[chunk]))
    for tid, name in enumerate(res.types):
        out.append(FilterSpec(f"type:{tid}", f"type {one_line(name, 60)}", counts[tid]))
    if counts[255]:
        out.append(FilterSpec("type:255", "other types (more than 254 distinct)", counts[255]))
    return out


def build_filter(log, diag, key: str) -> array | None:
    """The event indices a filter shows (None for "all")."""
    if key == "all":
        return None
    if key == "findings":
        return array("I", sorted({f.index for f in diag.findings if f.index is not None}))
    if key == "pairs":
        idx = {i for p in diag.pairs for i in (p.ask, p.open, p.close) if i is not None}
        return array("I", sorted(idx))
    if key == "problems":
        idx = {f.index for f in diag.findings if f.index is not None and f.severity != "info"}
        idx |= {i for p in diag.pairs if p.status != "paired" for i in (p.ask, p.open, p.close) if i is not None}
        return array("I", sorted(idx))
    res = log.res
    if key == "no-chunks":
        wanted = {tid for tid, name in enumerate(res.types) if name != "assistant/chunk"} | {255}
    elif key.startswith("type:"):
        wanted = {int(key[5:])}
    else:
        raise ValueError(key)
    return res.events_of(wanted)


def narrowed(total: int, base: RowSource, chips: array | None, chips_label: str) -> RowSource:
    """``base`` (the ``f`` filter's rows) narrowed to the events the filter chips leave (None: all of them)."""
    if chips is None:
        return base if base.indices is not None else RowSource(total)
    if base.indices is None:
        return RowSource(total, chips, "chips", chips_label)
    keep = set(chips)
    label = f"{base.label} + {chips_label}"
    return RowSource(total, array("I", (i for i in base.indices if i in keep)), f"{base.key}+chips", label)
