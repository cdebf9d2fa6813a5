"""What the explorer and `check` open: a log file, an export ZIP (its root session) or one member
of it, written ``<zip>!<member>`` as the model names it (`SessionLog.path`). Thin wrappers kept
for their callers over the model's one way in (model/opening/target.py: `resolve`, `open_target`,
`load_log`), where a ZIP is recognised once. Textual-free."""

from __future__ import annotations

import os
from pathlib import Path

from ..model.sessions.entry import SessionEntry
from ..model.opening.target import Target, resolve


def split_target(path: str | os.PathLike) -> tuple[Path, str | None]:
    """``x.zip!subagents/a/session.jsonl`` -> (x.zip, member); a plain path -> (path, None)."""
    target = resolve(path)
    return target.path, (target.member if target.member is not None and Path(path) != target.path else None)


def entry_target(entry: SessionEntry) -> Path:
    """What to open for a listed session (a file, or ``<zip>!<member>``)."""
    return Target(Path(entry.path), entry.member).name


def is_zip_target(path: str | os.PathLike) -> bool:
    """True for an export ZIP or ``<zip>!<member>`` (read with `target.load_log`, not `load_session`)."""
    return resolve(path).is_zip
