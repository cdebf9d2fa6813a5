"""The summary deltas of a diff: each side's counts and what changed between them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .compare import DiffResult
from .digest import RunDigest


def side_counts(d: RunDigest) -> dict[str, Any]:
    by_tool = Counter(c.name for c in d.calls)
    return {
        "turns": len(d.turns),
        "steps": sum(t.steps for t in d.turns),
        "tool_calls": len(d.calls),
        "calls_by_tool": dict(sorted(by_tool.items())),
        "errors": sum(1 for c in d.calls if c.status not in ("paired", "open")),
        "retries": sum(t.retries for t in d.turns),
        "tokens": dict(d.tokens),
        "wall_ms": d.wall_ms,
        "model_ms": d.model_ms,
        "tool_ms": d.tool_ms,
        "files": len(d.files),
    }


def _delta(a: Any, b: Any) -> Any:
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _delta(a.get(k, 0), b.get(k, 0)) for k in sorted(set(a) | set(b))}
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        return b - a
    return None


def files_delta(left: RunDigest, right: RunDigest) -> dict[str, list[str]]:
    """Paths touched on one side only, and written on both with different results."""
    a, b = left.files, right.files
    return {"added": sorted(set(b) - set(a)), "dropped": sorted(set(a) - set(b)),
            "changed": sorted(p for p in set(a) & set(b) if a[p] != b[p])}


def summary(result: DiffResult) -> dict[str, Any]:
    la, rb = side_counts(result.left), side_counts(result.right)
    rows = result.rows
    return {
        "left": la,
        "right": rb,
        "delta": {k: _delta(la[k], rb[k]) for k in la},
        "files": files_delta(result.left, result.right),
        "turns_paired": sum(1 for r in rows if r.kind == "turn" and r.left is not None and r.right is not None),
        "turns_shared": sum(1 for r in rows if r.kind == "turn" and r.state == "shared"),
        "differences": len(result.differences),
    }
