"""Findings of one kind past the first MAX_LISTED are counted, not listed.

A log of a million calls without results has a million TOOL_UNPAIRED findings: `check`'s JSON
listed every one (~500 bytes each). The JSON lists the first MAX_LISTED of each kind (newest
first, as the diagnosis orders them) and, for the rest, the count and the seq range
(`findings_dropped`); the markdown report does the same past its first lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MAX_LISTED = 10_000  # findings of one kind the JSON lists


def split_by_kind(findings: Iterable[Any], limit: int | None = None) -> tuple[list, dict[str, dict]]:
    """(the findings listed: each kind's first ``limit`` (MAX_LISTED), in their order; per kind, the
    rest as {"count", "first_seq", "last_seq"}: the lowest and highest int seq among them, None if none)."""
    limit = MAX_LISTED if limit is None else limit
    seen: dict[str, int] = {}
    listed: list = []
    dropped: dict[str, dict] = {}
    for f in findings:
        n = seen[f.kind] = seen.get(f.kind, 0) + 1
        if n <= limit:
            listed.append(f)
            continue
        d = dropped.get(f.kind)
        if d is None:
            d = dropped[f.kind] = {"count": 0, "first_seq": None, "last_seq": None}
        d["count"] += 1
        seq = f.seq
        if type(seq) is int:
            if d["first_seq"] is None or seq < d["first_seq"]:
                d["first_seq"] = seq
            if d["last_seq"] is None or seq > d["last_seq"]:
                d["last_seq"] = seq
    return listed, dropped


def counts_by_kind(findings: Iterable[Any]) -> dict[str, int]:
    """How many findings of each kind, kinds in the order their first finding comes."""
    out: dict[str, int] = {}
    for f in findings:
        out[f.kind] = out.get(f.kind, 0) + 1
    return out


def dropped_text(dropped: dict[str, dict]) -> str:
    """The rest, one clause a kind: "TOOL_UNPAIRED x990,000 (seq 0..989,999)"."""
    parts = []
    for kind, d in dropped.items():
        lo, hi = d["first_seq"], d["last_seq"]
        where = f" (seq {lo:,}..{hi:,})" if lo is not None and lo != hi else f" (seq {lo:,})" if lo is not None else ""
        parts.append(f"{kind} x{d['count']:,}{where}")
    return "; ".join(parts)
