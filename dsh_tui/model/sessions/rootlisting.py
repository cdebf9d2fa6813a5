"""Sessions that break dsh's listing of their whole root.

dsh's `list()` (what `dsh web`, its picker and resume-by-id start from) reads every session's header
and throws for the entire root on the first it cannot take (dsh-session-persistence-jsonl,
listArtifacts): a zstd log whose first frame does not validate or holds more than the header line,
or a header whose id or cwd names another path than the one the log sits at. Then `dsh web` fails
to start and every session in that root becomes unlistable, not just that one. `ls`, the browser and
`check` say so at the root level, name the file, and advise moving it out (never deleting it).
"""

from __future__ import annotations

from pathlib import Path

from .entry import SessionEntry

# header errors of entry.py's header read that dsh's listing throws on (a torn header frame it skips)
_FRAME_ERRORS = ("corrupt session log", "the header frame does not decode", "the header frame holds no complete line",
                 "the first zstd frame is not exactly the header line")
_IDENTITY_NOTES = ("header id does not match the session directory name", "header cwd maps to a different project",
                   "header has no cwd but the log is not under")
ADVICE = ("move its session directory out of the root (do not delete it: it is a session's only record), "
          "e.g. mkdir -p ~/dsh-quarantine && mv {dir} ~/dsh-quarantine/")


def breaks_listing(entry: SessionEntry) -> str | None:
    """Why dsh's listing of the whole root throws on this session, or None."""
    err = entry.header_error or ""
    if entry.encoding == "zstd" and not entry.torn and any(w in err for w in _FRAME_ERRORS):
        return err
    for note in entry.notes:
        if any(note.startswith(w) for w in _IDENTITY_NOTES):
            return f"{note}: dsh's listing checks every header against its path"
    return None


def listing_breakers(entries: list[SessionEntry]) -> list[dict]:
    """The sessions that break dsh's listing of their root: [{path, reason, advice}], in path order."""
    out = []
    for e in sorted(entries, key=lambda e: str(e.path)):
        reason = breaks_listing(e)
        if reason is not None:
            out.append({"path": str(e.path), "reason": reason,
                        "advice": ADVICE.format(dir=_quoted(e.path.parent))})
    return out


def root_warning(breakers: list[dict], root: Path | None = None) -> str:
    """One line for the top of a listing (paths shown under ``root`` when given: the name comes early)."""
    first = breakers[0]
    path = Path(first["path"])
    if root is not None and path.is_relative_to(root):
        path = path.relative_to(root)
    more = f" (and {len(breakers) - 1} more)" if len(breakers) > 1 else ""
    return (f"DSH CANNOT LIST THIS ROOT: {path}{more} breaks dsh's listing of every session here "
            f"(dsh web will not start): {first['reason']}; {first['advice']}")


def _quoted(path: Path) -> str:
    text = str(path)
    return "'" + text.replace("'", "'\\''") + "'" if any(c in text for c in " '\"$`\\") else text
