"""A delegated session whose cwd is longer than 80 columns: the header bar cuts it, the full header does not."""

from __future__ import annotations

from pathlib import Path

from .session_roots import T0, header, turn_batches, write_session

LONG_CWD = ("/home/user/projects/a-rather-long-organisation-name/monorepo/services/payments-gateway"
            "/internal/reconciliation/nightly-batch-worker")
LONG_ID = "33333333-0000-4000-8000-000000000001"
PARENT_ID = "33333333-0000-4000-8000-000000000000"


def long_cwd_session(root: Path) -> Path:
    """A subagent child (delegationDepth 1) with LONG_CWD, fixed ids and times, one completed turn."""
    h = header(LONG_ID, T0, LONG_CWD, parentSession=PARENT_ID, origin="subagent", delegationDepth=1)
    return write_session(root, h, turn_batches("completed"))
