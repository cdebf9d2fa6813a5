"""The diff pairs dsh's writer wrote (tests/parity/diff-cases, from tests/parity/write_diff_pairs.mjs), diffed."""

from __future__ import annotations

from pathlib import Path

from dsh_tui.cli import _common
from dsh_tui.diffcmd import build, diff_parser

from .logs import PARITY

DIFF_CASES = PARITY / "diff-cases" / "--home-user-parity--"


def pair_logs(name: str) -> tuple[Path, Path]:
    return DIFF_CASES / f"{name}-a" / "session.jsonl.zstd", DIFF_CASES / f"{name}-b" / "session.jsonl.zstd"


def built(a: Path, b: Path):
    """`dsh-tui diff A B --no-cache`'s result and each side's (log, diagnosis)."""
    args = diff_parser(_common).parse_args([str(a), str(b), "--no-cache"])
    result, left, right, _l, _r = build(args)
    for side, path in ((result.left, a), (result.right, b)):  # shown in the head: not where the checkout is
        side.label = str(path.relative_to(DIFF_CASES.parent)) if path.is_relative_to(DIFF_CASES.parent) else path.name
    return result, left, right


def diff_app(name: str):
    """The diff explorer on pair ``name`` (no user settings, no native clipboard), on its first divergence."""
    from dsh_tui.ui.diffapp import DiffApp
    result, left, right = built(*pair_logs(name))
    app = DiffApp(result, left[0], right[0], native_clipboard=False)
    app.theme = "textual-dark"
    return app
