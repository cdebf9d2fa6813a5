"""The index cache's payload as data only: plain values and a closed set of this package's record classes.

`encode` turns the payload into a JSON tree (orjson) plus one blob of binary parts; `decode` builds
it back. Nothing in an entry can name a function, a module or a class outside `REGISTRY`: decoding
makes only str, int, float, bool, None, list, tuple, dict, set, frozenset, Counter, array, bytes,
bytearray, range and Path values, and the registered record classes (msgspec Structs) through their own
constructors.

The tree holds str, finite floats, 64-bit ints, bool, None and str-keyed dicts as they are; every
other value is a list whose first item is a tag:

    ["l", item...] list           ["t", item...] tuple        ["S", ...] set    ["F", ...] frozenset
    ["d", k, v, ...] dict with other keys (or keys not valid UTF-8)    ["C", k, v, ...] Counter
    ["o", class name, [i...], field value...] a registered record class, fields in `__struct_fields__`
        order; the values at positions i are containers (tagged lists or dicts), the others plain
    ["r", n] the n-th container met before (numbered in the order they start): shared stays shared
    ["a", typecode, offset, length] array, ["b", offset, length] bytes, ["B", ...] bytearray,
    ["u", offset, length] a str that is not valid UTF-8 (a lone surrogate): parts of the blob
    ["i", digits] an int past 64 bits    ["f", "nan" | "inf" | "-inf"]    ["P", str] Path
    ["R", start, stop, step] range

Decoding makes equal values of a few fields one object (`_SHARED_FIELDS`: a kind, a status, a turn
number), as the diagnosis's pass shares them, and arrays and lists at their exact size.

`SCHEMA` fingerprints the registry (class, field names and annotations) and the machine's array
layout; the cache binds it into each entry's MAC, so a changed record class never reads an old entry.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections import Counter
from itertools import islice
from operator import attrgetter, is_not
from pathlib import Path
from typing import Any, Callable, Protocol

from msgspec import Struct
import orjson

from ..diagnosing.diagnosis import Diagnosis, Finding
from ..reading.header import Header, Rejection
from ..diagnosing.pairing import Pair, Pairing, TurnState
from ..reading.restore import Problem, Refusals
from ..reading.scanresult import ScanResult, SeqGap, UnknownType
from ..reading.source import Corruption, RawLog, TornTail
from ..diagnosing.usage import Usage
from .entryparts import FileParts, MemoryParts

# Exact classes, never "anything in this module": what a payload may hold besides plain values.
REGISTRY: tuple[type, ...] = (RawLog, TornTail, Corruption, Header, Rejection, ScanResult, SeqGap, UnknownType,
                              Refusals, Problem, Diagnosis, Finding, Pairing, Pair, TurnState, Usage)
TYPECODES = "bBhHiIlLqQfd"  # array types an entry may hold (no 'u'/'w': platform-sized text)
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1  # what orjson writes as a JSON number
_PATH = type(Path())  # PosixPath here


class CodecError(ValueError):
    """The payload holds something the format cannot carry, or an entry does not decode."""


def _fields(cls: type) -> tuple[str, ...]:
    """A record class's fields, in its constructor's order (a msgspec Struct's are all taken by it)."""
    fields = getattr(cls, "__struct_fields__", None)
    if type(fields) is not tuple or not issubclass(cls, Struct):
        raise TypeError(f"{cls.__name__} is not a record class (a msgspec Struct)")
    return fields


_BY_NAME: dict[str, type] = {cls.__name__: cls for cls in REGISTRY}
_FIELDS: dict[type, tuple[str, ...]] = {cls: _fields(cls) for cls in REGISTRY}
_N_FIELDS: dict[type, int] = {cls: len(names) for cls, names in _FIELDS.items()}
_POST_INIT = frozenset(cls for cls in REGISTRY if hasattr(cls, "__post_init__"))
_GETTERS = {cls: attrgetter(*names) if len(names) > 1 else (lambda o, n=names: tuple(getattr(o, f) for f in n))
            for cls, names in _FIELDS.items()}  # the field values, as a tuple, in field order
if len(_BY_NAME) != len(REGISTRY):
    raise TypeError("two registered classes share a name")
# Fields whose values repeat from record to record (a kind, a status, a tool name, the advice of a kind,
# a call id a pair and its findings both hold, a turn number, a retry's message): JSON makes an object per occurrence,
# where the diagnosis's pass shares one. Decoded, a str or int is the entry's first equal one.
_SHARED_FIELDS = {Finding: ("kind", "severity", "call_id", "name", "turn", "code", "advice", "run", "message"),
                  Pair: ("kind", "key", "name", "status", "code", "turn")}
_SHARED = {cls: tuple(_FIELDS[cls].index(name) for name in names) for cls, names in _SHARED_FIELDS.items()}
# An event's seq is its index's int object when the two are equal (a log numbered from 0): fields
# (second, first) where the second is then the first's object, as in a fresh diagnosis.
_SAME_FIELDS = {Finding: (("seq", "index"),),
                Pair: (("seq_ask", "ask"), ("seq_open", "open"), ("seq_close", "close"))}
_SAME = {cls: tuple((_FIELDS[cls].index(a), _FIELDS[cls].index(b)) for a, b in pairs)
         for cls, pairs in _SAME_FIELDS.items()}


def _annotation(cls: type, name: str) -> str:
    """A field's annotation as written (a str: the modules postpone them), from the class that declares it."""
    for klass in cls.__mro__:
        if name in klass.__dict__.get("__annotations__", {}):
            return str(klass.__annotations__[name])
    return "?"


def _schema() -> str:
    parts = [f"{cls.__module__}.{cls.__qualname__}(" + ",".join(f"{name}:{_annotation(cls, name)}" for name in _FIELDS[cls])
             + ")" for cls in REGISTRY]
    parts.append(sys.byteorder + ":" + ",".join(f"{c}{array(c).itemsize}" for c in TYPECODES))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


SCHEMA = _schema()


class PartSink(Protocol):
    """Where `encode` puts the binary parts, in order, as it makes them."""

    def write(self, data: bytes) -> None: ...

    def restart(self) -> None: ...  # before each try: what an earlier one wrote is void


class _PartList:
    def __init__(self, parts: list[bytes]) -> None:
        self.write, self.restart = parts.append, parts.clear


def encode(payload: Any, sink: PartSink | None = None) -> tuple[bytes, list[bytes]]:
    """The JSON tree and the binary parts (concatenated, they are the blob the tree's offsets
    point into). With ``sink``, each part goes to it as it is made and none is kept (the list is
    empty): a big log's arrays are ~90 MiB, each copied as it is written, not all held at once.
    Raises CodecError (or RecursionError) for what the format does not carry: an unregistered class,
    a subclass of a container, a cycle, nesting past orjson's limit."""
    parts: list[bytes] = []
    out = _PartList(parts) if sink is None else sink
    out.restart()
    try:  # first without looking into each str and int: orjson refuses the rare one it cannot write
        return _encode(payload, False, out.write), parts
    except orjson.JSONEncodeError:
        pass
    out.restart()
    try:
        return _encode(payload, True, out.write), parts
    except orjson.JSONEncodeError as exc:  # nesting past orjson's limit (a crafted header)
        raise CodecError(str(exc)) from None


def _utf8(s: str) -> bool:
    if s.isascii():
        return True
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:  # a lone surrogate (json.loads makes them from "\\ud800")
        return False


_AS_IS = frozenset({str, int, bool, type(None)})  # passed to orjson unchecked on the first try
_STR = frozenset({str})
_JSON_CONTAINERS = frozenset({list, dict})  # what an encoded value is when it must be decoded


def _encode(payload: Any, careful: bool, write: Callable[[bytes], None]) -> bytes:
    memo: dict[int, tuple[int, Any]] = {}  # id -> (number, object): the object kept alive while encoding
    active: set[int] = set()  # containers being encoded: a reference to one is a cycle
    size = [0]
    as_is = frozenset() if careful else _AS_IS

    def blob(data: bytes) -> list:
        start = size[0]
        write(data)
        size[0] += len(data)
        return [start, len(data)]

    def enc(v: Any) -> Any:
        t = type(v)
        if t is str:
            return v if _utf8(v) else ["u", *blob(v.encode("utf-8", "surrogatepass"))]
        if t is bool or v is None:
            return v
        if t is int:
            return v if _INT_MIN <= v <= _INT_MAX else ["i", str(v)]
        if t is float:
            return v if v - v == 0 else ["f", repr(v)]  # v - v is nan for nan and +-inf (orjson writes null)
        if t is _PATH:
            return ["P", enc(str(v))]
        if t is range:
            return ["R", v.start, v.stop, v.step]
        key = id(v)
        seen = memo.get(key)
        if seen is not None:
            if key in active:
                raise CodecError(f"a {t.__name__} contains itself")
            return ["r", seen[0]]
        memo[key] = (len(memo), v)
        active.add(key)  # (an error ends the whole encode: no need to take it out then)
        getter = _GETTERS.get(t)
        if getter is not None:
            values = [x if type(x) in as_is else enc(x) for x in getter(v)]
            out: Any = ["o", t.__name__, [i for i, x in enumerate(values) if type(x) in _JSON_CONTAINERS], *values]
        elif t is dict:
            if set(map(type, v)) <= _STR and (not careful or all(map(_utf8, v))):
                out = {k: x if type(x) in as_is else enc(x) for k, x in v.items()}
            else:
                out = ["d", *pairs(v)]
        elif t is list or t is tuple:
            out = ["l" if t is list else "t", *[x if type(x) in as_is else enc(x) for x in v]]
        elif t is array:
            if v.typecode not in TYPECODES:
                raise CodecError(f"array of type {v.typecode!r}")
            out = ["a", v.typecode, *blob(v.tobytes())]  # a copy: a live log may grow the array meanwhile
        elif t is bytes or t is bytearray:
            out = ["b" if t is bytes else "B", *blob(bytes(v))]
        elif t is Counter:
            out = ["C", *pairs(v)]
        elif t is set or t is frozenset:
            out = ["S" if t is set else "F", *map(enc, v)]
        else:
            raise CodecError(f"the index cache cannot hold a {t.__module__}.{t.__qualname__}")
        active.discard(key)
        return out

    def pairs(d: dict) -> list:
        out = []
        for k, x in d.items():
            out.append(enc(k))
            out.append(enc(x))
        return out

    return orjson.dumps(enc(payload))


_PENDING = object()  # a container's slot while its items are decoded


def decode(tree: bytes | bytearray | memoryview, blobs: bytes | bytearray | memoryview | FileParts) -> Any:
    """Build the payload back (``blobs``: the binary parts, or their reader from the entry's file).
    Raises CodecError for anything `encode` would not have written."""
    dec, done = _decoder(blobs if type(blobs) is FileParts else MemoryParts(blobs))
    try:
        return dec(orjson.loads(tree))
    except CodecError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError,
            MemoryError, UnicodeError) as exc:
        raise CodecError(f"{type(exc).__name__}: {exc}") from None
    finally:
        done()


