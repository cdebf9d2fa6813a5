"""What the context views read of an event, kept by the scan as it parses each line.

`check` reports the requests, the headers, the files touched and the loops (model/context/). Read
from the log after the scan, they cost a second decode and parse of every call, result, message and
header (about as long as the scan itself on a big log); kept here as the scan parses each line, they
cost a few tuples. The context package builds everything from these records; when a log has none
(its index came from the cache), it reads the events and makes the same records with `record`, so
both ways give one answer.

A record is a flat tuple of plain values (the tail helper marshals them across its pipe):

    tool/call          (type, index, seq, turn, name, the arguments' hash, path arguments)
    tool/result        (type, index, seq, call seq, a surface rewrite, isError, text head, meta)
    assistant/message  (type, index, seq, turn, step, input tokens)
    request/header     (type, index, seq, body): body is (reason, provider, model, config items,
                        adapter defaults' items, tool names, tools offered, system prompt length,
                        system prompt hash), one tuple for the headers that repeat it

Path arguments are (file_path, path, command), or None when the call names none of them; the text
head is kept for a failed result only (the loops compare failures' texts). A big log holds tens of
thousands of these while it is read: each field is what a view reads, nothing more.

A value a hostile log nests (a turn that is an object, a config value that is a list) is kept as
``(its JSON text, True)`` or, past what can be serialised, ``(a bounded preview, False)``: marshal
refuses deep values, and context/ turns them back (`value`).
"""

from __future__ import annotations

import sys
try:  # hashlib's own blake2b, without hashlib's 3 ms import (OpenSSL) on every check
    from _blake2 import blake2b
except ImportError:  # an interpreter without it
    from hashlib import blake2b
from typing import Any

import orjson

from .deepvalue import short_repr

CALL, RESULT, MESSAGE, HEADER = (sys.intern(t) for t in
                                  ("tool/call", "tool/result", "assistant/message", "request/header"))
TEXT_HEAD = 240  # characters kept of a result's first text block
MAX_ARGS = 1 << 16  # arguments that are not a string: compared by their JSON text's first 64 KiB
MAX_TOOLS = 500  # tool names kept per header (a hostile header can offer a million)
MAX_CONFIG_KEYS = 200
MAX_FILES_ARG = 4096  # a path argument or a bash command longer than this is not read for a path
MAX_DIFFS = 200  # hunks kept per operation (ten times as many read, for their paths)
MAX_HUNK = 4096  # characters kept of a hunk's old and new text
SHOWN_HUNKS = 3  # hunks of a path whose text the files view shows (insight_rows.file_rows): the rest counted
_PLAIN = frozenset({type(None), str, int, float, bool})
# The bash commands whose files the files view lists (context/files.py: the operation each does).
COMMAND_VERBS = {"cat": "read", "head": "read", "tail": "read", "less": "read", "wc": "read",
                 "rm": "delete", "touch": "write"}


def stable_hash(text: str) -> int:
    """A 64-bit hash equal in every process (``hash`` of a str is salted per process: the tail
    helper's would not match the parent's)."""
    raw = text.encode("utf-8", "surrogatepass")
    return int.from_bytes(blake2b(raw, digest_size=8).digest(), "little")


def flat(value: Any) -> Any:
    """A JSON value as a record keeps it: a scalar as it is, anything else as its JSON text."""
    if type(value) in _PLAIN:
        return value
    try:
        return (orjson.dumps(value).decode(), True)
    except (TypeError, orjson.JSONEncodeError):  # past orjson's 254 levels (a record may nest 3,000)
        return (short_repr(value, 200), False)


def value(kept: Any) -> Any:
    """``flat``'s value back (a value too deep to serialise stays its preview text)."""
    if type(kept) is tuple:
        text, whole = kept
        return orjson.loads(text) if whole else text
    return kept


def arguments_key(args: Any) -> int:
    """What two calls' arguments are compared by: their hash (not the text itself)."""
    if not isinstance(args, str):
        kept = flat(args)
        args = kept[0][:MAX_ARGS] if type(kept) is tuple else repr(kept)
    return stable_hash(args)


