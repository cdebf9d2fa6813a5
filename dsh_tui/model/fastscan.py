"""The Scanner's fast path: a whole chunk of ordinary records decoded by msgspec in one call.

Parsing every line into Python objects (orjson) and then walking them in Python
bounds a plain scan. Most of a big log is records whose payload the index never
reads: msgspec decodes a chunk's lines against typed envelopes (a tagged union
over the known event types), validating every byte of JSON syntax while it
skips the payloads, and builds only the few fields the index needs.

Only a chunk where everything is ordinary takes this path: valid UTF-8, no
blank lines, every record a known type with exactly the envelope keys dsh
allows, seq contiguous, packed rows well formed. Anything else (a gap, an
unknown type, a bad record, an extra key, a malformed row, a fact payload
orjson would not read) makes `feed_fast` return False before it has changed
the scanner, and the line-by-line path (scan.py) reads the chunk and reports
what it finds. Both paths produce the same index; the tests hold them to it.
Two differences, on numbers only, by design: a number orjson refuses (1e999:
valid JSON, JavaScript reads it as Infinity) inside a payload the index skips is
not counted as a lenient record here; an integer beyond 64 bits in a fact's
field stays an exact int here where orjson makes it a float.
"""

from __future__ import annotations

from array import array
from collections import Counter
from itertools import accumulate, compress, islice
from operator import add, attrgetter, mul
from typing import Any, Union

import msgspec
import orjson

from .facts import CHUNK, FACT_CHUNKS, FACT_EXTRACTORS, LEGACY_CANDIDATES, Fact, _preview
from .legacy import upgrade
from .vocabulary import KNOWN_EVENT_TYPES, LEGACY_TYPES, MAX_SAFE, PACKED_ROWS

Raw = msgspec.Raw
UNSET = msgspec.UNSET


class _ChunkBody(msgspec.Struct, gc=False):
    type: Any = None
    usage: Any = None
    reason: Any = None


class _ChunkData(msgspec.Struct, gc=False):
    turn: Any = None
    step: Any = None
    chunk: Union[_ChunkBody, None] = None


class _TextRow(msgspec.Struct, gc=False):
    texts: list[str]
    dt: list[int]


class _ToolRow(msgspec.Struct, gc=False):
    args: list[str]
    dt: list[int]


class _Block(msgspec.Struct, gc=False):  # a content block; its text is skipped, never built
    type: Any = None
    id: Any = None
    name: Any = None
    arguments: Any = None


class _AssistantMessage(msgspec.Struct, gc=False):
    content: Union[list[_Block], None] = None


class _AssistantData(msgspec.Struct, gc=False):
    """What facts._assistant_message reads, without decoding the message's text and reasoning."""
    turn: Any = None
    step: Any = None
    message: Union[_AssistantMessage, None, msgspec.UnsetType] = UNSET
    usage: Any = None
    interrupted: Any = None
    content: Raw = None  # present only in the legacy shape


def _assistant_fact(d: _AssistantData) -> dict:
    """facts._assistant_message on the typed payload (same result for the same line)."""
    msg = d.message
    blocks = msg.content if msg is not None and msg is not UNSET else None
    calls = [{"id": b.id, "name": b.name, "args": _preview(b.arguments)}
             for b in blocks or () if b.type == "tool-call"]
    return {"turn": d.turn, "step": d.step, "calls": calls, "usage": d.usage, "interrupted": d.interrupted is True}


_ENVELOPE = dict(tag_field="type", forbid_unknown_fields=True, kw_only=True)
_OPTIONAL = [("sourceEventSeqs", Raw, None), ("surfaceOp", Any, None), ("ignorable", Raw, None)]
LOOSE, ROW, READ, SKIP, ASSISTANT = range(5)  # what the index does with a record


def _event(name: str, data_type: Any) -> type:
    """One event type's envelope: exactly the keys dsh allows; ``data`` as the index needs it."""
    fields = [("seq", int, -1), ("time", Raw, None), ("data", data_type, None), *_OPTIONAL]
    return msgspec.defstruct("E_" + name.replace("/", "_").replace("-", "_"), fields, tag=name, **_ENVELOPE)


def _row(name: str, data_type: type) -> type:
    """A packed row; its seq0 is read as ``seq`` so every record answers to the same attribute."""
    fields = [("seq", int, msgspec.field(default=-1, name="seq0")),
              ("time", Raw, msgspec.field(default=None, name="time0")), ("data", data_type)]
    return msgspec.defstruct("R_" + name.replace("-", "_"), fields, tag=name, **_ENVELOPE)


_KINDS: dict[type, tuple[int, str]] = {}
for _name in sorted(KNOWN_EVENT_TYPES | LEGACY_TYPES):
    if _name == CHUNK:
        _KINDS[_event(_name, _ChunkData)] = (LOOSE, _name)
    elif _name == "assistant/message":
        _KINDS[_event(_name, _AssistantData)] = (ASSISTANT, _name)
    elif _name in FACT_EXTRACTORS or _name in LEGACY_CANDIDATES:
        _KINDS[_event(_name, Any)] = (READ, _name)
    else:
        _KINDS[_event(_name, Raw)] = (SKIP, _name)
for _name, (_chunk_type, _members) in PACKED_ROWS.items():
    _KINDS[_row(_name, _ToolRow if _members == "args" else _TextRow)] = (ROW, _name)
_KIND = {cls: kind for cls, (kind, _name) in _KINDS.items()}
_TYPE_OF = {cls: CHUNK if kind == ROW else name for cls, (kind, name) in _KINDS.items()}  # per event

