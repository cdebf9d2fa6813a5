"""Aligning two sequences of keys: which items pair up, which stand on one side only.

`align` returns the rows in order: (i, j) for a pair, (i, None) / (None, j) for an item on one
side only. Its cost is bounded whatever the input:

* the common prefix and suffix are paired first, in one pass (a re-run, a copy, a fork: usually
  all but a short middle), so identical runs cost O(n);
* a middle of at most EXACT_CELLS cells (len(a) x len(b)) gets an exact longest common subsequence
  (dynamic programming);
* a larger middle of at most MATCHER_ITEMS items goes to difflib's matcher (longest matching block
  first, then recursively either side of it: the LCS on the common cases, insertions and
  replacements, and near-linear when few keys repeat);
* past that, a greedy walk pairs equal keys ahead within a window of GREEDY_WINDOW items. Linear,
  and it may miss pairs an LCS would make: only a crafted pair of logs gets there.

`pair_gaps` then pairs the one-side-only items that stand in the same gap (a call replaced by
another at the same place) when the caller's test says they belong together.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from difflib import SequenceMatcher

EXACT_CELLS = 250_000
MATCHER_ITEMS = 40_000
GREEDY_WINDOW = 64

Row = tuple  # (int | None, int | None)


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[list[Row], str]:
    """The rows pairing ``a`` and ``b``, and the method the middle took ("exact", "matcher", "greedy")."""
    n, m = len(a), len(b)
    p = 0
    while p < n and p < m and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and s < m - p and a[n - 1 - s] == b[m - 1 - s]:
        s += 1
    mid_a, mid_b = a[p:n - s], b[p:m - s]
    if not mid_a or not mid_b:
        method, blocks = "exact", []
    elif len(mid_a) * len(mid_b) <= EXACT_CELLS:
        method, blocks = "exact", _lcs(mid_a, mid_b)
    elif len(mid_a) + len(mid_b) <= MATCHER_ITEMS:
        method = "matcher"
        blocks = [(x + k, y + k) for x, y, size in SequenceMatcher(None, mid_a, mid_b, autojunk=False)
                  .get_matching_blocks() for k in range(size)]
    else:
        method, blocks = "greedy", _greedy(mid_a, mid_b)
    rows: list[Row] = [(k, k) for k in range(p)]
    x = y = 0
    for i, j in blocks:
        rows += [(p + k, None) for k in range(x, i)]
        rows += [(None, p + k) for k in range(y, j)]
        rows.append((p + i, p + j))
        x, y = i + 1, j + 1
    rows += [(p + k, None) for k in range(x, len(mid_a))]
    rows += [(None, p + k) for k in range(y, len(mid_b))]
    rows += [(n - s + k, m - s + k) for k in range(s)]
    return rows, method


def _lcs(a: Sequence, b: Sequence) -> list[tuple[int, int]]:
    """The pairs of a longest common subsequence (dynamic programming, len(a) x len(b) cells)."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below, ai = table[i], table[i + 1], a[i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if ai == b[j] else max(below[j], row[j + 1])
    out, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _greedy(a: Sequence, b: Sequence) -> list[tuple[int, int]]:
    """Pairs in order: each item of ``a`` with the first equal item of ``b`` within the window ahead."""
    out, j = [], 0
    for i, key in enumerate(a):
        for k in range(j, min(j + GREEDY_WINDOW, len(b))):
            if b[k] == key:
                out.append((i, k))
                j = k + 1
                break
    return out


def pair_gaps(rows: list[Row], belong: Callable[[int, int], bool]) -> list[Row]:
    """``rows`` with the one-side items of each gap paired in order where ``belong(i, j)``: a left
    item takes the first right item of its gap, after the last one taken, that belongs with it."""
    out: list[Row] = []
    k = 0
    while k < len(rows):
        if rows[k][0] is not None and rows[k][1] is not None:
            out.append(rows[k])
            k += 1
            continue
        end = k
        while end < len(rows) and (rows[end][0] is None or rows[end][1] is None):
            end += 1
        left = [r[0] for r in rows[k:end] if r[0] is not None]
        right = [r[1] for r in rows[k:end] if r[1] is not None]
        out += _pair_run(left, right, belong)
        k = end
    return out


def _pair_run(left: list[int], right: list[int], belong) -> list[Row]:
    out: list[Row] = []
    y = 0
    for i in left:
        hit = next((k for k in range(y, min(len(right), y + GREEDY_WINDOW)) if belong(i, right[k])), None)
        if hit is None:
            out.append((i, None))
            continue
        out += [(None, j) for j in right[y:hit]]
        out.append((i, right[hit]))
        y = hit + 1
    out += [(None, j) for j in right[y:]]
    return out
