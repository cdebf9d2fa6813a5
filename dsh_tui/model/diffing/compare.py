"""Two runs compared: aligned rows, the first divergence, the calls by outcome, summary deltas.

Turns pair by their user prompt (the same text first, through `align`; then, in what is left of
each gap, a prompt similar enough: difflib's ratio at least PROMPT_SIMILAR); calls within a pair
of turns by (tool name, normalized arguments), then a left and a right call standing in the same
gap pair up as one call changed (another tool, other arguments). A fork's inherited turns (below
its ``seedLength``) pair one to one with its source's first turns, as shared, left unjudged.

Rows, in run order: a turn row, its call rows, and an end row where the two turns ended
differently. A row's state is ``same``, ``shared``, ``changed`` or ``only_left``/``only_right``;
``why`` names how it differs (DIVERGENCE_KINDS). The first row not the same is the first divergence.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from msgspec import Struct, field

from .align import align, pair_gaps
from .digest import CallDigest, RunDigest, TurnDigest

PROMPT_SIMILAR = 0.6
SIMILAR_CHARS = 500  # of each prompt, for the ratio (bounded cost per pair)
SIMILAR_BUDGET = 20_000  # prompt comparisons in all (each at most ~0.1 ms): past it, turns stay unpaired

DIVERGENCE_KINDS = {
    "prompt": "a different user prompt",
    "model": "a different model or request header",
    "tool": "a different tool",
    "arguments": "different arguments",
    "result": "a different result or error",
    "retry": "a retry on one side only",
    "stopped": "one side stopped",
    "extra_call": "a call on one side only",
    "extra_turn": "a turn on one side only",
    "turn_end": "the turn ended differently",
}


class Row(Struct):
    kind: str  # "turn" | "call" | "end"
    left: int | None  # position in the left digest's turns (turn/end rows) or calls
    right: int | None
    state: str  # same | shared | changed | only_left | only_right
    why: str | None = None
    lturn: int | None = None  # the row's turn positions (its own for a turn row)
    rturn: int | None = None


class DiffResult(Struct):
    left: RunDigest
    right: RunDigest
    rows: list[Row]
    methods: set = field(default_factory=set)  # the alignment methods used (align.py)

    @property
    def differences(self) -> list[int]:
        return [k for k, r in enumerate(self.rows) if r.state not in ("same", "shared")]

    @property
    def first(self) -> int | None:
        return next((k for k, r in enumerate(self.rows) if r.state not in ("same", "shared")), None)

    def seqs(self, row: Row) -> tuple[int | None, int | None]:
        return _seq(self.left, row, row.left), _seq(self.right, row, row.right)

    def turn_numbers(self, row: Row) -> tuple[Any, Any]:
        lt = self.left.turns[row.lturn].turn if row.lturn is not None else None
        rt = self.right.turns[row.rturn].turn if row.rturn is not None else None
        return lt, rt


def _seq(side: RunDigest, row: Row, at: int | None) -> int | None:
    if at is None:
        return None
    if row.kind == "call":
        return side.calls[at].seq
    t = side.turns[at]
    if row.kind == "end":
        return t.end_seq if t.end_seq is not None else (side.calls[t.calls[-1]].seq if t.calls else t.seq)
    return t.seq


def compare(left: RunDigest, right: RunDigest) -> DiffResult:
    out = DiffResult(left, right, [])
    pairs = _turn_pairs(left, right, out.methods)
    for i, j, shared in pairs:
        out.rows += _turn_rows(left, right, i, j, shared, out.methods)
    _mark_stopped(out.rows)
    return out


def _turn_pairs(left: RunDigest, right: RunDigest, methods: set) -> list[tuple[int | None, int | None, bool]]:
    inherited = _shared_count(left, right)
    head = [(k, k, True) for k in range(inherited)]
    lt, rt = left.turns[inherited:], right.turns[inherited:]
    rows, method = align([t.prompt_key for t in lt], [t.prompt_key for t in rt])
    methods.add(method)

    budget = [SIMILAR_BUDGET]

    def similar(i: int, j: int) -> bool:
        if budget[0] <= 0:  # two unrelated long sessions: leave the rest unpaired, in bounded time
            return False
        budget[0] -= 1
        a, b = lt[i].prompt[:SIMILAR_CHARS], rt[j].prompt[:SIMILAR_CHARS]
        m = SequenceMatcher(None, a, b, autojunk=False)
        return m.real_quick_ratio() >= PROMPT_SIMILAR and m.quick_ratio() >= PROMPT_SIMILAR \
            and m.ratio() >= PROMPT_SIMILAR

    rows = pair_gaps(rows, similar)
    return head + [(None if i is None else i + inherited, None if j is None else j + inherited, False)
                   for i, j in rows]


def _shared_count(left: RunDigest, right: RunDigest) -> int:
    """Turns a fork inherited from the other side (both sides' turns below the fork's seedLength)."""
    for fork, source in ((right, left), (left, right)):
        if fork.seed_length and fork.parent is not None and fork.parent == source.session_id:
            n = sum(1 for t in fork.turns if t.shared)
            m = sum(1 for t in source.turns if t.index < fork.seed_length)
            return min(n, m)
    return 0


def _turn_rows(left: RunDigest, right: RunDigest, i: int | None, j: int | None, shared: bool, methods: set) -> list[Row]:
    if i is None or j is None:
        side = left if j is None else right
        t = side.turns[i if j is None else j]
        state = "only_left" if j is None else "only_right"
        rows = [Row("turn", i, j, state, "extra_turn", i, j)]
        rows += [Row("call", c if j is None else None, None if j is None else c, state, "extra_call", i, j)
                 for c in t.calls]
        return rows
    a, b = left.turns[i], right.turns[j]
    if shared:
        rows = [Row("turn", i, j, "shared", None, i, j)]
        rows += [Row("call", x, y, "shared", None, i, j) for x, y in _zip_calls(a, b)]
        return rows
    why = "prompt" if a.prompt_key != b.prompt_key else "model" if a.models != b.models else None
    rows = [Row("turn", i, j, "changed" if why else "same", why, i, j)]
    ca, cb = [left.calls[k] for k in a.calls], [right.calls[k] for k in b.calls]
    aligned, method = align([c.args_key for c in ca], [c.args_key for c in cb])
    methods.add(method)
    aligned = pair_gaps(aligned, lambda x, y: True)  # a call replaced in place: one call, changed
    call_retry = False
    for x, y in aligned:
        lx = a.calls[x] if x is not None else None
        ry = b.calls[y] if y is not None else None
        if lx is None or ry is None:
            state = "only_left" if ry is None else "only_right"
            rows.append(Row("call", lx, ry, state, "extra_call", i, j))
            continue
        why = _call_why(left.calls[lx], right.calls[ry])
        call_retry = call_retry or why == "retry"
        rows.append(Row("call", lx, ry, "changed" if why else "same", why, i, j))
    end_why = _end_why(a, b, call_retry)
    if end_why:
        rows.append(Row("end", i, j, "changed", end_why, i, j))
    return rows


def _zip_calls(a: TurnDigest, b: TurnDigest) -> list[tuple[int | None, int | None]]:
    n = max(len(a.calls), len(b.calls))
    return [(a.calls[k] if k < len(a.calls) else None, b.calls[k] if k < len(b.calls) else None) for k in range(n)]


def _call_why(x: CallDigest, y: CallDigest) -> str | None:
    if x.name != y.name:
        return "tool"
    if x.args_key != y.args_key:
        return "arguments"
    if x.stopped != y.stopped:
        return "stopped"
    if (x.status, x.code, x.result_key) != (y.status, y.code, y.result_key):
        return "result"
    if (x.retries == 0) != (y.retries == 0):
        return "retry"
    if x.model != y.model:
        return "model"
    return None


def _end_why(a: TurnDigest, b: TurnDigest, call_retry: bool) -> str | None:
    if (a.end is None) != (b.end is None):
        return "stopped"
    if a.end != b.end:
        return "turn_end"
    if not call_retry and (a.retries == 0) != (b.retries == 0):
        return "retry"
    return None


def _mark_stopped(rows: list[Row]) -> None:
    """One-side rows that run to the end on one side: that side went on, the other stopped."""
    k = len(rows)
    while k > 0 and rows[k - 1].state in ("only_left", "only_right"):
        k -= 1
    tail = rows[k:]
    if tail and len({r.state for r in tail}) == 1:
        for r in tail:
            r.why = "stopped"
