"""Parse one JSON record: orjson first, the stdlib as a tolerant fallback.

orjson rejects lone-surrogate escapes, invalid UTF-8 and integers past 64
bits, all of which Node can write; the stdlib accepts them (after a replace
decode). Deep nesting is refused by both, and becomes "unparsable".
"""

from __future__ import annotations

import json
from typing import Any

import orjson

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
    try:
        text = str(line, "utf-8", "replace")  # no copy of a memoryview first
        return json.loads(text), True
    except (ValueError, RecursionError):
        return None, False
