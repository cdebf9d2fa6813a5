"""How `query` rows and `grep` hits are printed: a table for people (every cell on one line, cut, its
terminal controls made visible), JSON (exact values, controls as escapes) and CSV (exact values; made
visible only when printed to a terminal)."""

from __future__ import annotations

import csv
import datetime as _dt
import decimal
import uuid
from typing import Any

import json

import orjson

from ..safety import clean, escape_json, one_line

CELL = 60  # characters of one table cell


def _plain(v: Any) -> Any:
    """A DuckDB value as JSON has it."""
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    if isinstance(v, _dt.timedelta):
        return v.total_seconds()
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, bytes):
        return v.decode("utf-8", "backslashreplace")
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _cell(v: Any) -> str:
    v = _plain(v)
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v}"
    if isinstance(v, float):
        return f"{v:g}"
    if not isinstance(v, str):
        from ..model.presenting.jsonstream import dump
        v = dump(v)
    return v


def write_rows(out, names: list[str], rows: list[tuple], fmt: str, *, tty: bool) -> None:
    if fmt == "json":
        from ..model.presenting.jsonstream import dump
        out.write(dump([dict(zip(names, map(_plain, r))) for r in rows]) + "\n")
        return
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow([clean(n) if tty else n for n in names])
        for r in rows:
            w.writerow([clean(_cell(v)) if tty else _cell(v) for v in r])
        return
    cells = [[one_line(n, CELL) for n in names]] + [[one_line(_cell(v), CELL) for v in r] for r in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(names))]
    numeric = [all(isinstance(_plain(r[k]), (int, float)) or r[k] is None for r in rows) and rows
               for k in range(len(names))]
    for i, row in enumerate(cells):
        line = "  ".join(c.rjust(widths[k]) if numeric[k] and i else c.ljust(widths[k]) for k, c in enumerate(row))
        out.write(line.rstrip() + "\n")
        if i == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")
    out.write(f"({len(rows):,} row{'s' if len(rows) != 1 else ''})\n")


def write_hits(out, hits: list, fmt: str) -> None:
    if fmt == "json":  # one object a line (JSON Lines), terminal controls as escapes
        for h in hits:
            obj = {"permalink": h.permalink, "session_id": h.session_id, "seq": h.seq, "type": h.type,
                   "name": h.tool, "callId": h.call_id, "path": h.path, "text": h.text}
            try:
                text = orjson.dumps(obj).decode()
            except TypeError:  # a lone surrogate
                text = json.dumps(obj, ensure_ascii=False)
            out.write(escape_json(text) + "\n")
        return
    for h in hits:
        who = " ".join(x for x in (h.tool, h.call_id) if x)
        out.write(f"{one_line(h.permalink, 120)}  {h.type}{' ' + one_line(who, 80) if who else ''}  "
                  f"{one_line(h.text, 200)}\n")
