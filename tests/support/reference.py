"""dsh's own published packages (../shared/dsh-reference), installed for a test that asks dsh itself."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .logs import SHARED


def install_reference(tmp: Path, *scripts: Path) -> Path | None:
    """dsh's reference packages installed in ``tmp/ref`` with ``scripts`` beside them (None when npm or the
    registry is not reachable here: the caller skips)."""
    source = SHARED / "dsh-reference"
    npm = shutil.which("npm")
    if not source.is_dir() or npm is None:
        return None
    ref = tmp / "ref"
    shutil.copytree(source, ref)
    for script in scripts:
        shutil.copy(script, ref)
    try:
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=ref, capture_output=True,
                              timeout=300, env={**os.environ, "npm_config_update_notifier": "false"})
    except subprocess.TimeoutExpired:
        return None
    node = ref / "node_modules" / ".bin" / "node"
    return ref if done.returncode == 0 and node.exists() else None
