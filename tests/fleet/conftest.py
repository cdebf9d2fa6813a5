"""The fleet commands run as processes here, as a user runs them: a scan's process pool (and its
forkserver and resource tracker) then ends with the command, never outliving it inside the test
process, whose children other tests count."""

from __future__ import annotations

import subprocess
import sys


def dsh(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``dsh-tui ARGS`` as a process: its exit code, stdout and stderr (text)."""
    return subprocess.run([sys.executable, "-m", "dsh_tui", *args], capture_output=True, text=True, timeout=timeout)
