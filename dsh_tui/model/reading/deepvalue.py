"""JSON values from a log that may nest 1000 deep: a bounded text and a depth test, neither recursive;
and how a value reads inside a message (`said`, `spelled`: never Python's repr).

orjson hands back values up to 1024 deep, and `repr()`, `json.dumps` and `==` recurse once
per level (RecursionError past ~1000; orjson's own dumps refuses past 254). `short_repr`
renders what `repr` would for small values, with an explicit stack, and stops after
``limit`` characters; `deeper_than` tells a value no serialiser can take.
"""

from __future__ import annotations

from typing import Any, Iterator

import orjson


class _Text(str):
    """Punctuation to emit as is (not a value to render)."""


_OPEN_LIST, _CLOSE_LIST, _OPEN_DICT, _CLOSE_DICT = _Text("["), _Text("]"), _Text("{"), _Text("}")
_COMMA, _COLON = _Text(", "), _Text(": ")


def _items(value: list | tuple | dict) -> Iterator[Any]:
    """One container's tokens: its punctuation and its members (not theirs: no recursion)."""
    if isinstance(value, dict):
        yield _OPEN_DICT
        for n, (k, v) in enumerate(value.items()):
            if n:
                yield _COMMA
            yield k
            yield _COLON
            yield v
        yield _CLOSE_DICT
    else:
        yield _OPEN_LIST
        for n, v in enumerate(value):
            if n:
                yield _COMMA
            yield v
        yield _CLOSE_LIST


def _scalar(value: Any, room: int) -> str:
    """A scalar in its JSON spelling ("x", null, true), never Python's ('x', None, True)."""
    if isinstance(value, str):
        return orjson.dumps(value[:room + 1]).decode()  # cut first: a 1 MiB string costs no 1 MiB text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return f"<{type(value).__name__}>"


def said(value: Any, limit: int = 80) -> str:
    """A log's value inside a message: a string as it is (cut at ``limit``), "absent" for a field the
    log left out or set to null (None), JSON's words for booleans, a number as written, a list or an
    object described ("a list of 2", "an empty object"): never Python's repr (None, True, [], {}, 'x')."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    if value is None:
        return "absent"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}" if value else "an empty list"
    if isinstance(value, dict):
        return f"an object with {len(value)} key{'' if len(value) == 1 else 's'}" if value else "an empty object"
    return f"a {type(value).__name__}"


def spelled(value: Any, limit: int = 80) -> str:
    """A wrong-typed value as the log wrote it: a string in JSON quotes (so "0" reads as text), null,
    true, a number; a list or an object described as `said` does."""
    if isinstance(value, str):
        return _scalar(value[:limit], limit) + ("…" if len(value) > limit else "")
    if value is None:
        return "null"
    return said(value, limit)


def short_repr(value: Any, limit: int = 80) -> str:
    """A JSON value in its JSON spelling when it fits in ``limit`` characters, else its first
    ``limit`` characters and an ellipsis. Never recurses; the work is bounded by ``limit``."""
    parts: list[str] = []
    size = 0
    stack: list[Iterator[Any]] = [iter((value,))]
    while stack and size <= limit:
        item = next(stack[-1], stack)  # the stack itself marks an exhausted iterator
        if item is stack:
            stack.pop()
        elif isinstance(item, _Text):
            parts.append(item)
            size += len(item)
        elif isinstance(item, (list, tuple, dict)):
            stack.append(_items(item))
        else:
            text = _scalar(item, limit - size)
            parts.append(text)
            size += len(text)
    text = "".join(parts)
    return text if size <= limit and not stack else text[:limit] + "…"


def deeper_than(value: Any, levels: int) -> bool:
    """True when ``value`` nests lists/objects more than ``levels`` deep (stops at the first such path)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth >= levels:
                return True
            members = item.values() if isinstance(item, dict) else item
            stack.extend((m, depth + 1) for m in members if isinstance(m, (list, tuple, dict)))
    return False


def folded(value: Any, levels: int) -> Any:
    """A copy of ``value`` whose lists/objects ``levels`` deep are each a short string saying what was
    folded ("[… 2,900 levels folded]"), for a serialiser that recurses: built without recursion."""
    if not isinstance(value, (list, dict)):
        return value
    root: list = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]  # (value, its holder, key there, depth)
    while stack:
        item, holder, key, depth = stack.pop()
        if not isinstance(item, (list, dict)):
            holder[key] = item
        elif depth >= levels:
            holder[key] = f"{'[' if isinstance(item, list) else '{'}… {depth_of(item):,} levels folded" \
                          f"{']' if isinstance(item, list) else '}'}"
        elif isinstance(item, dict):
            copy = holder[key] = dict.fromkeys(item)
            stack.extend((v, copy, k, depth + 1) for k, v in item.items())
        else:
            copy = holder[key] = [None] * len(item)
            stack.extend((v, copy, k, depth + 1) for k, v in enumerate(item))
    return root[0]


def depth_of(value: Any) -> int:
    """How many levels of lists/objects ``value`` nests (0 for a scalar), without recursion."""
    most = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            depth += 1
            most = max(most, depth)
            stack.extend((m, depth) for m in (item.values() if isinstance(item, dict) else item)
                         if isinstance(m, (list, tuple, dict)))
    return most
