"""The files a run read, wrote, edited or deleted.

From each `tool/result`'s ``meta`` as dsh's fs tools write it (DSH-FORMAT 8): ``{"diffs": [{path,
oldText, newText}, ...]}`` for write and edit (an empty list: a write that created the file, its path
then from the call's ``file_path``/``path`` argument), ``{path, offset, lines, totalLines}`` for read.
The operation is the tool's name where it says one (write, edit, read, delete, ...), else the meta's
shape. A `bash` command counts only when it is one plain command whose verb says what it does to
the files it names (``cat a b``, ``rm -f x``): anything with a pipe, a redirection, a variable or
a glob is left out rather than guessed at.
"""

from __future__ import annotations

import shlex
from itertools import compress, islice, repeat
from operator import is_not, or_

from msgspec import Struct, field

from ..reading.contextfacts import CALL, COMMAND_VERBS as VERBS, MAX_DIFFS, RESULT
from .select import call_positions, context_columns

MAX_FILES = 10_000  # paths kept; past it counted only
_NO_CALL = (None, None)  # (tool, path arguments) of a result whose call is not known
_HIDDEN = (None, "")  # a hunk counted whose text the records did not keep (contextfacts.SHOWN_HUNKS)
TOOL_OPS = {"write": "write", "edit": "edit", "multi_edit": "edit", "multiedit": "edit", "read": "read",
            "delete": "delete", "remove": "delete", "create": "write", "str_replace": "edit", "apply_patch": "edit"}
_SHELL = set("|&;<>()$`*?[]{}~!\\\"'\n")


class Op(Struct):
    op: str  # read | write | edit | delete
    seq: int  # the tool/result
    index: int
    call_seq: int | None
    tool: str | None
    diffs: list[tuple[str | None, str]] = field(default_factory=list)  # (oldText, newText) hunks


class FileTouched(Struct):
    path: str
    ops: list[Op] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for o in self.ops:
            out[o.op] = out.get(o.op, 0) + 1
        return out

    @property
    def changed(self) -> bool:
        return any(o.op in ("write", "edit", "delete") for o in self.ops)

    def as_dict(self, limit: int = 100) -> dict:
        return {"path": self.path, "counts": self.counts(), "operations_total": len(self.ops),
                "operations": [{"op": o.op, "seq": o.seq, "call_seq": o.call_seq, "tool": o.tool,
                                "hunks": len(o.diffs)} for o in self.ops[:limit]]}


class Files(Struct):
    files: dict[str, FileTouched] = field(default_factory=dict)
    dropped: int = 0  # operations on paths past MAX_FILES

    def add(self, path: str, op: Op) -> None:
        f = self.files.get(path)
        if f is None:
            if len(self.files) >= MAX_FILES:
                self.dropped += 1
                return
            f = self.files[path] = FileTouched(path)
        f.ops.append(op)

    @property
    def changed(self) -> list[FileTouched]:
        return [f for f in self.files.values() if f.changed]

    def plain(self) -> tuple:
        """Plain values (the index cache keeps what `check` read), as columns: a tuple an operation
        was a container each for the cache's codec to number and build (10M generated: +21 MiB)."""
        files = list(self.files.values())
        ops = [o for f in files for o in f.ops]
        hunks = [d for o in ops for d in o.diffs]
        return (self.dropped, [f.path for f in files], [len(f.ops) for f in files], [o.op for o in ops],
                [o.seq for o in ops], [o.index for o in ops], [o.call_seq for o in ops], [o.tool for o in ops],
                [len(o.diffs) for o in ops], [d[0] for d in hunks], [d[1] for d in hunks])

    @classmethod
    def from_plain(cls, plain) -> Files:
        """`plain`'s files back; ValueError when it is not one (a cache entry is checked, not trusted)."""
        if not (type(plain) is tuple and len(plain) == 11 and type(plain[0]) is int
                and all(type(col) is list for col in plain[1:])):
            raise ValueError("not a files table")
        dropped, paths, counts, op, seq, index, call_seq, tool, hunks, old, new = plain
        n_ops, n_hunks = len(op), len(old)
        if not (len(paths) == len(counts) <= MAX_FILES and len(set(paths)) == len(paths)
                and all(type(x) is str for x in paths) and all(type(x) is int and x >= 0 for x in counts)
                and sum(counts) == n_ops == len(seq) == len(index) == len(call_seq) == len(tool) == len(hunks)
                and all(type(x) is str for x in op) and all(type(x) is int for x in seq)
                and all(type(x) is int for x in index) and all(x is None or type(x) is int for x in call_seq)
                and all(x is None or type(x) is str for x in tool)
                and all(type(x) is int and x >= 0 for x in hunks) and sum(hunks) == n_hunks == len(new)
                and all(x is None or type(x) is str for x in old) and all(type(x) is str for x in new)):
            raise ValueError("not a files table")
        out = cls(dropped=dropped)
        pairs = iter(zip(old, new))
        rows = iter(zip(op, seq, index, call_seq, tool, hunks))
        for path, count in zip(paths, counts):
            f = out.files[path] = FileTouched(path)
            for o, sq, i, cs, t, h in islice(rows, count):
                f.ops.append(Op(o, sq, i, cs, t, list(islice(pairs, h))))
        return out