def record(etype: str, index: int, seq: int, data: Any, ev: dict, memo: dict) -> tuple:
    """The record of an event of one of CONTEXT_TYPES (``data``: its data as upgraded; ``ev``: the
    envelope; ``memo``: shared per read, so a repeated tool list or config is kept once)."""
    return RECORDERS[etype](index, seq, data if type(data) is dict else {}, ev, memo)


def _call(index: int, seq: int, d: dict, ev: dict, memo: dict) -> tuple:
    name, args, turn = d.get("name"), d.get("arguments"), d.get("turn")
    return (CALL, index, seq, turn if type(turn) is int else flat(turn),
            sys.intern(name) if type(name) is str else None, arguments_key(args), path_args(args, memo))


def _result(index: int, seq: int, d: dict, ev: dict, memo: dict) -> tuple:
    sources = ev.get("sourceEventSeqs")
    call_seq = sources[0] if type(sources) is list and sources and type(sources[0]) is int else None
    msg = d.get("message")
    content = msg.get("content") if type(msg) is dict else None
    block = content[0] if type(content) is list and content and type(content[0]) is dict else _EMPTY
    text = ""
    failed = bool(block.get("isError"))
    inner = block.get("content") if failed else None
    if type(inner) is list:  # (a crafted result's may be any value)
        for b in inner:
            if type(b) is dict and type(b.get("text")) is str:
                text = b["text"][:TEXT_HEAD]
                break
    meta = d.get("meta")
    return (RESULT, index, seq, call_seq, type(ev.get("surfaceOp")) is dict, failed, text,
            slim_meta(meta, memo) if meta is not None else None)


def _message(index: int, seq: int, d: dict, ev: dict, memo: dict) -> tuple:
    turn, step, usage = d.get("turn"), d.get("step"), d.get("usage")
    return (MESSAGE, index, seq, turn if type(turn) is int else flat(turn), step if type(step) is int else flat(step),
            input_tokens(usage))


def _header(index: int, seq: int, d: dict, ev: dict, memo: dict) -> tuple:
    h = d.get("header") if type(d.get("header")) is dict else _EMPTY
    try:  # its JSON text: == on the objects would take 1, 1.0 and true for one value
        text = orjson.dumps(h)
    except (TypeError, orjson.JSONEncodeError):
        text = None
    last = memo.get(_LAST_HEADER)
    if text is not None and last is not None and last[0] == text:  # most headers repeat the one before
        fields = last[1]
    else:
        fields = _header_fields(h)
        memo[_LAST_HEADER] = (text, fields)
    reason = _str(d.get("reason"))
    kept = memo.get((reason, id(fields)))
    if kept is None:  # one body for the headers in a row that repeat it (fields kept: its id stays its own)
        kept = memo[(reason, id(fields))] = (fields, (reason, *fields))
    return (HEADER, index, seq, kept[1])


def _header_fields(h: dict) -> tuple:
    config = h.get("config") if type(h.get("config")) is dict else _EMPTY
    tools = h.get("tools") if type(h.get("tools")) is list else []
    names = tuple(sys.intern(t["name"]) if type(t) is dict and type(t.get("name")) is str else "?"
                  for t in tools[:MAX_TOOLS])
    system = h.get("system")
    ad = h.get("adapterDefaults")
    return (_str(config.get("provider")), _str(config.get("model")), _items(config),
            _items(ad) if type(ad) is dict else None, names, len(tools),
            len(system) if type(system) is str else None, stable_hash(system) if type(system) is str else None)


_EMPTY: dict = {}
_LAST_HEADER = object()  # memo key: (the last header's JSON text, its fields)
RECORDERS = {CALL: _call, RESULT: _result, MESSAGE: _message, HEADER: _header}
CONTEXT_TYPES = frozenset(RECORDERS)


