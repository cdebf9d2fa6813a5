"""An int column's cells and a column's form in the index cache (packed.py's lists, the turn ends).

An int column holds int64 cells (int8, int16 or int32 while its values fit), with a marker for None and
one for a value kept apart (not an int, or past int64: a crafted log's). In the cache, a packed list's
columns are its cells as they are (`int_cells_back`), the turn ends' int64 arrays (binary parts of the
entry), and a column of a few repeated strings is `coded`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import islice
from typing import Any

from .interning import shared_name

NONE = -(2**63)  # an int column's None
ODD = NONE + 1  # an int column's value that is not a 64-bit int (kept in ``odd``)
TO_ROW = {None: NONE}  # value -> cell, by dict.get(v, v): None to NONE, every int to itself
FROM_ROW = {NONE: None}
# A column is int8, int16 or int32 while its values fit (a turn's step is a byte, a time int32 from a base:
# most are indexes, counts and durations), each width with markers of its own at its bottom, and int64 from
# the first value that fits none of them (a time in ms since 1970 with no base).
WIDTHS = ("b", "h", "i")  # narrowest first
_LOW = {"b": -(2**7), "h": -(2**15), "i": -(2**31)}
NONE_CELL = {"q": NONE, **_LOW}  # each width's None
ODD_CELL = {tc: none + 1 for tc, none in NONE_CELL.items()}
NARROW_TO = {tc: {NONE: _LOW[tc], ODD: _LOW[tc] + 1} for tc in WIDTHS}  # int64 markers -> a width's
WIDEN_FROM = {tc: {_LOW[tc]: NONE, _LOW[tc] + 1: ODD} for tc in WIDTHS}
FROM_CELL = {tc: {none: None} for tc, none in NONE_CELL.items()}
_NONE_BYTES = {tc: array(tc, [none]).tobytes() for tc, none in NONE_CELL.items()}


def fits(tc: str, value: int) -> bool:
    """Whether a cell of width ``tc`` holds ``value`` (counted from its base) apart from its markers."""
    return tc == "q" or _LOW[tc] + 1 < value < -_LOW[tc]


def cell_values(col: array, base: int = 0) -> list:
    """An int column's cells as values, None for its NONE (``base``: what an offset column's cells are
    counted from, `narrowed`). A column whose bytes hold no NONE is read in C alone (its bytes searched
    in ~3 us, not a dict lookup a cell: ~0.5 ms for 13k cells); a match off a cell's boundary only
    costs the lookups."""
    if col.tobytes().find(_NONE_BYTES[col.typecode]) < 0:
        return list(_plus(col, base)) if base else col.tolist()
    return list(cells_to_values(col, base))


def cells_to_values(col: array, base: int = 0):
    """`cell_values`' values as an iterator (by C loops: a marker's own value, else the cell plus ``base``)."""
    return map(FROM_CELL[col.typecode].get, col, _plus(col, base))


def _plus(cells: Iterable[int], n: int) -> Iterable[int]:
    """Each of ``cells`` plus ``n`` (by a C loop), or the cells themselves for 0."""
    return map(n.__add__, cells) if n else cells


_INTS = frozenset({int, type(None)})  # the types a column takes by C loops (not bool: True is not 1 here)


def int_cells(values: list) -> array | None:
    """``values`` as an int column by C loops, or None when some need a cell of their own (`cell_of`):
    not an int (a bool, a float, a string), past int64, or equal to a marker."""
    if not _INTS.issuperset(map(type, values)) or NONE in values or ODD in values:
        return None
    try:
        return array("q", map(TO_ROW.get, values, values))
    except OverflowError:
        return None


def narrowed(cells: array, base: int = 0, tc: str = "i") -> array | None:
    """int64 cells as ones of width ``tc`` (markers and all), each counted from ``base`` (an offset column:
    times in ms since 1970 are ~1.8e12, but a log's lie within days of each other), or None when one does
    not fit."""
    try:
        out = array(tc, map(NARROW_TO[tc].get, cells, _plus(cells, -base)))
    except OverflowError:
        return None
    if out.count(NONE_CELL[tc]) != cells.count(NONE) or out.count(ODD_CELL[tc]) != cells.count(ODD):
        return None  # a value that is a marker of that width
    return out


def offset_base(cells: array) -> int:
    """The base an offset column of ``cells`` counts from: its first value (0: it holds only markers)."""
    for cell in cells:
        if cell != NONE and cell != ODD:
            return cell
    return 0


def widened(col: array, base: int = 0) -> array:
    """A narrow column (counted from ``base``) as int64 cells."""
    if col.typecode == "q":
        return col
    return array("q", map(WIDEN_FROM[col.typecode].get, col, _plus(col, base)))


def cell_of(v: Any) -> int:
    """An int column's cell for ``v``: NONE for None, ODD for what must be kept apart (not an int, past
    int64, or equal to a marker), else ``v``."""
    if v is None:
        return NONE
    return v if type(v) is int and ODD < v < 2**63 else ODD


# -- the index cache's form of columns (PackedList.plain, open.py's turn ends) -----------------------------
def int_columns(columns: dict[str, list]) -> tuple[dict[str, array], list]:
    """Int (or None) columns as int64 arrays, and [name, position, value] of each value one cannot hold."""
    ints, odd = {}, []
    for name, values in columns.items():
        col = int_cells(values)
        if col is None:  # an odd value (a crafted log's): this column cell by cell
            col = array("q")
            for k, v in enumerate(values):
                cell = cell_of(v)
                if cell == ODD:
                    odd.append([name, k, v])
                col.append(cell)
        ints[name] = col
    return ints, odd


def int_columns_back(cols: Any, odd: Any, names: Iterable[str], n: int) -> tuple[dict[str, array], dict]:
    """`int_columns`' value back, checked to be ``n`` rows of int64 columns ``names``: the arrays, and the
    odd values by (name, position). ValueError if it is not one (a cache entry is checked, not trusted)."""
    cols, _bases, out = int_cells_back(cols, {}, odd, names, n, typecodes=("q",))
    return cols, out


def int_cells_back(cols: Any, bases: Any, odd: Any, names: Iterable[str], n: int,
                   typecodes: tuple[str, ...] = (*WIDTHS, "q")) -> tuple[dict[str, array], dict, dict]:
    """A packed list's int columns as the cache keeps them (packed.py's `PackedList.plain`: the cells as
    they were, narrow from a base or int64), checked to be ``n`` rows of columns ``names``: the arrays,
    their bases and the odd values by (name, position). ValueError if they are not (a cache entry is
    checked, not trusted)."""
    names = tuple(names)
    if not (type(cols) is dict and set(cols) == set(names) and type(bases) is dict and type(odd) is list):
        raise ValueError("not the columns of this record")
    cols = {name: cols[name] for name in names}  # (in the record's order)
    for name, col in cols.items():
        if type(col) is not array or col.typecode not in typecodes or len(col) != n:
            raise ValueError(f"a bad column {name}")
    for name, base in bases.items():  # (a narrow column's alone; a value is its cell plus its base)
        if name not in cols or cols[name].typecode == "q" or type(base) is not int or not NONE < base < 2**63:
            raise ValueError(f"a bad base of column {name}")
    out = {}
    for item in odd:
        if not (type(item) is list and len(item) == 3 and item[0] in cols and type(item[1]) is int
                and 0 <= item[1] < n and cols[item[0]][item[1]] == ODD_CELL[cols[item[0]].typecode]):
            raise ValueError("a bad odd value")
        out[(item[0], item[1])] = item[2]
    return cols, bases, out


def int_values(col: array, name: str, odd: dict) -> list:
    """An int column's values (None for its NONE), its odd values in place."""
    out = cell_values(col)
    for (n, k), v in odd.items():
        if n == name:
            out[k] = v
    return out


