"""The scan's per-model-call usage table, kept as columns.

One entry per (turn, step), in the order calls first appear, holding the last usage the log gave
it: (seq, its TOKEN_KEYS counts, whether from a usage chunk). A dict of tuples held ~370 bytes a
call (a value tuple holding a counts tuple and their int objects); here a call is its key, a
position and one int64 per column. Counts past int64 (a crafted log) turn the columns to lists.

A key of two ints under 2**31 is held as one int (turn << 32 | step), not a tuple keeping its turn's
int object: the table lives until the diagnosis is made, and its ~100 bytes a call, freed then, were
holes the allocator kept (~12 MiB on a 10M-event log). A key equal to such a pair (a crafted log's
true or 1.0) goes by the same int, its own tuple kept in ``odd`` when it came first; any other
(a string, None, a negative or huge number) stays the tuple it is.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from itertools import islice
from typing import Any, Iterator

N_COUNTS = 5  # len(usage.TOKEN_KEYS)
_LIMIT = 1 << 31
_LOW = (1 << 32) - 1
_NUMBERS = frozenset({int, bool, float})


def _coded(key: tuple) -> Any:
    """``key`` as the table holds it (module docstring): an int, or the tuple."""
    t, s = key
    if type(t) is int and type(s) is int:
        return t << 32 | s if 0 <= t < _LIMIT and 0 <= s < _LIMIT else key
    if type(t) in _NUMBERS and type(s) in _NUMBERS:
        try:
            ti, si = int(t), int(s)
        except (ValueError, OverflowError):  # NaN, an infinity
            return key
        if ti == t and si == s and 0 <= ti < _LIMIT and 0 <= si < _LIMIT:
            return ti << 32 | si
    return key


def _decoded(code: int | tuple, odd: dict[int, tuple]) -> tuple:
    """The (turn, step) a coded key stands for, as first seen (``odd``: the table's first-seen tuples)."""
    if type(code) is not int:
        return _decoded(code[0], odd) if len(code) == 3 else code  # (a run of a call that came back)
    return odd.get(code) or _pair(code)


def _pair(code: int) -> tuple:
    """The (turn, step) a usual key's int stands for."""
    return code >> 32, code & _LOW


def _base(code: int | tuple) -> int | tuple:
    """The call a key stands for: a later run's key (base, position, None) names its call's."""
    return code[0] if type(code) is tuple and len(code) == 3 else code


class CallTable:
    """One entry per run of usage samples of one call, as dsh's token meter folds them: a sample
    replaces the previous one only when that belongs to the same (turn, step), else it adds. So the
    last adjacent sample wins (the message, or a chunk that comes after it), and a call whose sample
    comes back after another call's gets an entry of its own (key: (its key, position, None)),
    counted again as the meter counts it.

    An entry's key is held in ``codes`` (an int, or a mark), a crafted one in ``keyed``; the calls'
    first runs are found by bisecting ``firsts`` while those ascend (a log's calls come in (turn,
    step) order), so a call costs no object. A dict of key -> position held two int objects a
    call until the diagnosis was made, and the pools they shared with what stays kept the holes:
    ~17 MiB of RSS once the benchmark's x11 file is open, ~7 on the 10M-event generated log. A
    first run out of order, or a crafted key, makes that dict (``index``) for good."""

    __slots__ = ("codes", "keyed", "firsts", "first_at", "index", "odd", "cols", "chunk", "watched", "replaced",
                 "last", "nan", "_at")

    def __init__(self) -> None:
        # Each entry's key: its int code (`_coded`) for a call's first run; -2 - the code for a later
        # run of that call (its key (code, position, None)); -1 where the key is in ``keyed``.
        self.codes = array("q")
        self.keyed: dict[int, tuple] = {}  # position -> a tuple key: a crafted call's (first or later run)
        # The int codes of the first runs, ascending while ``index`` is None, and their positions: while
        # every entry is such a run (a usual log), ``codes`` itself, each at its own position (None).
        self.firsts = self.codes
        self.first_at: array | None = None
        self.index: dict[int | tuple, int] | None = None  # a first run's key -> its position, once they do not ascend
        self.odd: dict[int, tuple] = {}  # a coded key -> the tuple it was first seen as, where not two ints
        self.cols: list = [array("q") for _ in range(1 + N_COUNTS)]  # seq, then the counts
        self.chunk = bytearray()  # 1: the usage is a chunk's, 0: the assistant/message's
        # A tally (usage.UsageTally) has counted the positions below ``watched``: rewriting one keeps
        # the value it counted in ``replaced`` (position, seq, counts, from a chunk), so it can
        # take that back. A few a slice boundary: a message read in the batch after its chunk.
        self.watched = 0
        self.replaced: list[tuple] = []
        self.last: tuple | None = None  # (base key, position) of the last sample put: the run it may go on
        self.nan = 0  # dsh's meter buckets a sample made NaN (1: input, 2: output): facts.py's _meter_nan
        self._at = -1  # where in ``firsts`` `output` found the last call: the timing walk asks in table order

    def find(self, code: int | tuple) -> int | None:
        """The position of the first run of the call whose coded key is ``code``; None if none."""
        index = self.index
        if index is not None:
            return index.get(code)
        if type(code) is not int:  # (ascending first runs hold no tuple key)
            return None
        firsts = self.firsts
        i = bisect_left(firsts, code)
        if i < len(firsts) and firsts[i] == code:
            self._at = i
            at = self.first_at
            return i if at is None else at[i]
        return None

    def _add_key(self, code: int | tuple, p: int) -> None:
        """``code`` the key of a new entry at position ``p`` (the end)."""
        index, codes = self.index, self.codes
        if type(code) is int:  # a call's first run
            firsts = self.firsts
            if index is None and firsts and code <= firsts[-1]:
                index = self._make_index()
            codes.append(code)
            if index is not None:
                index[code] = p
            elif firsts is not codes:
                firsts.append(code)
                self.first_at.append(p)
            return
        if self.firsts is codes:  # the first entry that is no first run: the runs apart from here on
            self.firsts, self.first_at = array("q", codes), array("q", range(len(codes)))
        if len(code) == 3 and type(code[0]) is int:  # a later run of a call with an int key
            codes.append(-2 - code[0])
        else:  # a crafted key: a first run, or a later run of one
            codes.append(-1)
            self.keyed[p] = code
            if len(code) != 3:
                if index is None:
                    index = self._make_index()
                index[code] = p

    def _make_index(self) -> dict:
        """The first runs stop ascending (or a crafted key comes): key -> position from here on."""
        at = self.first_at
        index = self.index = dict(zip(self.firsts, range(len(self.firsts)) if at is None else at))
        self.firsts, self.first_at = array("q"), None  # (not read again)
        return index

    def _key(self, p: int) -> int | tuple:
        """The coded key of the entry at position ``p``, as `put` made it."""
        code = self.codes[p]
        return code if code >= 0 else self.keyed[p] if code == -1 else (-2 - code, p, None)

    def put(self, key: tuple, seq: int, counts: tuple, from_chunk: bool) -> None:
        """A usage sample of ``key``: it replaces the last sample if that was the same call's (its run
        goes on), else it starts a run (a new entry; a new key for a call that came back)."""
        t, s = key
        code = t << 32 | s if type(t) is int and type(s) is int and 0 <= t < _LIMIT and 0 <= s < _LIMIT \
            else _coded(key)  # (the usual key inline: this runs for every model call's usage)
        last = self.last
        if last is not None and last[0] == code:
            p = last[1]
            _s, c0, c1, c2, c3, _c4 = self.cols  # (its four buckets: it keeps no reasoning count)
            if c0[p] == counts[0] and c1[p] == counts[1] and c2[p] == counts[2] and c3[p] == counts[3]:
                return  # the meter skips a sample equal to the one it replaces: that one stays the winner
        else:
            p = None
            firsts = self.firsts
            if self.index is None and type(code) is int and (not firsts or code > firsts[-1]):
                usual = firsts is self.codes  # a new call past the last one: nothing to look up
            else:
                usual = False
                first = self.find(code)
                if first is not None:
                    if type(code) is tuple:  # (a crafted key: the call as first seen)
                        code = self.keyed[first]
                    code = (code, len(self.chunk), None)  # a later run of a call: counted again
        if p is None:
            n = len(self.chunk)
            self.last = (_base(code), n)
            if type(code) is int and (type(t) is not int or type(s) is not int):
                self.odd[code] = key
            if usual:
                self.codes.append(code)
            else:
                self._add_key(code, n)
            p = n
            self.chunk.append(from_chunk)
            s, c0, c1, c2, c3, c4 = self.cols
            try:  # (unrolled: a loop over the columns costs a zip and a frame a call)
                s.append(seq)
                c0.append(counts[0])
                c1.append(counts[1])
                c2.append(counts[2])
                c3.append(counts[3])
                c4.append(counts[4])
            except (OverflowError, TypeError):  # past int64: lists from here on
                self._widen(p)
                for col, v in zip(self.cols, (seq, *counts)):
                    col.append(v)
            return
        if p < self.watched:
            self.replaced.append((p, *self.row(p)))
        self.chunk[p] = from_chunk
        s, c0, c1, c2, c3, c4 = self.cols
        try:
            s[p] = seq
            c0[p], c1[p], c2[p], c3[p], c4[p] = counts
        except (OverflowError, TypeError):
            self._widen(len(self.chunk))
            for col, v in zip(self.cols, (seq, *counts)):
                col[p] = v

    def _widen(self, n: int) -> None:
        """Columns as lists, cut to ``n`` entries (what a failed append left is dropped)."""
        self.cols = [list(islice(col, n)) for col in self.cols]

    def row(self, p: int) -> tuple:
        """(seq, counts, from a chunk) of the call at position ``p``."""
        cols = self.cols
        return cols[0][p], tuple([col[p] for col in cols[1:]]), bool(self.chunk[p])

    def output(self, turn: Any, step: Any) -> int | None:
        """The output tokens of the call (turn, step); None if the log gave it no usage."""
        code = _coded((turn, step))
        firsts, at = self.firsts, self._at + 1
        if self.index is None and at < len(firsts) and firsts[at] == code:
            self._at = at  # (the timing walk asks in table order: the next call, most often)
            p = at if self.first_at is None else self.first_at[at]
        else:
            p = self.find(code)
        return None if p is None else self.cols[2][p]

    def key_at(self, p: int) -> tuple:
        """The (turn, step) of the entry at position ``p`` (as first seen)."""
        return _decoded(self._key(p), self.odd)

    def keys(self, start: int = 0) -> Iterator[tuple]:
        """Each call's (turn, step) from position ``start`` on, in order."""
        if self.firsts is self.codes and not self.odd:  # (a usual table: each key two ints)
            return map(_pair, self.codes[start:])
        return map(self.key_at, range(start, len(self.codes)))

    def rows(self, start: int = 0) -> Iterator[tuple]:
        """(key, seq, from a chunk, counts) of each call from position ``start`` on, made as read."""
        return zip(self.keys(start), self.cols[0][start:], self.chunk[start:],
                   zip(*(col[start:] for col in self.cols[1:])))

    def merge(self, later: CallTable | tuple) -> None:
        """Add a later part of the log's calls (the tail helper's, or its ``pack``) as if read on. Its
        entries are runs in sample order, each of another call than the one before: put in order, its
        first run goes on the last one here if it is the same call's, the others start runs. When no
        call of it is here already (the usual slice), its columns are appended at once."""
        if not isinstance(later, tuple):
            later = later.pack()
        blob, keyed, ascending, cols, chunk, odd, last, nan = later
        theirs = array("q")
        theirs.frombytes(blob)
        self.nan |= nan
        if not theirs:
            return
        firsts, n0 = self.firsts, len(self.chunk)
        # All first runs, ascending, the first past the last here (the usual slice): none of it is here.
        after = ascending and min(theirs) >= 0 and self.index is None and (not firsts or theirs[0] > firsts[-1])
        keys = None if after else [code if code >= 0 else keyed[p] if code == -1 else (-2 - code, p, None)
                                   for p, code in enumerate(theirs)]
        if (self.last is not None and self.last[0] == _base(theirs[0] if after else keys[0])) or (
                keys is not None and any(type(code) is tuple and len(code) == 3 or self.find(code) is not None
                                         for code in keys)):
            for i, code in enumerate(keys or list(theirs)):  # (a few: a call a slice boundary cut, or one that came back)
                self.put(_decoded(code, odd), cols[0][i], tuple([col[i] for col in cols[1:]]), bool(chunk[i]))
            return
        for k, first in odd.items():
            if self.find(k) is None:  # (one new here: its first-seen tuple comes along)
                self.odd[k] = first
        if after:
            self.codes.extend(theirs)
            if firsts is not self.codes:
                firsts.extend(theirs)
                self.first_at.extend(range(n0, n0 + len(theirs)))
        else:
            for p, code in enumerate(keys, n0):
                self._add_key(code, p)
        self.chunk.extend(chunk)
        try:
            for col_here, col in zip(self.cols, cols):
                col_here.extend(col)
        except (OverflowError, TypeError):  # past int64: what the failed extend left is dropped
            self._widen(n0)
            for col_here, col in zip(self.cols, cols):
                col_here.extend(col)
        if last is not None:
            self.last = (last[0], last[1] + n0)

    # The dict view the tests and debugging read: key -> (seq, counts, from a chunk).
    def __len__(self) -> int:
        return len(self.chunk)

    def __getitem__(self, key: tuple) -> tuple:
        p = self.find(_coded(key))
        if p is None:
            raise KeyError(key)
        return self.row(p)

    def items(self) -> Iterator[tuple]:
        return ((key, (seq, counts, bool(c))) for key, seq, c, counts in self.rows())

    def values(self) -> Iterator[tuple]:
        return (v for _, v in self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CallTable):
            return list(self.items()) == list(other.items())
        return isinstance(other, dict) and dict(self.items()) == other

    __hash__ = None  # type: ignore[assignment]

    def pack(self) -> tuple:
        """Plain values marshal can send (the tail helper's slices): the codes' bytes, the tuple keys
        by position, whether the codes ascend, columns, chunk flags, the first-seen tuples of the odd
        keys, and the last run's (base key, position)."""
        return (self.codes.tobytes(), dict(self.keyed), self.index is None, [list(col) for col in self.cols],
                bytes(self.chunk), dict(self.odd), self.last, self.nan)
