"""Damage dsh's own loader refuses, and damage it reads past: the line between the two is dsh's.

dsh's scanner reads event lines in order and stops at the first that is not the next event (not JSON,
blank, a malformed packed row, or a seq that is not the next: `ScanResult.first_issue`). What follows
decides (dsh-session-persistence-jsonl, SessionLogScanner and readZstdPrefix):

* a later line that decodes to a `turn/end`: dsh refuses the log ("corrupt session log: unparsable
  committed event at line N", or "... seq gap in committed region at line N (expected E, got G)";
  N counts event lines, the header not included);
* else, in a raw JSONL log, dsh loads the prefix before it, and a resume cuts the file there
  (model/diagnosing/resume.py says what that deletes);
* else, inside a complete zstd frame, dsh refuses the log ("corrupt Zstandard session log: complete
  frame contains a torn JSONL record"); in a torn final frame it loads the prefix.

A zstd frame that does not decode, bad frame magic or a complete frame ending inside a record are
refused too. A torn tail (an incomplete last frame or line) is damage dsh reads past.
"""

from __future__ import annotations

from .header import Rejection
from .search import first_offset, needle_key

CODE = "CORRUPT_LOG"
_TURN_END = needle_key('"turn/end"')
_FRAME_WORDS = {  # source.py's frame-level corruption kinds -> dsh's words for the same damage
    "bad-frame": "corrupt Zstandard session log: frame at byte {offset} failed validation",
    "torn-record-in-frame": "corrupt Zstandard session log: complete frame contains a torn JSONL record",
    "skippable-frame": "corrupt Zstandard session log: invalid frame magic at byte {offset}",
    "trailing-garbage": "corrupt Zstandard session log: invalid frame magic at byte {offset}",
    "reserved-bit": "corrupt Zstandard session log: reserved frame-header bit at byte {descriptor}",
    "reserved-block": "corrupt Zstandard session log: reserved block type at byte {offset}",
}


def issue_offset(log) -> int | None:
    """The plaintext offset of the first line dsh's loader stops at (None: it reads every line)."""
    issue = log.res.first_issue
    if issue is None:
        return None
    _kind, rec, offset, _line, _detail = issue
    if offset >= 0:
        return offset
    return log.res.rec_start[rec] if rec < len(log.res.rec_start) else log.res.text_end


def line_message(issue: tuple) -> str:
    """dsh's own message for the first issue (its line number counts event lines only)."""
    kind, _rec, _offset, line, detail = issue
    if kind == "gap":
        return f"corrupt session log: seq gap in committed region at line {line - 1} ({detail})"
    return f"corrupt session log: unparsable committed event at line {line - 1}"


def turn_end_after(log, offset: int) -> bool:
    """Whether a record from ``offset`` on is a `turn/end` (dsh refuses the log then). Read from the
    text past the damage, only for a damaged log: the records holding the words, parsed."""
    store, res = log.store, log.res
    at = offset
    end = len(store)
    while True:
        hit = first_offset(store, _TURN_END, at, end)
        if hit is None:
            return False
        r = log.record_index_at(hit)
        if res.rec_start[r] >= offset:  # (a hit in a bad line maps to the record before it)
            obj, _lenient = log.parse_record(r)
            if isinstance(obj, dict) and obj.get("type") == "turn/end":
                return True
        at = max(hit + 1, res.end_of(r) + 1)


def damage_refusal(log) -> Rejection | None:
    """dsh's refusal of a damaged log, in dsh's words, or None (no damage, or damage it reads past)."""
    raw = log.raw
    if raw.encoding == "zstd":
        for c in raw.corruption:
            words = _FRAME_WORDS.get(c.kind)
            return Rejection(CODE, words.format(offset=c.offset, descriptor=c.offset + 4) if words else
                             "corrupt Zstandard session log: " + c.message)
    issue = log.res.first_issue
    if issue is None:
        return None
    offset = issue_offset(log)
    if turn_end_after(log, offset):
        return Rejection(CODE, line_message(issue), issue[3])
    if raw.encoding == "zstd" and offset < complete_text_end(log):
        return Rejection(CODE, "corrupt Zstandard session log: complete frame contains a torn JSONL record", issue[3])
    return None


def loaded_events(log) -> int:
    """How many events dsh's loader reads (the events before its first bad line or gap): its load
    checks, and its repair, see only those."""
    issue = log.res.first_issue
    if issue is None:
        return len(log)
    rec = issue[1]
    return log.res.first_event(rec) if rec < len(log.res.rec_start) else len(log)


def complete_text_end(log) -> int:
    """The plaintext end of a zstd log's complete frames (a torn last frame's records come after)."""
    raw = log.raw
    if raw.torn is not None and raw.frame_plain and raw.frame_offsets and raw.frame_offsets[-1] == raw.torn.offset:
        return raw.frame_plain[-1]
    return len(log.store)