def _items(d: dict) -> tuple:
    """A config object's first keys with their values (nested ones as `flat` keeps them: hashable)."""
    return tuple((str(k), flat(v)) for k, v in list(d.items())[:MAX_CONFIG_KEYS])


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def input_tokens(usage: Any) -> int | None:
    """What a model request sent: inputTokens + cacheReadTokens + cacheWriteTokens (dsh's counts are
    disjoint); None without an inputTokens count."""
    if type(usage) is not dict:  # (orjson makes no dict subclass)
        return None
    a, b, c = usage.get("inputTokens"), usage.get("cacheReadTokens"), usage.get("cacheWriteTokens")
    if type(a) is int and (type(b) is int or b is None) and (type(c) is int or c is None):
        return a + (b or 0) + (c or 0)  # the usual object: exact ints, a count or two absent
    parts = [as_int(usage.get(k)) for k in ("inputTokens", "cacheReadTokens", "cacheWriteTokens")]
    return sum(p for p in parts if p is not None) if parts[0] is not None else None


def as_int(value: Any) -> int | None:
    """A JSON count as an int (a bool or a non-finite number is none)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def path_args(raw: Any, memo: dict | None = None) -> tuple | None:
    """The arguments a path may be read from: (``file_path``, ``path``, a bash ``command``), short
    strings only (None for any other), or None when there are none. ``memo``: one tuple for the calls
    that name the same ones (each line's parse makes its own strings)."""
    a = _args(raw)
    if not a:
        return None
    file_path, path, command = a.get("file_path"), a.get("path"), a.get("command")
    out = (file_path if type(file_path) is str and len(file_path) <= MAX_FILES_ARG else None,
           path if type(path) is str and len(path) <= MAX_FILES_ARG else None,
           command if type(command) is str and len(command) <= MAX_FILES_ARG else None)
    if out[2] is not None and ((head := out[2].split(None, 1)) == [] or head[0] not in COMMAND_VERBS):
        out = (out[0], out[1], None)  # a command the files view never reads (most of them, a blank one): not kept
    if out == (None, None, None):
        return None
    return out if memo is None else memo.setdefault(out, out)  # (strs and None: == is exact)


def _names_a_verb(raw: str) -> bool:
    """Whether one of COMMAND_VERBS is in ``raw``: one C search each, unrolled (a generator over them
    was ~1% of the 936k log's check; a test holds the two lists to one)."""
    return ("cat" in raw or "head" in raw or "tail" in raw or "less" in raw or "wc" in raw or "rm" in raw
            or "touch" in raw)


def _args(raw: Any) -> dict:
    if not isinstance(raw, str) or len(raw) > 1 << 20:
        return {}
    if '"path"' not in raw and '"file_path"' not in raw and "\\u" not in raw:
        # No path key, even escaped: only a command could name a file, and only one whose first word
        # is a verb the files view reads (a \u escape could spell one: such text is parsed). Most calls.
        if '"command"' not in raw or not _names_a_verb(raw):
            return {}
    try:
        v = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return v if isinstance(v, dict) else {}


def slim_meta(meta: Any, memo: dict | None = None) -> tuple | None:
    """What of a result's meta the files view reads, as ("d", hunks, more) or ("r", path): the first
    SHOWN_HUNKS hunks of each path as (path, oldText, newText), cut to MAX_HUNK (the view shows their
    first lines), and the paths of the others, counted; or a read's path. A log of many edits kept
    every hunk's text here, for a count. ``memo``: paths and hunks kept once."""
    if not isinstance(meta, dict):
        return None
    keep = (lambda p: p) if memo is None else (lambda p: memo.setdefault(p, p))
    if isinstance(meta.get("diffs"), list):
        shown, more, per_path = [], [], {}
        for h in meta["diffs"][:MAX_DIFFS * 10]:
            if not isinstance(h, dict):
                continue
            path = keep(h["path"]) if type(h.get("path")) is str else None
            n = per_path[path] = per_path.get(path, 0) + 1
            if n <= SHOWN_HUNKS:  # (one tuple for the hunks that say the same: a str kept is a pool kept)
                shown.append(keep((path, _cut(h.get("oldText")), _cut(h.get("newText")))))
            elif path is not None:
                more.append(path)  # a hunk counted, its text left in the log
        return ("d", tuple(shown), tuple(more))
    if isinstance(meta.get("path"), str) and "lines" in meta:
        return ("r", keep(meta["path"]))
    return None


def _cut(text: Any) -> str | None:
    return text[:MAX_HUNK] if isinstance(text, str) else None