def _decoder(blobs: MemoryParts | FileParts):
    """The decoding function for one entry (a closure over its container table and binary parts),
    and the call that ends it. `dec` calls itself, a reference cycle that would keep the table and
    the entry's bytes alive until a collection, and the explorer freezes what its load made
    (gcpause.py): `done` breaks the cycle, so they are freed as the decode returns."""
    table: list[Any] = []  # containers, in the order they start (what ["r", n] refers to)
    append = table.append
    by_name, n_fields, simple, post_init, shared, same = _BY_NAME, _N_FIELDS, _SIMPLE, _POST_INIT, _SHARED, _SAME
    first: dict = {}  # the first str or int object of each value met in a shared field (a str never equals an int)

    def dec(v: Any) -> Any:
        t = type(v)
        if t is dict:
            append(v)  # decoded in place: only values are replaced, the dict is the result
            for k, x in v.items():
                if type(x) is list or type(x) is dict:
                    v[k] = dec(x)
            return v
        if t is not list:
            return v
        tag = v[0] if v else None
        if tag == "o":  # ["o", name, [positions of the values to decode], value...]
            slot = len(table)
            append(_PENDING)
            cls = by_name.get(v[1]) if type(v[1]) is str else None
            if cls is None or len(v) - 3 != n_fields[cls] or type(v[2]) is not list:
                raise CodecError(f"not a registered class (or not its fields): {str(v[1])[:40]!r}")
            args = v[3:]
            for i in v[2]:  # the rest are plain values: no look at each of a Pair's 14 fields
                args[i] = dec(args[i])  # (a position not listed would stay plain JSON: still only data)
            for i in shared.get(cls, ()):
                x = args[i]
                if type(x) is str or type(x) is int:  # (not a float or a bool: 1.0 == True == 1)
                    args[i] = first.setdefault(x, x)
            for i, j in same.get(cls, ()):
                x = args[j]
                if args[i] == x and type(x) is int and type(args[i]) is int:
                    args[i] = x
            out: Any = cls(*args)
            if cls in post_init:  # a __post_init__ may fill in a field: the entry's value stands
                got = _GETTERS[cls](out)
                if any(map(is_not, got, args)):
                    for name, have, value in zip(_FIELDS[cls], got, args):
                        if have is not value:
                            setattr(out, name, value)  # (no registered class is frozen)
            table[slot] = out
            return out
        if tag == "r":
            if len(v) != 2 or type(v[1]) is not int or not 0 <= v[1] < len(table):
                raise CodecError("a reference to nothing")
            out = table[v[1]]
            if out is _PENDING:
                raise CodecError("a container that contains itself")
            return out
        if type(tag) is not str:
            raise CodecError("an untagged list")
        if tag in simple:
            out = simple[tag](blobs, v)
            if tag in _NUMBERED:
                append(out)
            return out
        slot = len(table)
        append(_PENDING)
        items = [dec(x) if type(x) is list or type(x) is dict else x for x in islice(v, 1, None)]
        if tag == "l":
            out = items[:]  # (a copy at its exact size: a comprehension leaves a 1-item list room for 4)
        elif tag == "t":
            out = tuple(items)
        elif tag == "d" or tag == "C":
            if len(items) % 2:
                raise CodecError("a dict with a key and no value")
            out = dict(zip(items[::2], items[1::2]))
            if tag == "C":
                out = Counter(out)
        elif tag == "S":
            out = set(items)
        elif tag == "F":
            out = frozenset(items)
        else:
            raise CodecError(f"unknown tag {tag[:8]!r}")
        table[slot] = out
        return out

    def done() -> None:
        nonlocal dec, blobs
        table.clear()
        first.clear()
        dec = blobs = None  # type: ignore[assignment]

    return dec, done