def files_touched(log) -> Files:
    """The files the run's tool results name (their meta) or its calls do (their path arguments), in
    log order. Read from the records' columns: only the results that can name a file are looked at
    (a dict of every call was ~5 MiB of a 98k-call log's check)."""
    out = Files()
    cols = context_columns(log)
    index, seq, (_turn, name, _key, paths) = cols.kind_columns(CALL)
    r_index, r_seq, (call_seq, rewrite, _failed, _text, meta) = cols.kind_columns(RESULT)
    with_paths = {seq[p] for p in compress(range(len(paths)), map(is_not, paths, repeat(None)))}
    wanted = compress(range(len(meta)), map(or_, map(is_not, meta, repeat(None)), map(with_paths.__contains__, call_seq)))
    for k, pos in call_positions(index, seq, r_index, call_seq, wanted):
        if rewrite[k]:
            continue  # a prune's rewrite of an earlier result: that result counted already
        tool, call = (name[pos], paths[pos]) if pos >= 0 else _NO_CALL
        i, result_seq, cs, m = r_index[k], r_seq[k], call_seq[k], meta[k]
        if m is not None and m[0] == "d":  # (contextfacts.slim_meta's shapes)
            _from_diffs(out, m[1], call, tool, result_seq, i, cs, m[2])
        elif m is not None:  # a read: ("r", path)
            out.add(m[1], Op(_op(tool, "read"), result_seq, i, cs, tool))
        elif tool == "bash":
            for op, path in bash_paths(call[2] if call else None):
                out.add(path, Op(op, result_seq, i, cs, tool))
        elif tool in ("delete", "remove"):
            path = _arg_path(call)
            if path:
                out.add(path, Op("delete", result_seq, i, cs, tool))
    return out


def _from_diffs(out: Files, diffs: list, call: tuple | None, tool, seq: int, i: int, call_seq, more=()) -> None:
    """``diffs``: (path, oldText, newText) of the hunks whose text is kept (each path's first few);
    ``more``: the paths of the others, counted as hunks without text (the files view shows the first
    few only)."""
    by_path: dict[str, Op] = {}
    for path, old, new in diffs:
        if path is None:
            continue
        op = by_path.get(path)
        if op is None:
            op = by_path[path] = Op(_op(tool, "edit"), seq, i, call_seq, tool)
        if len(op.diffs) < MAX_DIFFS:  # (contextfacts.slim_meta cut the texts, and made a non-string None)
            op.diffs.append((old, new if new is not None else ""))
    for path in more:
        op = by_path.get(path)
        if op is not None and len(op.diffs) < MAX_DIFFS:
            op.diffs.append(_HIDDEN)
    if not by_path:  # a write that created the file: the path the call named
        path = _arg_path(call)
        if path:
            by_path[path] = Op(_op(tool, "write"), seq, i, call_seq, tool)
    for path, op in by_path.items():
        out.add(path, op)


def _op(tool: str | None, default: str) -> str:
    return TOOL_OPS.get((tool or "").lower(), default)


def _arg_path(call: tuple | None) -> str | None:
    """The path a call's ``file_path`` or ``path`` argument names (contextfacts.path_args)."""
    return next((p for p in call[:2] if p), None) if call else None


def bash_paths(command) -> list[tuple[str, str]]:
    """(operation, path) for each file one plain command names; [] when it is anything else."""
    if not isinstance(command, str) or len(command) > 4096 or command.split(None, 1)[:1] == [] \
            or command.split(None, 1)[0] not in VERBS or _SHELL & set(command):
        return []
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    if not words or words[0] not in VERBS:
        return []
    op = VERBS[words[0]]
    paths = [w for w in words[1:] if not w.startswith("-")]
    if any(w.startswith("-") and w not in ("-f", "-n") and not w[1:].isdigit() for w in words[1:]):
        return []  # an option that may take a value: the words after it are not surely paths
    if words[0] in ("head", "tail") and "-n" in words:
        return []
    return [(op, p) for p in paths if "=" not in p]
