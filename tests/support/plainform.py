"""The index cache's plain form of the timing and pairs (packed.py), compared by what it holds.

A sparse column goes to the cache as its parts (textcolumn.py's `SparseColumn.plain`), with the values
of the records not yet packed after them: two lists that hold the same values in different states
(one packed as it went, one not) write different parts. `values` reads each such column as its
{position: value}."""

from __future__ import annotations

from typing import Any

from dsh_tui.model.columns.textcolumn import SparseColumn


def values(plain: Any) -> Any:
    """``plain`` with each sparse column's parts read as their {position: value}."""
    if type(plain) is tuple and plain[:1] == ("sparse",):
        return dict(SparseColumn.from_plain(plain, 2**31 - 1).items())
    if type(plain) in (tuple, list):
        return type(plain)(map(values, plain))
    if type(plain) is dict:
        return {k: values(v) for k, v in plain.items()}
    return plain
