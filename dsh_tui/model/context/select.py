"""Event indices by type, from the scan's one-byte type column (no event is parsed)."""

from __future__ import annotations

import itertools
from array import array
from typing import Any, Iterable

from ..reading.legacy import upgrade
from ..reading.vocabulary import PACKED_ROWS

SURFACE = ("user/message", "assistant/message", "tool/result")


def indices_of(log, names: Iterable[str]) -> array:
    """The indices of the events whose type is one of ``names``, in log order."""
    res = log.res
    wanted = {tid for tid, name in enumerate(res.types) if name in set(names)}
    table = bytes(1 if b in wanted else 0 for b in range(256))
    mask = res.ev_type.tobytes().translate(table)
    out = array("I", itertools.compress(range(len(mask)), mask))
    if 255 in res.ev_type:  # more than 254 distinct types: the rest are read from their records
        names = set(names)
        extra = [i for i, t in enumerate(res.ev_type) if t == 255 and log.type_of(i) in names]
        if extra:
            out = array("I", sorted(set(out) | set(extra)))
    return out


def data_of(log, i: int) -> dict:
    """Event ``i``'s data (an empty dict when it is not an object)."""
    data = envelope(log, i).get("data")
    return data if isinstance(data, dict) else {}


def envelope(log, i: int) -> dict:
    """Event ``i`` as `SessionLog.event` gives it (legacy shapes upgraded), for the types read here
    (never a packed row's member), without slicing its record a second time for the raw bytes."""
    obj, _lenient = log.parse_record(log.res.record_of(i))
    if not isinstance(obj, dict):
        return {}
    if obj.get("type") in PACKED_ROWS:
        ev = log.event(i).event
        return ev if isinstance(ev, dict) else {}
    etype = obj.get("type")
    new_type, new_data, tag = upgrade(etype, obj.get("data"), log.seq_of(i), log.session_id)
    return obj if tag is None else {**obj, "type": new_type, "data": new_data}


def as_int(value: Any) -> int | None:
    """A JSON count as an int (a bool or a non-finite number is none)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None
