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
from operator import eq

from msgspec import Struct

from ..diagnosing.findings import Finding
from ..reading.contextfacts import CALL, RESULT, value
from ...safety import one_line
from .files import Files
from .select import records

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


def calls(log, recs=None) -> list[Call]:
    """``recs``: the records of every tool/call and tool/result in log order (read here if None)."""
    out: list[Call] = []
    by_seq: dict[int, Call] = {}
    for r in (records(log, (CALL, RESULT)) if recs is None else recs):
        if r[0] == CALL:
            _type, i, seq, turn, name, key, _paths = r
            name = name if name is not None else "?"
            c = Call(i, seq, value(turn), name, (name, key), pos=len(out))
            out.append(c)
            by_seq[seq] = c
            continue
        _type, _i, _seq, call_seq, rewrite, is_error, text, _meta = r
        c = by_seq.get(call_seq) if call_seq is not None and not rewrite else None
        if c is not None:
            c.outcome = (is_error, text)
    return out


def loop_findings(log, files: Files | None = None, *, repeats: int = REPEATS, writes: int = WRITES,
                  cs: list[Call] | None = None) -> list[Finding]:
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


def _finding(kind: str, last: Call | None, index, seq, message: str, related: list[int], **kw) -> Finding:
    return Finding(kind, index, seq, message, severity="info", related=related, **kw)


def _repeated(cs: list[Call], n: int) -> list[Finding]:
    # Only the calls whose group's hash comes n times or more are grouped (found by C loops over the
    # sorted hashes): a dict of every call's group, its key and list, was ~24 MiB at the end of a
    # 10M-event log's check, its peak. A group shares its hash, so the groups kept and their order
    # (by their first call) are those of grouping every call.
    hashes = array("q", (hash((_turn_key(c.turn), c.key)) for c in cs))
    ordered = sorted(hashes)
    many = set(compress(ordered, map(eq, ordered, islice(ordered, n - 1, None)))) if n > 1 else None
    del ordered
    groups: dict[tuple, list[Call]] = {}
    for c, h in zip(cs, hashes):
        if many is None or h in many:
            groups.setdefault((_turn_key(c.turn), c.key), []).append(c)
    out = []
    dropped = 0
    for (_turn, key), group in groups.items():
        if len(group) < n:
            continue
        if len(out) >= MAX_FINDINGS:
            dropped += 1
            continue
        last = group[-1]
        first = group[0].pos
        in_row = group[-1].pos - first == len(group) - 1  # no other call between them
        seqs = [c.seq for c in group]
        out.append(_finding("REPEATED_CALL", last, last.index, last.seq,
                            f"{one_line(key[0], 60)} called {len(group)} times with the same arguments "
                            f"{'in a row in' if in_row else 'within'} turn {one_line(repr(last.turn), 20)} "
                            f"(seqs {_seqs(seqs)})", [c.index for c in group[:SHOWN_SEQS]],
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


def _same_error(cs: list[Call], n: int) -> list[Finding]:
    out = []
    dropped = 0
    run: list[Call] = []
    for c in cs + [None]:
        same = (c is not None and run and c.key == run[-1].key and c.outcome is not None
                and c.outcome[0] and c.outcome == run[-1].outcome)
        if same:
            run.append(c)
            continue
        if len(run) >= n and len(out) >= MAX_FINDINGS:
            dropped += 1
        elif len(run) >= n:
            last = run[-1]
            seqs = [x.seq for x in run]
            out.append(_finding("SAME_ERROR_RETRY", last, last.index, last.seq,
                                f"{one_line(last.key[0], 60)} retried {len(run) - 1} times with the same arguments "
                                f"after the same error: {one_line(last.outcome[1], 80)} (seqs {_seqs(seqs)})",
                                [x.index for x in run[:SHOWN_SEQS]], name=last.key[0], turn=last.turn))
        run = [c] if c is not None and c.outcome is not None and c.outcome[0] else []
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
