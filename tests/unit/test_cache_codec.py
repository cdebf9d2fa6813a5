"""The index cache's codec: every payload comes back equal, shared objects stay shared, and an
entry can hold nothing but plain values and the registered record classes."""

from __future__ import annotations

import dataclasses
import enum
import gc
import math
from array import array
from collections import Counter, OrderedDict
from pathlib import Path

import msgspec
import msgspec.structs
import orjson
import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.opening import cachecodec
from dsh_tui.model.opening.cachecodec import CodecError, decode, encode
from dsh_tui.model.opening.open import cache_payload, from_payload
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.diagnosing.pairing import Pair, pairing_from_plain
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.source import LogUnreadable, max_plain_bytes

from ..support.logs import DSH_LOGS
from ..support.hostile_corpus import build_cases

BOMB_BYTES = 1024 * 1024  # hostile_corpus.BOMB_LIMIT, the limit `check` refuses the bomb under


def roundtrip(value):
    tree, parts = encode(value)
    return decode(tree, b"".join(parts))


def test_odd_values_come_back_as_they_were():
    shared = ["a", 1]
    value = {
        "ints": [0, -1, 2**63 - 1, -2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**400],
        "floats": [0.5, -0.0, 1e308, math.inf, -math.inf],
        "text": ["", "plain", "é ✓ 𝄞", "lone \ud800 surrogate", "\udcff"],
        "keys": {1: "int", (1, "x"): "tuple", None: "none", True: "bool", 1.5: "float", "\ud800": "surrogate"},
        "tuples": (1, (2, ()), [3]),
        "counter": Counter({"a": 3, "b": 1}),
        "sets": [{1, 2}, frozenset({"x"})],
        "binary": [b"\x00\xff", bytearray(b"abc"), array("Q", [1, 2**64 - 1]), array("B"), array("d", [0.25])],
        "misc": [range(2, 10, 3), Path("/tmp/x \udcff y"), None, False],
        "shared": [shared, shared],
        "nested": {"a": {"b": [{"c": None}]}},
    }
    back = roundtrip(value)
    assert back.keys() == value.keys()
    for key in value:
        if key != "floats":
            assert back[key] == value[key], key
            assert type(back[key]) is type(value[key])
    assert back["floats"][:3] == [0.5, -0.0, 1e308] and math.copysign(1, back["floats"][1]) == -1
    assert back["floats"][3:] == [math.inf, -math.inf]
    assert math.isnan(roundtrip([math.nan])[0])
    assert [type(x) for x in back["binary"]] == [bytes, bytearray, array, array, array]
    assert back["binary"][2].typecode == "Q" and type(back["counter"]) is Counter
    assert back["shared"][0] is back["shared"][1]


def test_dataclasses_are_built_by_their_constructor_and_shared_ones_stay_shared():
    pair = Pair("tool", "c1", "bash")
    pair.set_seq("o", 3)
    back = roundtrip({"tools": {"c1": pair}, "pending": {"c1": pair}, "list": [pair]})
    assert back["tools"]["c1"] == pair and type(back["tools"]["c1"]) is Pair
    assert back["pending"]["c1"] is back["tools"]["c1"] is back["list"][0]


@dataclasses.dataclass
class NotRegistered:
    x: int = 1


class StructNotRegistered(msgspec.Struct):
    x: int = 1


class Flag(enum.IntEnum):
    ON = 1


@pytest.mark.parametrize("value", [NotRegistered(), StructNotRegistered(), print, OrderedDict(a=1), Flag.ON, type("S", (str,), {})("s"),
                                   array("u", "x"), object(), memoryview(b"x")],
                         ids=["dataclass", "struct", "function", "OrderedDict", "IntEnum", "str-subclass", "array-u", "object",
                              "memoryview"])
def test_what_the_format_does_not_carry_is_refused(value):
    with pytest.raises(CodecError):
        encode({"x": [value]})


def test_a_cycle_is_refused():
    loop: list = []
    loop.append(loop)
    with pytest.raises(CodecError):
        encode(loop)


