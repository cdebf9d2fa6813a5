"""Loops and churn, as findings of `info` severity (they never change the verdict or the exit code).

* REPEATED_CALL: the same tool with the same raw arguments called N times (default 3) in one turn,
  "in a row" when no other call came between them.
* FILE_CHURN: one file written or edited M times (default 3) in the run.
* SAME_ERROR_RETRY: a call repeated with the same arguments right after it failed, and failing again
  with the same result text, N times in all.
Each names the seqs involved (the calls'), and points at the last of them. Past MAX_FINDINGS of a
kind the rest are counted in the last one's message.
"""

from __future__ import annotations

from array import array
from itertools import compress, islice
from operator import eq, gt

from msgspec import Struct

from ..diagnosing.findings import Finding
from ..reading.contextfacts import CALL, RESULT, value
from ...safety import one_line
from .files import Files
from .select import call_positions, context_columns

LOOP_KINDS = ("REPEATED_CALL", "FILE_CHURN", "SAME_ERROR_RETRY")
REPEATS = 3
WRITES = 3
MAX_FINDINGS = 1_000  # per kind; past it counted in the last one's message
SHOWN_SEQS = 20


class Call(Struct):
    index: int
    seq: int
    turn: object
    name: str
    key: tuple  # (name, the arguments' hash): equal arguments, without keeping them
    outcome: tuple | None = None  # (isError, result text head) once its result is read
    pos: int = 0  # its place among the calls


class Calls:
    """Every tool call as the loops read it: its fields as columns in log order, and the result text of
    each call whose last result failed. A `Call` a call (with its key tuple, outcome and int objects)
    was ~260 bytes: 25 MiB of the 10M-event x11 file's `check`, its peak; one is made for a call a
    finding names."""

    __slots__ = ("index", "seq", "turn", "name", "key", "errors")

    def __init__(self, index, seq, turn, name, key, errors: dict[int, str]) -> None:
        # turn: an int array, or the values as the records keep them (contextfacts.flat); name: a str
        # ("?" for none); key: the arguments' hashes; errors: position -> the failed result's text
        self.index, self.seq, self.turn, self.name, self.key, self.errors = index, seq, turn, name, key, errors

    def __len__(self) -> int:
        return len(self.index)

    def call(self, pos: int) -> Call:
        name = self.name[pos]
        text = self.errors.get(pos)
        return Call(self.index[pos], self.seq[pos], value(self.turn[pos]), name, (name, self.key[pos]),
                    None if text is None else (True, text), pos)

    def turn_keys(self) -> array | list:
        """Each call's turn as the groups tell turns apart (`_turn_key`): an int array's as it is."""
        turn = self.turn
        return turn if type(turn) is array else list(map(_turn_key, map(value, turn)))


def calls(log) -> Calls:
    """The tool calls, and which ones' last result failed: a result counts for the call of its
    ``sourceEventSeqs`` seen before it (the latest with that seq), unless it rewrites an earlier one."""
    cols = context_columns(log)
    index, seq, (turn, name, key, _paths) = cols.kind_columns(CALL)
    if None in name:
        name = ["?" if n is None else n for n in name]
    r_index, _r_seq, (call_seq, rewrite, failed, text, _meta) = cols.kind_columns(RESULT)
    return Calls(index, seq, turn, name, key, _errors(index, seq, r_index, call_seq, rewrite, failed, text))


def _errors(index, seq, r_index, call_seq, rewrite, failed, text) -> dict[int, str]:
    """position -> the result text of each call whose last result (not a rewrite) failed. Only the
    results naming a call some failed result names are read: a handful among thousands."""
    named = set(compress(call_seq, map(gt, failed, rewrite)))  # failed and not a rewrite (bools: True > False)
    if not named:
        return {}
    out: dict[int, str] = {}
    wanted = compress(range(len(call_seq)), map(named.__contains__, call_seq))
    for k, pos in call_positions(index, seq, r_index, call_seq, wanted):
        if pos < 0 or rewrite[k]:
            continue
        if failed[k]:
            out[pos] = text[k]
        else:
            out.pop(pos, None)
    return out


def loop_findings(log, files: Files | None = None, *, repeats: int = REPEATS, writes: int = WRITES,
                  cs: Calls | None = None) -> list[Finding]:
    cs = calls(log) if cs is None else cs
    out: list[Finding] = []
    out += _repeated(cs, repeats)
    out += _same_error(cs, repeats)
    if files is not None:
        out += _churn(log, files, writes)
    return out


