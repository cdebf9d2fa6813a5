"""JSON text written a piece at a time: `check --format json` of a big log without its whole tree.

On a 10M-event log the JSON's long lists (findings, turn ends, per-turn usage and timing) are
~25 MB of text; built as one object and dumped whole they cost ~90 MiB at the end of `check`,
after the decode's peak. `Items` stands for such a list in the object; `json_pieces` yields the
text of the object with each of its items dumped, escaped and let go in turn. The pieces joined
are the text `checkjson.json_text` makes of the same object with the lists made whole (orjson's
two-space indentation; a value orjson refuses, such as a lone surrogate, falls back to the
standard library's dump of that piece alone).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

import orjson

from ...safety import escape_json


class Items:
    """A list in a JSON object, made item by item as it is written (iterable once)."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


def _whole(value: Any) -> Any:
    """What a serialiser writes for a value it does not know: an `Items`' list; anything else refused."""
    if isinstance(value, Items):
        return list(value.items)
    raise TypeError


def _whole_or_text(value: Any) -> Any:
    """The standard library's fallback: an `Items`' list, anything else as its str."""
    return list(value.items) if isinstance(value, Items) else str(value)


def _escaped(text: str) -> str:
    """`escape_json` of a serialiser's output. Both serialisers here escape every C0 control but the
    layout's newlines, so ASCII text without a DEL has nothing to escape: two C scans of the text,
    not the copy and translate `escape_json` makes to tell (~5 ms of the 936k log's 5 MB JSON)."""
    return text if text.isascii() and "\x7f" not in text else escape_json(text)


def dump(value: Any) -> str:
    """``value`` as indented JSON text, escaped for a terminal (`Items` made whole)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2, default=_whole).decode()
    except TypeError:  # lone surrogates (orjson refuses them) or a non-JSON value
        text = json.dumps(value, indent=2, ensure_ascii=False, default=_whole_or_text)
    return _escaped(text)


# Items dumped as one list: one orjson call, escape and re-indent a run of them, not each (15k items
# on the 936k log: check's JSON 55 -> 46 ms, all of it after the decode).
BATCH = 256


def _dump_run(items: list) -> str | None:
    """The text of ``items`` as in a list at nesting 0 (each item "  "-indented, ",\n" between them),
    without the list's brackets: what item by item dumps make; None if orjson refuses one."""
    try:
        text = orjson.dumps(items, option=orjson.OPT_INDENT_2, default=_whole).decode()
    except TypeError:
        return None
    return _escaped(text[2:-2])  # "[\n" ... "\n]": escaping is character by character, as in pieces


def _lazy(value: Any) -> bool:
    return isinstance(value, Items) or type(value) is dict and any(map(_lazy, value.values()))


def json_pieces(value: Any, indent: int = 0) -> Iterator[str]:
    """The text of ``value`` at nesting ``indent`` (spaces), in pieces: a dict holding `Items` key by
    key, an `Items` item by item, anything else in one piece. A piece's newlines carry the indent:
    JSON strings hold none raw, so every newline in a dump is its layout's."""
    pad = " " * indent
    if isinstance(value, Items):
        first = True
        items = iter(value.items)
        while batch := list(islice(items, BATCH)):
            text = _dump_run(batch)
            if text is not None:
                yield ("[\n" if first else ",\n") + pad + (text.replace("\n", "\n" + pad) if indent else text)
                first = False
                continue
            for item in batch:  # one of them orjson refuses: each its own dump, the fallback to that one alone
                yield ("[\n" if first else ",\n") + pad + "  " + dump(item).replace("\n", "\n" + pad + "  ")
                first = False
        yield "[]" if first else "\n" + pad + "]"
    elif _lazy(value):
        last = len(value) - 1
        yield "{"
        for k, (key, item) in enumerate(value.items()):
            yield "\n" + pad + "  " + dump(key) + ": "
            yield from json_pieces(item, indent + 2)
            if k < last:
                yield ","
        yield "\n" + pad + "}"
    else:
        yield dump(value).replace("\n", "\n" + pad) if indent else dump(value)