_DECODER = msgspec.json.Decoder(Union[tuple(_KINDS)])
_FAILED = (msgspec.MsgspecError, UnicodeDecodeError, RecursionError)  # deep nesting: orjson refuses it too
_SEQ = attrgetter("seq")
_CHUNK_TYPE = attrgetter("data.chunk.type")  # AttributeError when data or chunk is null
_BYTE = [bytes((i,)) for i in range(256)]


class _Missed(Exception):
    """Something in the chunk is not ordinary: the line-by-line path reads it."""


def feed_fast(sc, buf: bytes, base: int) -> bool:
    """Index ``buf`` (whole records, absolute offset ``base``); False leaves ``sc``'s index untouched."""
    if sc.projected is not False or sc.chunk_id < 0 or type(buf) is not bytes or not buf.endswith(b"\n"):
        return False
    try:
        str(buf, "utf-8")  # msgspec does not check the UTF-8 of what it skips; orjson would refuse it
        recs = _DECODER.decode_lines(buf)
        lines = buf.split(b"\n")
        if len(recs) != len(lines) - 1:  # blank lines (decode_lines skips them)
            return False
        staged = _index(sc, recs)
    except (_Missed, *_FAILED):
        return False
    res = sc.res
    lens = list(map(len, lines))
    del lines[:]
    starts = list(islice(accumulate(map((1).__add__, lens), initial=base), len(recs)))
    res.rec_start.extend(starts)
    res.rec_end.extend(map(add, starts, lens))
    first_ev, ev_type, facts, legacy, expected = staged
    res.rec_first_ev.extend(first_ev)
    res.ev_type.frombytes(ev_type)
    res.facts.extend(facts)
    if legacy:
        res.legacy.update(legacy)
    sc.expected = expected
    sc.fast_records += len(recs)
    return True


def _index(sc, recs: list) -> tuple:
    """The chunk's index, staged (built with C-level passes where it can); raises _Missed
    where the line path must look."""
    n = len(recs)
    classes = list(map(type, recs))
    kinds = list(map(_KIND.__getitem__, classes))
    expected, nev = sc.expected, len(sc.res.ev_type)
    names = list(map(_TYPE_OF.__getitem__, classes))  # a row's events are chunks
    tids = sc.type_ids
    for name in dict.fromkeys(names):  # new types registered in order of first sight, as the line path does
        if name not in tids:
            sc.type_id(name)
            if name not in tids:
                raise _Missed  # the 255-type overflow bucket: the line path handles it
    rows = [i for i, k in enumerate(kinds) if k == ROW] if ROW in kinds else []
    if rows:
        counts = [1] * n
        for i in rows:
            d = recs[i].data
            m, dt = len(d.texts if type(d) is _TextRow else d.args), d.dt
            if not m or len(dt) != m - 1 or (dt and (min(dt) < -MAX_SAFE or max(dt) > MAX_SAFE)):
                raise _Missed
            counts[i] = m
        offsets = list(accumulate(counts, initial=0))  # event offset of each record in the chunk
        total = offsets.pop()
        if list(map(_SEQ, recs)) != list(map(expected.__add__, offsets)):
            raise _Missed
        ev_type = b"".join(map(mul, map(_BYTE.__getitem__, map(tids.__getitem__, names)), counts))
    else:
        total = n
        offsets = range(n)
        if list(map(_SEQ, recs)) != list(range(expected, expected + n)):
            raise _Missed
        ev_type = bytes(map(tids.__getitem__, names))
    facts = _facts(sc, recs, kinds, offsets, expected, nev)
    return array("I", map(nev.__add__, offsets)), ev_type, facts[0], facts[1], expected + total


def _facts(sc, recs: list, kinds: list[int], offsets, seq0: int, nev: int) -> tuple[list[Fact], Counter]:
    """Facts of the chunk in record order: its usage/finish chunks and the events the diagnosis reads."""
    loose = [i for i, k in enumerate(kinds) if k == LOOSE]
    try:
        hits = list(compress(loose, map(FACT_CHUNKS.__contains__, map(_CHUNK_TYPE, map(recs.__getitem__, loose)))))
    except (AttributeError, TypeError):  # a null data or chunk, an unhashable chunk type
        raise _Missed from None
    wanted = [i for i, k in enumerate(kinds) if k >= READ and k != SKIP]
    if hits:
        wanted = sorted(wanted + hits)
    facts: list[Fact] = []
    legacy: Counter = Counter()
    append, session_id = facts.append, sc.session_id
    for i in wanted:
        r, k, off = recs[i], kinds[i], offsets[i]
        d = r.data
        if k == LOOSE:
            ch = d.chunk
            facts.append(Fact("chunk/" + ch.type, nev + off, seq0 + off,
                              {"turn": d.turn, "step": d.step, "usage": ch.usage, "reason": ch.reason}))
        elif k == ASSISTANT:
            if d is None:
                continue
            if d.message is UNSET and d.content is not None:
                raise _Missed  # the legacy shape: the line path upgrades it
            append(Fact("assistant/message", nev + off, seq0 + off, _assistant_fact(d)))
        elif type(d) is dict:
            etype = _KINDS[type(r)][1]
            fact_type = etype
            if etype in LEGACY_CANDIDATES:
                fact_type, d, tag = upgrade(etype, d, seq0 + off, session_id)
                if tag is not None:
                    legacy[tag] += 1
            extract = FACT_EXTRACTORS.get(fact_type)
            if extract is not None:
                append(Fact(fact_type, nev + off, seq0 + off, extract(d, r.surfaceOp)))
    return facts, legacy