@pytest.mark.parametrize("tree", [
    ["o", "system", [], "id"],  # a name outside the registry
    ["o", "os.system", [], "id"],
    ["o", "dsh_tui.model.opening.cache.os.system", [], "id"],
    ["o", "Popen", [], ["l", "sh", "-c", "id"]],
    ["o", "Pair", [], "tool"],  # the wrong number of fields
    ["x", 1], ["l", ["q"]], [], [1, 2],  # unknown tags, no tag
    ["r", 0], ["r", 5], ["t", ["r", 0]],  # a reference to nothing, a cycle
    ["a", "u", 0, 4], ["a", "Q", 0, 3], ["a", "Q", 0, 800], ["b", -1, 2], ["b", 0, 10**6],  # bad parts
    ["i", "1" * 5000], ["i", "x"], ["f", "1.0"], ["P", 3], ["R", 1, 2], ["d", 1],
    ["S", ["l"]],  # an unhashable member
])
def test_a_tree_encode_would_not_write_is_refused(tree):
    with pytest.raises(CodecError):
        decode(orjson.dumps(tree), b"\x00" * 16)


def test_registry_is_closed_and_exact():
    assert all(issubclass(cls, msgspec.Struct) for cls in cachecodec.REGISTRY)
    assert len({cls.__name__ for cls in cachecodec.REGISTRY}) == len(cachecodec.REGISTRY)
    assert set(cachecodec.TYPECODES) <= set("bBhHiIlLqQfd")


# -- every real and hostile log: what the cache gives back is what the decode gave ----------------

def _logs() -> list[Path]:
    if not DSH_LOGS.is_dir():
        return []
    return sorted(p for p in DSH_LOGS.rglob("*") if p.is_file() and not p.name.endswith((".md", ".json")))


def _assert_roundtrip(path: Path, max_plain: int | None = None) -> None:
    try:
        log, diag = open_target(path, OpenOptions(use_cache=False, max_plain=max_plain))
    except LogUnreadable:
        return  # nothing to cache
    before = check_json(log, diag)
    payload = cache_payload(log, diag)
    back = decode(*_encoded(payload))
    log2, diag2 = from_payload(path, back, log.lenient, max_plain_bytes(max_plain))
    assert check_json(log2, diag2) == before
    assert diag2.findings == diag.findings and diag2.pairs == diag.pairs
    assert back["res"].context in (log.res.context, None)  # the scan's records, or none to read again
    assert back["res"].context is not None or payload["context"] is None
    restored = msgspec.structs.replace(back["res"], context=None)  # (cached apart, as one JSON blob)
    assert _same(diag2, diag) and _same(restored, payload["res"]) and _same(back["raw"], payload["raw"])
    assert back["header"] == log.header
    if diag2.verdict is not None:  # the verdict is one of the findings, not a copy
        assert any(f is diag2.verdict for f in diag2.findings)
    tools = diag2.pairing.tools
    for key, pair in diag2.pairing.state.pending.items():
        assert tools.get(key) is pair
    assert all(any(p is q for q in tools.values()) for p in diag2.pairing.interrupted if p.kind == "tool")
    picks = sorted({0, len(log) // 2, len(log) - 1}) if len(log) else []
    assert [log2.event(i) for i in picks] == [log.event(i) for i in picks]


def _encoded(payload):
    tree, parts = encode(payload)
    return tree, b"".join(parts)


def _same(a, b) -> bool:
    """Equal in every field; a NaN (a log read leniently may hold one) equal to a NaN."""
    return a == b or repr(a) == repr(b)


@pytest.mark.parametrize("path", _logs(), ids=lambda p: p.name)
def test_every_shared_log_round_trips(path):
    _assert_roundtrip(path)


def test_shared_logs_are_there_to_round_trip():
    if not DSH_LOGS.is_dir():
        pytest.skip("../shared/dsh-logs not available")
    assert len(_logs()) > 10


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return build_cases(tmp_path_factory.mktemp("hostile-codec"))


def test_every_hostile_log_round_trips(corpus):
    for name, (path, _code, _words) in sorted(corpus.items()):
        _assert_roundtrip(path, BOMB_BYTES if name == "decompression-bomb" else None)


def test_a_decode_leaves_no_cycle_behind(tmp_path):
    """The explorer freezes what its load made (gcpause.py), so garbage that only the collector
    could free would stay for good: a decode must free its table and the entry's bytes by itself."""
    path = tmp_path / "s__session.jsonl.zstd"
    write_synthetic(path, 3_000)
    log, diag = open_target(path, OpenOptions(use_cache=False))
    tree, blob = _encoded(cache_payload(log, diag))
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        back = decode(tree, blob)
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    pairing_from_plain(back["diag"].pairing)  # (the tables go as columns: open.py's from_payload)
    assert back["diag"].pairs == diag.pairs