TEXT_TYPES = frozenset({str, type(None)})  # a text column's (None counts as a value)


def coded(values: list) -> list | tuple:
    """A column that repeats a few strings (a status, a tool name; None counts as one) as ("coded", its
    distinct values, an array of each row's): in the entry a byte a row, not a str; any other as it is."""
    if not TEXT_TYPES.issuperset(map(type, values)):
        return values
    table = list(dict.fromkeys(values))
    if len(table) * 2 > len(values):  # (call ids: each its own)
        return values
    at = {v: k for k, v in enumerate(table)}
    return ("coded", table, array("B" if len(table) <= 256 else "I", map(at.__getitem__, values)))


def uncoded(plain: Any, n: int) -> list:
    """`coded`'s column back (``n`` rows), checked: a list as it is; a coded one with one str object a
    distinct value (interned), as the pass shares them, not one a row as JSON would make them."""
    if type(plain) is list and len(plain) == n:
        return plain
    if not (type(plain) is tuple and len(plain) == 3 and plain[0] == "coded" and type(plain[1]) is list
            and TEXT_TYPES.issuperset(map(type, plain[1]))
            and type(plain[2]) is array and plain[2].typecode in ("B", "I")
            and len(plain[2]) == n and (not n or max(plain[2]) < len(plain[1]))):
        raise ValueError("a bad column")
    table = list(map(shared_name, plain[1]))
    return list(map(table.__getitem__, plain[2]))


def int_array(values: Iterable) -> array | list:
    """Int values as an int64 array, made a slice at a time; a list of them all where one is not an int
    (a None, a crafted log's value)."""
    out, rest = array("q"), iter(values)
    while block := list(islice(rest, 8192)):
        cells = int_cells(block)
        if cells is None or NONE in cells:
            return [*out, *block, *rest]
        out.extend(cells)
    return out
