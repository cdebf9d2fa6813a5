"""Whether a decode that is not whole lost anything: a frame torn in its checksum only (the JSON's
``torn_tail.records_lost: false``) read every record, so the snippet and the markdown note it
rather than warn "do not file a bug from this alone". Textual-free.
"""

from __future__ import annotations

from ..reading.sessionlog import SessionLog


def records_lost(log: SessionLog) -> bool:
    """Whether the decode lost or cannot vouch for what it read: everything `integrity_problems`
    names but a frame torn in its checksum only (every record read: a note, not a warning)."""
    return not log.whole and not (log.raw.torn is not None and not log.raw.torn.lost and _whole_but_torn(log))


def _whole_but_torn(log: SessionLog) -> bool:
    r, raw = log.res, log.raw
    return (log.accepted and not r.gaps and not raw.corruption and not r.corruption and not raw.unchecked_frames
            and not any(not u.ignorable for u in r.unknown.values()))


def decode_warning(log: SessionLog) -> str:
    """The snippet's first line when the decode is not whole: a warning when something was lost or is
    unverified, a note when only the last frame's checksum is cut (the JSON's ``records_lost: false``)."""
    if records_lost(log):
        return "WARNING: DECODE NOT WHOLE - do not file a bug from this alone: "
    return "NOTE: decode not whole, no record lost: "