def _array(blobs: MemoryParts | FileParts, v: list) -> array:
    if len(v) != 4 or type(v[1]) is not str or len(v[1]) != 1 or v[1] not in TYPECODES:
        raise CodecError("a bad array")
    blobs.check(v[2], v[3])
    size = array(v[1]).itemsize
    if v[3] % size:
        raise CodecError("an array cut inside an item")
    # Made at its exact size, then filled (from the entry's file, no copy between): frombytes grows an
    # array by a sixteenth more than it needs (~5 MiB over a 10M-event log's index); most of an entry's
    # arrays never grow (a followed log's index does, as any array).
    out = array(v[1], bytes(size)) * (v[3] // size)
    with memoryview(out) as view, view.cast("B") as flat:
        blobs.fill(flat, v[2])
    return out


def _bytes(blobs: MemoryParts | FileParts, v: list) -> bytes | bytearray:
    if len(v) != 3:
        raise CodecError("bad bytes")
    return (bytes if v[0] == "b" else bytearray)(blobs.read(v[1], v[2]))


def _text(blobs: MemoryParts | FileParts, v: list) -> str:
    if len(v) != 3:
        raise CodecError("a bad string")
    return bytes(blobs.read(v[1], v[2])).decode("utf-8", "surrogatepass")


def _bigint(blobs: MemoryParts | FileParts, v: list) -> int:
    if len(v) != 2 or type(v[1]) is not str or not 0 < len(v[1]) <= 4000:  # int() of a long string is slow
        raise CodecError("a bad int")
    return int(v[1])


def _float(blobs: MemoryParts | FileParts, v: list) -> float:
    if len(v) != 2 or v[1] not in ("nan", "inf", "-inf"):
        raise CodecError("a bad float")
    return float(v[1])


def _path(blobs: MemoryParts | FileParts, v: list) -> Path:
    name = v[1] if len(v) == 2 else None
    if type(name) is list and name[:1] == ["u"]:
        name = _text(blobs, name)
    if type(name) is not str:
        raise CodecError("a bad path")
    return Path(name)


def _range(blobs: MemoryParts | FileParts, v: list) -> range:
    if len(v) != 4 or any(type(x) is not int for x in v[1:]):
        raise CodecError("a bad range")
    return range(v[1], v[2], v[3])


# Values without items. The encoder numbers arrays and bytes (shared ones stay shared), not the others.
_SIMPLE = {"a": _array, "b": _bytes, "B": _bytes, "u": _text, "i": _bigint, "f": _float, "P": _path, "R": _range}
_NUMBERED = frozenset("abB")
