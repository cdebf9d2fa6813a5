"""What a resume will delete: dsh's repair cutting a raw log at its first bad line or seq gap.

dsh's loader stops at the first line of a raw JSONL log that is not the next event (damage.py); when
no later line holds a `turn/end` it loads the prefix before it, and its crash repair truncates the
file there (the scanner's committed-bytes prefix), deleting every record after it, recorded
`tool/call`s and `tool/result`s included, and then appends its closers for the calls left pending in
that prefix (a call whose tool/call was cut away is closed TOOL_NOT_STARTED: "retry it if still
needed", though it ran). dsh-tui reads past the damage; this module predicts dsh's cut exactly: the
byte offset, the records and seqs deleted, the calls whose recorded results it destroys, and the
closers dsh writes after it, read from the prefix alone (re-read: only a damaged log pays for it).
"""

from __future__ import annotations

from msgspec import Struct, field

from ..reading.damage import issue_offset, line_message
from ..reading.scan import WINDOW, Scanner
from .pairing import Pairing, close_pairing, feed_facts
from .usage import compute_usage

KIND = "RESUME_TRUNCATES"
ADVICE = ("copy the file before resuming (cp session.jsonl session.jsonl.bak): dsh's repair deletes the "
          "records after the cut, and they exist nowhere else; do not resume it until the copy is made")


class ResumeCut(Struct):
    offset: int  # the byte offset dsh truncates the file at
    line: int  # the physical line of the first bad line or gap (1 = header)
    reason: str  # dsh's own words for it
    deleted_records: int  # records after the cut (bad lines and a torn tail are deleted too)
    deleted_bytes: int
    first_seq: int | None  # the seqs of the deleted events (None: only bad lines follow)
    last_seq: int | None
    destroyed_results: list = field(default_factory=list)  # callIds whose recorded tool/result is deleted
    deleted_calls: list = field(default_factory=list)  # callIds whose durable tool/call is deleted
    closers: list = field(default_factory=list)  # what dsh appends after the cut, "seq:type code callId"
    not_started: list = field(default_factory=list)  # callIds dsh then closes as TOOL_NOT_STARTED
    metered: dict = field(default_factory=dict)  # dsh's token meter over the prefix it loads
    first_event: int = 0  # the index of the first event deleted (the log's length: none)

    def as_dict(self) -> dict:
        return {"offset": self.offset, "line": self.line, "reason": self.reason,
                "deleted_records": self.deleted_records, "deleted_bytes": self.deleted_bytes,
                "deleted_seqs": None if self.first_seq is None else [self.first_seq, self.last_seq],
                "destroyed_results": self.destroyed_results, "deleted_calls": self.deleted_calls,
                "closers": self.closers, "closed_not_started": self.not_started}


def predict_cut(log, pairing: Pairing) -> ResumeCut | None:
    """dsh's cut of this log on resume, or None (no mid-log damage, a zstd log, or one dsh refuses)."""
    res = log.res
    if log.raw.encoding != "jsonl" or res.first_issue is None or res.projected or not log.accepted:
        return None
    offset = issue_offset(log)
    r0 = res.first_issue[1]
    records = len(res.rec_start)
    first_ev = res.first_event(r0) if r0 < records else len(log)
    first_seq = log.seq_of(first_ev) if first_ev < len(log) else None
    last_seq = log.seq_of(len(log) - 1) if first_ev < len(log) else None
    destroyed, deleted_calls = [], []
    for p in pairing.tools.values():
        if p.close is not None and p.close >= first_ev:
            destroyed.append(p.key)
        if p.open is not None and p.open >= first_ev:
            deleted_calls.append(p.key)
    closers, not_started, metered = _prefix_closers(log, offset)
    return ResumeCut(offset, res.first_issue[3], line_message(res.first_issue), records - r0,
                     log.raw.size - offset, first_seq, last_seq, destroyed, deleted_calls, closers, not_started,
                     metered, first_ev)


def _prefix_closers(log, offset: int) -> tuple[list[str], list, dict]:
    """The closers dsh's repair appends after the cut, the prefix paired alone as dsh loads it, and
    its token meter over that prefix."""
    scanner = Scanner(log.res.body_start, log.session_id)
    store, at = log.store, log.res.body_start
    while at < offset:
        piece = store.slice(at, min(offset, at + WINDOW))
        if at + len(piece) < offset:
            piece = piece[:piece.rfind(b"\n") + 1] or piece
        scanner.feed(bytes(piece), at)
        at += len(piece)
    res = scanner.finish()
    pairing = Pairing()
    feed_facts(pairing, res.facts)
    close_pairing(pairing)
    n = res.event_end()
    out, not_started = [], []
    for k, (kind, code, call_id) in enumerate(pairing.closers):
        out.append(f"{n + k}:{kind}" + (f" {code}" if code else "") + (f" {call_id}" if call_id else ""))
        if code == "TOOL_NOT_STARTED":
            not_started.append(call_id)
    metered = compute_usage(_Prefix(log.header, res)).dsh_total
    return out, not_started, metered


class _Prefix:
    """What compute_usage reads of a log: its header and its scan (here, the prefix's)."""

    def __init__(self, header, res) -> None:
        self.header, self.res = header, res


def cut_finding_text(cut: ResumeCut) -> str:
    """The finding's message: where, why, and what dsh deletes and writes."""
    what = (f"{cut.deleted_records:,} record(s) after it (seq {cut.first_seq}-{cut.last_seq})"
            if cut.first_seq is not None else "only the unreadable lines from there on (no record is lost)")
    lead = "a resume deletes recorded work" if cut.deleted_records else "a resume cuts the file"
    text = (f"{lead}: dsh's loader stops at line {cut.line} (dsh: \"{cut.reason}\", counting "
            f"after the header) and its crash repair truncates the file at byte {cut.offset:,}, deleting {what}, "
            f"{cut.deleted_bytes:,} bytes")
    if cut.destroyed_results:
        text += f"; the recorded results of {', '.join(map(str, cut.destroyed_results))} are destroyed"
    if cut.not_started:
        text += (f"; it then closes {', '.join(map(str, cut.not_started))} as TOOL_NOT_STARTED "
                 "(\"retry it if still needed\")")
        ran = [c for c in cut.not_started if c in cut.destroyed_results or c in cut.deleted_calls]
        if ran:
            text += f", though {', '.join(map(str, ran))} did start"
    return text
