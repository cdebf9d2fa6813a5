"""dsh's session-root naming rules (DSH-FORMAT 1): project keys and session-dir segments.

Mirrors ``projectKey`` / ``encodeSegment`` in
packages/session/session-persistence-jsonl/src/format.ts, both working on
UTF-16 code units, plus best-effort inverses for display. Stdlib only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

NO_CWD = "_no-cwd"
LOG_NAMES = ("session.jsonl.zstd", "session.jsonl")
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_SEPARATORS = frozenset("/\\:")
_ESCAPE = re.compile(r"~([0-9A-Fa-f]{4})")
# \Z, as JavaScript's $ (Python's $ also matches before a name's last newline: not dsh's rule)
TMP_RE = re.compile(r"^session\.jsonl(?:\.zstd)?\.[0-9a-f]{12}\.tmp\Z")
FLAT_TMP_RE = re.compile(r"\.jsonl(?:\.zstd)?\.[0-9a-f]{12}\.tmp\Z")


def default_root() -> Path:
    """``$DSH_HOME/sessions`` when DSH_HOME is set and non-blank, else ``~/.dsh/sessions``."""
    home = os.environ.get("DSH_HOME", "")
    if home.strip():
        return Path(home) / "sessions"
    return Path.home() / ".dsh" / "sessions"


def _code_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


def _from_units(units: list[int]) -> str:
    data = b"".join(u.to_bytes(2, "little") for u in units)
    return data.decode("utf-16-le", "surrogatepass")  # pairs combine; lone surrogates stay


def project_key(cwd: str) -> str:
    """dsh's ``projectKey(cwd)``: ``/home/user/projects/demo-app`` -> ``--home-user-projects-demo-app--``."""
    if not cwd:
        raise ValueError("cannot encode an empty project path")
    out: list[str] = []
    run = False
    for unit in _code_units(cwd):
        ch = chr(unit)
        if ch in _SEPARATORS:
            if not run:
                out.append("-")
            run = True
        else:
            out.append(ch if ch in _SAFE else f"~{unit:04X}")
            run = False
    slug = "".join(out).lstrip("-") or "root"
    return f"--{slug[:251]}--"


def encode_segment(raw: str) -> str:
    """dsh's ``encodeSegment(id)``: the session directory name for a session id."""
    if not raw:
        raise ValueError("cannot encode an empty path segment")
    if raw == ".":
        return "~002E"
    if raw == "..":
        return "~002E~002E"
    return "".join(chr(u) if chr(u) in _SAFE else f"~{u:04X}" for u in _code_units(raw))


def _unescape(text: str) -> str:
    units: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(text):
        units.extend(_code_units(text[pos:m.start()]))
        units.append(int(m.group(1), 16))
        pos = m.end()
    units.extend(_code_units(text[pos:]))
    return _from_units(units)


def decode_segment(name: str) -> str:
    """Inverse of :func:`encode_segment` (``~XXXX`` -> that UTF-16 code unit)."""
    return _unescape(name) if "~" in name else name


def is_project_dirname(name: str) -> bool:
    return name == NO_CWD or (len(name) > 4 and name.startswith("--") and name.endswith("--"))


def decode_project_key(dirname: str) -> str | None:
    """Best-effort display string for a project directory name, or None when it is not one.

    Strips the ``--`` wrappers and turns ``~XXXX`` back into characters. The key is
    lossy (a ``-`` may have been ``/``, ``\\`` or ``:``, or a literal ``-``; the slug
    may be cut at 251 characters), so ``-`` is kept as is: ``--home-user-demo-app--``
    -> ``home-user-demo-app``. Prefer a header's ``cwd`` when one is known.
    ``_no-cwd`` -> ``"(no cwd)"``.
    """
    if dirname == NO_CWD:
        return "(no cwd)"
    if not is_project_dirname(dirname):
        return None
    return decode_segment(dirname[2:-2])
