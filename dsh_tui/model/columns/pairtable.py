"""The pairs of one kind by key (pairing.py's `Pair`), the finished ones kept as columns.

A big log has a hundred thousand tool calls. As objects, a pair and its int objects held ~300 bytes
besides its text; as a row of columns (packed.py), ~130. The table reads as the dict it stands for
(`get`, `[key]`, `in`, `len`, iteration over keys, `values`, `items`, in the order first met), and a
pair read from it is made anew from its row: read it, do not change it. Only pairing.py changes
pairs, through `live` (the pair's own object while it changes) and `tidy` (write back what is done).
A log with fewer pairs than a batch (PACK_AT) never packs: its pairs stay the objects made.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import compress, islice
from operator import attrgetter
from typing import Any

from .cells import TEXT_TYPES
from .packed import PACK_AT, PackedList, pack_due
from .textcolumn import TextColumn

PAIR_INTS = ("ask", "open", "close", "turn", "step", "seq_ask", "seq_open", "seq_close", "seq_order", "earlier_call")
PAIR_SPARSE = ("cleared", "repaired")  # (None / False for most pairs; never an other falsy value)
PAIR_SEQS = (("seq_ask", "ask"), ("seq_open", "open"), ("seq_close", "close"))  # (a seq, its event index)
PAIR_TEXTS = ("detail", "result")  # (the arguments' and the result's previews: ~50 bytes less each)
_TEXTS = ("key", "status", "code", "detail", "result", "for_call")  # str or None in any pair (a name: any value)


class PairTable:
    """Pairs of one kind by key (module docstring)."""

    __slots__ = ("kind", "rows", "list")

    def __init__(self, cls: type, kind: str) -> None:
        self.kind = kind
        self.rows: dict[str, int] = {}  # key -> row
        self.list = PackedList(cls, PAIR_INTS, PAIR_SPARSE, PAIR_TEXTS)

    # -- the dict it stands for ------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)

    def __contains__(self, key: Any) -> bool:
        return key in self.rows

    def __getitem__(self, key: str) -> Any:
        return self.list[self.rows[key]]

    def get(self, key: Any, default: Any = None) -> Any:
        k = self.rows.get(key)
        return default if k is None else self.list[k]

    def keys(self):
        return self.rows.keys()

    def freeze(self) -> None:
        """Key -> row as `FrozenKeys` once the table is finished (a packed one: a big log's), not a dict
        and an int object a key, and each seq column one array with its event's where they are the same;
        `add` makes the dict again."""
        if self._finished():
            if type(self.rows) is dict:
                self.rows = self._frozen(self.list.objs["key"])
            self.list.share_equal(PAIR_SEQS)  # (a re-open's too: an entry `check` wrote keeps them two)

    def _frozen(self, keys: Sequence[str]) -> FrozenKeys:
        """The rows keyed by ``keys`` (the key column's values, in row order), and that column as text:
        the keys' str objects, made all along the read (98k callIds on the x11 file), kept the
        allocator's pools they sat in from being given back."""
        frozen = FrozenKeys(keys)  # (hashed from the strs while they are here)
        frozen.column = self.list.objs["key"] = TextColumn(keys)
        return frozen

    def _finished(self) -> bool:
        """Packed, with no record waiting to be: a big log's table once it is read."""
        return bool(self.list.packed) and not self.list.pending

    def values(self) -> Iterator:
        return iter(self.list)

    def items(self) -> Iterator[tuple[str, Any]]:
        return zip(self.rows, self.list)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PairTable):
            return self.kind == other.kind and list(self.items()) == list(other.items())
        return dict(self.items()) == other if isinstance(other, dict) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PairTable({dict(self.items())!r})"

    def where(self, name: str, test) -> Iterator:
        """The pairs whose field ``name`` passes ``test``, in order; only those are made."""
        items = self.list
        if not items.packed:  # (the objects themselves, by C loops: a common log's)
            return compress(items.pending, map(test, map(attrgetter(name), items.pending)))
        return _where(items, map(test, items.iter_column(name)))

    # -- pairing.py's ----------------------------------------------------------------------------
    def add(self, pair: Any) -> Any:
        """A pair met for the first time (its key not in the table)."""
        if type(self.rows) is not dict:  # a finished table read on (a live log's follow): a dict again
            self.rows = dict(zip(self.rows, range(len(self.rows))))
        self.rows[pair.key] = len(self.list)
        self.list.append(pair)
        return pair

    def live(self, key: Any) -> Any:
        """The pair of ``key`` to change (None if there is none): its own object until `tidy`."""
        k = self.rows.get(key)
        if k is None:
            return None
        items = self.list
        return items.pending[k - items.packed] if k >= items.packed else items.revive(k)

    def set_fields(self, key: Any, **values: Any) -> None:
        """Change fields of ``key``'s pair without making it: a packed row's columns are written in
        place (close_pairing marks every open call; a million of them revived and settled one by one
        took ~50 us and ~1 KB each, all held at once)."""
        k = self.rows[key]
        items = self.list
        obj = items.pending[k - items.packed] if k >= items.packed else items.live.get(k)
        if obj is not None:
            for name, v in values.items():
                setattr(obj, name, v)
            return
        for name, v in values.items():
            if name in items.objs:
                items.objs[name][k] = v
            elif name in items.sparse:
                if v:
                    items.sparse[name][k] = v
                else:
                    items.sparse[name].pop(k, None)
            else:
                items.odd.pop((name, k), None)
                items._set_int(name, k, v)

    def tidy(self, busy: set[int] | frozenset = frozenset(), *, done: bool = False) -> None:
        """Write back the pairs being changed but those in ``busy`` (by id), and pack the ones waiting
        once a batch waits (with ``done``, all of them, on a table that packed before)."""
        items = self.list
        if items.live:
            for item in [x for x in items.live.values() if id(x) not in busy]:
                items.settle(item)
        if pack_due(items, PACK_AT) or done and items.packed and items.pending:
            items.pack(live=busy)

    # -- the index cache's form ------------------------------------------------------------------
    def plain(self) -> tuple:
        """Plain values only (cachecodec): the keys, then the columns (PackedList.plain)."""
        keys = list(self.rows)  # (the key column's values: one str a key in both, read once from its text)
        return ("pairs", self.kind, keys, self.list.plain({"key": keys}))

    @classmethod
    def from_plain(cls_, cls: type, kind: str, plain: Any) -> PairTable:
        """`plain`'s table back, checked (ValueError: a cache entry is not trusted)."""
        if not (type(plain) is tuple and len(plain) == 4 and plain[0] == "pairs" and plain[1] == kind
                and type(plain[2]) is list):
            raise ValueError("not a pair table")
        out = cls_(cls, kind)
        keys = plain[2]
        out.list = PackedList.from_plain(cls, PAIR_INTS, PAIR_SPARSE, plain[3], PAIR_TEXTS)
        if len(keys) != len(out.list) or not TEXT_TYPES.issuperset(map(type, keys)) or None in keys:
            raise ValueError("not a pair table's keys")
        objs = out.list.objs
        if len(set(keys)) != len(keys) or objs["key"] != keys or any(k != kind for k in objs["kind"]):
            raise ValueError("not a pair table's keys")
        objs["key"] = keys  # one str a key, the index's (text once finished: `_frozen`)
        for name in _TEXTS:
            if not TEXT_TYPES.issuperset(map(type, objs[name])):
                raise ValueError(f"a bad column {name}")
        out.rows = out._frozen(keys) if out._finished() else dict(zip(keys, range(len(keys))))
        return out

    def adopt(self, pair: Any) -> bool:
        """Make ``pair`` (one the entry also holds elsewhere: a pending or interrupted call) its row's
        object, as in a fresh diagnosis; False if it is not the row's pair."""
        k = self.rows.get(pair.key)
        if k is None or self.list[k] != pair:
            return False
        items = self.list
        if k >= items.packed:
            items.pending[k - items.packed] = pair
        else:
            pair.key = items.objs["key"][k]  # (the dict's own str)
            items.keep_live(k, pair)
        return True


class FrozenKeys:
    """A finished table's key -> row (the part of a dict the table reads): each key's hash, sorted, and
    its row, in arrays beside the table's key column. ~16 bytes a key where a dict and an int object
    a row took ~60: the 10M generated log's 107k tool calls, 6.5 -> 1.7 MiB."""

    __slots__ = ("column", "hashes", "rows")

    def __init__(self, keys: Sequence[str]) -> None:
        self.column = keys  # row -> key, in the order the keys were first met
        # Sorted as one int a key, its hash above its row: a sort by a key function held two int
        # objects a key and their lists (~7 MiB for 98k keys, at the end of a load).
        both = [h << 32 | row for row, h in enumerate(map(hash, keys))]
        both.sort()
        self.hashes = array("q", (x >> 32 for x in both))
        self.rows = array("q", (x & 0xFFFFFFFF for x in both))

    def get(self, key: Any, default: Any = None) -> Any:
        h = hash(key)  # (an unhashable key raises TypeError, as a dict's lookup does)
        hashes, n = self.hashes, len(self.hashes)
        i = bisect_left(hashes, h)
        while i < n and hashes[i] == h:
            row = self.rows[i]
            if self.column[row] == key:
                return row
            i += 1
        return default

    def __getitem__(self, key: Any) -> int:
        row = self.get(key)
        if row is None:
            raise KeyError(key)
        return row

    def __contains__(self, key: Any) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return len(self.hashes)

    def __iter__(self) -> Iterator[str]:
        return iter(self.column)

    def keys(self) -> Iterator[str]:
        return iter(self.column)


def _where(items: PackedList, hits: Iterator[bool], step: int = 4096) -> Iterator:
    """The records of ``items`` where ``hits`` is true, made a slice of rows at a time (one by one, a
    big table's every pair took ~20 us)."""
    n = len(items)
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        picked = list(compress(range(lo, hi), islice(hits, hi - lo)))
        if picked:
            first = picked[0]
            made = list(items.records(first, picked[-1] + 1))
            yield from (made[k - first] for k in picked)


class PairOrder(Sequence):
    """Every pair of ``tables``, newest first (by their newest, then oldest event; a tie in the tables'
    order): positions, each pair made as it is read."""

    def __init__(self, tables: Sequence[PairTable]) -> None:
        self.tables = tuple(tables)
        spans = array("q")  # newest event << 32 | oldest (event indexes are uint32): a pair's place
        refs = array("q")
        for t, table in enumerate(self.tables):
            for idx in zip(*(table.list.iter_column(name) for name in ("ask", "open", "close"))):
                xs = [i for i in idx if i is not None]
                spans.append(max(xs) << 32 | min(xs) if xs else -1)
            refs.extend(range(t, 3 * len(table), 3))
        order = sorted(range(len(spans)), key=spans.__getitem__, reverse=True)  # (stable: ties keep their order)
        self.refs = array("q", map(refs.__getitem__, order))

    def __len__(self) -> int:
        return len(self.refs)

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (PairOrder, list)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, k: Any) -> Any:
        if type(k) is slice:
            return [self[i] for i in range(*k.indices(len(self)))]
        ref = self.refs[k]
        return self.tables[ref % 3].list[ref // 3]

    def __iter__(self) -> Iterator:
        """In chunks: the rows of a chunk are made together (newest first, they run close to backwards)."""
        refs = self.refs
        for lo in range(0, len(refs), 4096):
            chunk = refs[lo:lo + 4096]
            made: dict[int, Any] = {}
            for t, table in enumerate(self.tables):
                rows = [r // 3 for r in chunk if r % 3 == t]
                if rows:
                    a, b = min(rows), max(rows) + 1
                    made.update(zip(range(3 * a + t, 3 * b + t, 3), table.list.records(a, b)))
            yield from map(made.__getitem__, chunk)

    def by_event(self) -> PairsAt:
        """Event index -> the pairs with an event there (pairs with two events there counted once)."""
        return PairsAt(self)

    def position(self, pair: Any) -> int | None:
        """Where ``pair`` (by kind and key) is in the order."""
        for t, table in enumerate(self.tables):
            if table.kind == pair.kind:
                k = table.rows.get(pair.key)
                if k is not None:
                    ref = 3 * k + t
                    return next(compress(range(len(self.refs)), map(ref.__eq__, self.refs)), None)
        return None


class PairsAt:
    """Event index -> the pairs of a `PairOrder` with an event there, oldest first, as `get` (the dict
    it stands for): one int a pair's event in a sorted array, not a dict entry and a list a event."""

    def __init__(self, order: PairOrder) -> None:
        self.order = order
        self.n = n = len(order)
        cols = [[table.list.column(name) for name in ("ask", "open", "close")] for table in order.tables]
        keys = []  # event * n + (n - 1 - position): by event, then oldest (last in the order) first
        for pos, ref in enumerate(order.refs):
            ask, open_, close = cols[ref % 3]
            r = ref // 3
            for i in {ask[r], open_[r], close[r]} - {None}:
                keys.append(i * n + n - 1 - pos)
        keys.sort()
        self.keys = array("q", keys)

    def get(self, index: Any, default: Any = None) -> Any:
        places, n = event_places(self.keys, self.n, index), self.n
        return [self.order[n - 1 - p] for p in places] if places else default


def event_places(keys: Sequence[int], n: int, index: Any) -> list[int]:
    """The places kept with event ``index`` in ``keys`` (sorted, each event * n + a place below ``n``), in
    order: an index by event held as one int an item (`PairsAt`; presenting/detail.py's `FindingsAt`).
    Empty for an index that is no event (not an int, negative), and with no keys."""
    if type(index) is not int or index < 0 or not n:
        return []
    base = index * n
    return [keys[j] - base for j in range(bisect_left(keys, base), bisect_left(keys, base + n))]
