"""Ascending offsets (a log's record starts) in about two bytes each, for an index kept while a log is
explored.

A block of 64 offsets keeps its first as it is (``base``) and each offset's low 16 bits (``low``): an
offset is its base plus the distance the low bits give, while the block spans less than 64 KiB. A
block that spans more (a long record among them) keeps its 64 as they are instead (``wide``), its
``low`` cells unused. The low bits are two bytes of each offset's own, taken for a whole batch by
strided slices in C (a Python step an offset took ~0.4 s for the x11 file's 2.3M record starts): 8.8
MiB as uint32, 4.7 here. The scan appends to a plain array (each window's starts in one C call) and
the explorer compacts it once read; a followed log's later records are appended here.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from operator import sub
from typing import Iterable, Iterator

BLOCK = 64
SHIFT = 6  # (BLOCK == 1 << SHIFT)
SPAN = 0xFFFF  # the most a narrow block's last offset is past its first
BATCH = BLOCK << 10  # values appended at a time: the copies made of them stay small


def low_bits(values: array) -> array:
    """Each value's low 16 bits, as an array "H" (two bytes of each value's own, copied in C)."""
    size = values.itemsize
    raw = memoryview(values).cast("B")
    out = bytearray(2 * len(values))
    if sys.byteorder == "little":
        out[0::2], out[1::2] = raw[0::size], raw[1::size]
    else:
        out[0::2], out[1::2] = raw[size - 2::size], raw[size - 1::size]
    return array("H", bytes(out))


class Offsets:
    """A sequence of ascending non-negative ints: ``len``, ``[i]`` (negative too), iteration,
    `bisect_right`, `extend`, and `plain` (an array, for the cache)."""

    __slots__ = ("base", "low", "wide")

    def __init__(self, values: Iterable[int] = ()) -> None:
        self.base = array("Q")  # each block's first offset
        self.low = array("H")  # each offset's low 16 bits (unused in a wide block)
        self.wide: dict[int, array] = {}  # block -> its offsets as they are
        self.extend(values)

    def __len__(self) -> int:
        return len(self.low)

    def __getitem__(self, i: int) -> int:
        if i < 0:
            i += len(self.low)
            if i < 0:
                raise IndexError("offset index out of range")
        low = self.low[i]  # (IndexError past the end)
        b = i >> SHIFT
        wide = self.wide.get(b) if self.wide else None
        if wide is not None:
            return wide[i & (BLOCK - 1)]
        base = self.base[b]
        return base + ((low - base) & SPAN)

    def __iter__(self) -> Iterator[int]:
        for b in range(len(self.base)):
            wide = self.wide.get(b)
            yield from wide if wide is not None else map(self.__getitem__, range(b << SHIFT, min(
                (b + 1) << SHIFT, len(self.low))))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (Offsets, array, list)) and len(self) == len(other) and all(
            a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def bisect_right(self, x: int) -> int:
        """Where ``x`` would go after its equals (bisect.bisect_right's answer)."""
        b = bisect_right(self.base, x) - 1
        if b < 0:
            return 0
        lo, hi = b << SHIFT, min((b + 1) << SHIFT, len(self.low))
        wide = self.wide.get(b)
        if wide is not None:
            return lo + bisect_right(wide, x)
        base = self.base[b]
        d, low = x - base, self.low
        if d >= SPAN:
            return hi
        while lo < hi:  # (a block's distances ascend; its low bits may wrap)
            mid = (lo + hi) >> 1
            if (low[mid] - base) & SPAN <= d:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def plain(self) -> array:
        """Every offset in one array: uint32 while they fit, else uint64."""
        out = array("Q", self)
        return array("I", out) if not out or out[-1] <= 0xFFFFFFFF else out

    def extend(self, values: Iterable[int]) -> None:
        """Append ``values`` (ascending, from the last offset on), a batch at a time."""
        if type(values) is not array:
            values = array("Q", values)
        for at in range(0, len(values), BATCH):
            self._extend(values[at:at + BATCH])

    def _extend(self, values: array) -> None:
        k = min(len(values), -len(self.low) % BLOCK)  # the values the last block has room for
        if k:
            self._fill(values[:k])
            values = values[k:]
            if not values:
                return
        first = len(self.base)
        bases = values[::BLOCK]
        self.base.extend(bases if bases.typecode == "Q" else array("Q", bases))
        lasts = values[BLOCK - 1::BLOCK]
        if len(values) % BLOCK:
            lasts.append(values[-1])
        self.low.extend(low_bits(values))
        for b, span in enumerate(map(sub, lasts, bases)):
            if span > SPAN:  # a long record in the block: its offsets kept as they are
                self.wide[first + b] = array("Q", values[b << SHIFT:(b + 1) << SHIFT])

    def _fill(self, values: array) -> None:
        """Append to the last block, which has room for ``values``."""
        b = len(self.base) - 1
        base, low, wide = self.base[b], self.low, self.wide.get(b)
        if wide is None and values[-1] - base > SPAN:  # the block turns wide: its offsets so far, as they are
            wide = self.wide[b] = array("Q", map(self.__getitem__, range(b << SHIFT, len(low))))
        if wide is not None:
            wide.extend(array("Q", values))
        low.extend(low_bits(values))