def _seqs(seqs: list[int]) -> str:
    shown = ", ".join(str(s) for s in seqs[:SHOWN_SEQS])
    return shown + (f", ... ({len(seqs)} in all)" if len(seqs) > SHOWN_SEQS else "")


def _finding(kind: str, index, seq, message: str, related: list[int], **kw) -> Finding:
    return Finding(kind, index, seq, message, severity="info", related=related, **kw)


def _repeated(cs: Calls, n: int) -> list[Finding]:
    # Only the calls whose group's hash comes n times or more are grouped (found by C loops over the
    # sorted hashes): a dict of every call's group, its key and list, was ~24 MiB at the end of a
    # 10M-event log's check, its peak. A group shares its hash, so the groups kept and their order
    # (by their first call) are those of grouping every call.
    turn_keys = cs.turn_keys()
    hashes = array("q", map(hash, zip(turn_keys, zip(cs.name, cs.key))))
    ordered = sorted(hashes)
    many = set(compress(ordered, map(eq, ordered, islice(ordered, n - 1, None)))) if n > 1 else None
    del ordered
    groups: dict[tuple, list[int]] = {}
    picked = range(len(cs)) if many is None else compress(range(len(cs)), map(many.__contains__, hashes))
    for pos in picked:
        groups.setdefault((turn_keys[pos], (cs.name[pos], cs.key[pos])), []).append(pos)
    out = []
    dropped = 0
    for (_turn, key), group in groups.items():
        if len(group) < n:
            continue
        if len(out) >= MAX_FINDINGS:
            dropped += 1
            continue
        last = cs.call(group[-1])
        in_row = group[-1] - group[0] == len(group) - 1  # no other call between them
        seqs = [cs.seq[p] for p in group]
        out.append(_finding("REPEATED_CALL", last.index, last.seq,
                            f"{one_line(key[0], 60)} called {len(group)} times with the same arguments "
                            f"{'in a row in' if in_row else 'within'} turn {one_line(repr(last.turn), 20)} "
                            f"(seqs {_seqs(seqs)})", [cs.index[p] for p in group[:SHOWN_SEQS]],
                            name=key[0], turn=last.turn))
    _note_dropped(out, dropped)
    return out


def _turn_key(turn: object) -> object:
    """A turn as the groups tell turns apart: an int as itself, any other value by its repr (1 and
    true, 1 and "1" are other turns)."""
    return turn if type(turn) is int else repr(turn)


def _note_dropped(out: list[Finding], dropped: int) -> None:
    if dropped:
        out[-1].message += f" [and {dropped:,} more of this kind past the first {MAX_FINDINGS:,}, not listed]"


def _same_error(cs: Calls, n: int) -> list[Finding]:
    """Runs of calls in a row, each failing with the same text as the one before it after the same
    arguments: only the calls whose last result failed can be in one."""
    errors, name, key = cs.errors, cs.name, cs.key
    out = []
    dropped = 0
    run: list[int] = []
    for pos in [*sorted(errors), None]:
        if (pos is not None and run and pos == run[-1] + 1 and name[pos] == name[run[-1]]
                and key[pos] == key[run[-1]] and errors[pos] == errors[run[-1]]):
            run.append(pos)
            continue
        if len(run) >= n and len(out) >= MAX_FINDINGS:
            dropped += 1
        elif len(run) >= n:
            last = cs.call(run[-1])
            seqs = [cs.seq[p] for p in run]
            out.append(_finding("SAME_ERROR_RETRY", last.index, last.seq,
                                f"{one_line(last.name, 60)} retried {len(run) - 1} times with the same arguments "
                                f"after the same error: {one_line(last.outcome[1], 80)} (seqs {_seqs(seqs)})",
                                [cs.index[p] for p in run[:SHOWN_SEQS]], name=last.name, turn=last.turn))
        run = [pos] if pos is not None else []
    _note_dropped(out, dropped)
    return out


def _churn(log, files: Files, m: int) -> list[Finding]:
    out = []
    dropped = 0
    for f in files.files.values():
        ops = [o for o in f.ops if o.op in ("write", "edit")]
        if len(ops) < m:
            continue
        if len(out) >= MAX_FINDINGS:
            dropped += 1
            continue
        seqs = [o.seq for o in ops]
        last = ops[-1]
        out.append(Finding("FILE_CHURN", last.index, last.seq,
                           f"{one_line(f.path, 120)} written or edited {len(ops)} times (seqs {_seqs(seqs)})",
                           severity="info", related=[o.index for o in ops[:SHOWN_SEQS]], name=last.tool))
    _note_dropped(out, dropped)
    return out
