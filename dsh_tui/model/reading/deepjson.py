"""A JSON parser without recursion, for the few lines nested deeper than orjson reads (1,024 levels).

dsh's reader (Node's JSON.parse) reads a record nested 3,000 levels deep, and overflows its stack a
few hundred levels further (asked of dsh's own reader: 3,000 read, 3,500 refused with "Maximum call
stack size exceeded"); orjson stops at 1,024 and the stdlib's parser at the recursion limit (~1,000).
This one keeps its containers on an explicit stack, so a deep record is read as dsh reads it: its
tool/result pairs its call, instead of the line counting as corrupt. Strict JSON as JSON.parse takes
it (no NaN, no trailing commas, no control characters in strings; the last of duplicate keys wins),
integers as int and other numbers as float, as orjson gives them. Deeper than ``max_depth`` (dsh
refuses such a log) it gives up: ValueError.
"""

from __future__ import annotations

import re
from json.decoder import scanstring
from typing import Any

MAX_DEPTH = 3_002  # what dsh's reader was seen to read: 3,000 levels of data in the envelope's 2

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


def loads_deep(s: str, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``s`` (ValueError if it is not JSON, or nests deeper than ``max_depth``)."""
    ws = _WS.match
    n = len(s)
    stack: list[list] = []  # [container, its pending key (objects)]
    i = ws(s, 0).end()
    while True:
        if i >= n:
            raise ValueError("unexpected end of the text")
        c = s[i]
        if c == "{" or c == "[":
            if len(stack) >= max_depth:
                raise ValueError(f"nests deeper than {max_depth:,} levels")
            i = ws(s, i + 1).end()
            close = "}" if c == "{" else "]"
            if i < n and s[i] == close:
                value: Any = {} if c == "{" else []
                i += 1
            elif c == "{":
                key, i = _key(s, i, ws)
                stack.append([{}, key])
                continue
            else:
                stack.append([[], None])
                continue
        elif c == '"':
            value, i = scanstring(s, i + 1, True)
        elif c in _LITERALS:
            word, value = _LITERALS[c]
            if not s.startswith(word, i):
                raise ValueError(f"unexpected text at {i}")
            i += len(word)
        else:
            m = _NUMBER.match(s, i)
            if m is None or m.end() == i:
                raise ValueError(f"unexpected text at {i}")
            text = m.group()
            value = float(text) if m.group(1) or m.group(2) else int(text)
            i = m.end()
        while True:  # the value made: put it in its container, and close the containers it ends
            if not stack:
                if ws(s, i).end() != n:
                    raise ValueError("text after the value")
                return value
            top = stack[-1]
            container = top[0]
            if type(container) is dict:
                container[top[1]] = value
            else:
                container.append(value)
            i = ws(s, i).end()
            if i >= n:
                raise ValueError("unexpected end of the text")
            c = s[i]
            if c == ",":
                i = ws(s, i + 1).end()
                if type(container) is dict:
                    top[1], i = _key(s, i, ws)
                break  # the next member's value
            if c != ("}" if type(container) is dict else "]"):
                raise ValueError(f"unexpected text at {i}")
            stack.pop()
            value = container
            i += 1


def _key(s: str, i: int, ws) -> tuple[str, int]:
    """An object's key at ``i`` and the offset of its value (after the colon)."""
    if i >= len(s) or s[i] != '"':
        raise ValueError(f"expected a key at {i}")
    key, i = scanstring(s, i + 1, True)
    i = ws(s, i).end()
    if i >= len(s) or s[i] != ":":
        raise ValueError(f"expected ':' at {i}")
    return key, ws(s, i + 1).end()
