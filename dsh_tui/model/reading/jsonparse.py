"""Parse one JSON record: orjson first, the stdlib as a tolerant fallback.

orjson rejects lone-surrogate escapes, invalid UTF-8 and integers past 64
bits, all of which Node can write; the stdlib accepts them (after a replace
decode). Nesting past orjson's 1,024 levels (and the stdlib's recursion limit)
is read by deepjson.py's parser, which has no recursion, up to the depth dsh's
own reader reads; deeper is "unparsable".
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from .deepjson import loads_deep

_loads = orjson.loads
_JSONError = orjson.JSONDecodeError
MAX_FALLBACK_BYTES = 256 * 1024 * 1024


def parse_json(line: bytes | bytearray | memoryview) -> tuple[Any | None, bool]:
    """Return (value, lenient). value is None when the line is not JSON."""
    try:
        return _loads(line), False
    except _JSONError:
        pass
    if len(line) > MAX_FALLBACK_BYTES:
        return None, False
    text = str(line, "utf-8", "replace")  # no copy of a memoryview first
    try:
        return json.loads(text), True
    except ValueError:
        return None, False
    except RecursionError:  # valid JSON may nest deeper than a recursive parser goes
        pass
    try:
        return loads_deep(text), False  # (strict JSON: not a lenient read)
    except (ValueError, RecursionError):
        return None, False
