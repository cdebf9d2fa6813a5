"""SessionLog: the decoded log with random access to any logical event.

Built once by `load_session` (session.py); the TUI and `check` only read it, and a followed log
indexes what is appended (`refresh`). Events are addressed by index (0..len-1, packed rows
expanded); seq equals the index unless the file has gaps, which `seq_of`/`index_of_seq` account for.
"""

from __future__ import annotations

import bisect
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from msgspec import Struct

from ..columns.calltable import CallTable
from .damage import damage_refusal, loaded_events
from .header import Header, Rejection
from .restore import RESTORE, Problem, Refusals, fold_problem, without_content
from .jsonparse import parse_json
from .legacy import upgrade
from .gcpause import gc_paused
from .plainstore import FileStore, FrameStore, MemoryStore
from .scan import Scanner
from .scanresult import ScanResult
from .search import first_offset, last_offset, needle_key
from .source import LogUnreadable, RawLog, iter_lines, iter_plain, max_plain_bytes, open_file_bytes
from .vocabulary import PACKED_ROWS


class EventView(Struct):
    index: int
    record: int
    seq: int
    type: str  # as stored (packed members show as assistant/chunk)
    time: int | None
    event: dict  # logical event; legacy shapes upgraded, packed members expanded
    packed: tuple[str, int, int] | None  # (row tag, member k, members m)
    legacy: str | None
    raw: bytes  # the physical record (a packed row for its members)
    line: int
    lenient: bool = False


class SessionLog:
    def __init__(self, raw: RawLog, header: Header, res: ScanResult, *, lenient: bool = False,
                 store=None) -> None:
        self.raw = raw
        self.header = header
        self.res = res
        self.lenient = lenient
        self.store = store if store is not None else MemoryStore(raw.plain)
        self.from_cache = False
        self.derived = None  # from the index cache: what a `check` read of this log alone (context/export.py)
        self._scanner: Scanner | None = None  # kept to index appended records (live follow)
        self.followable = True  # False for a log read from a ZIP member
        self.plain_limit: int | None = None  # the plaintext limit it was read under (the index cache keys on it)
        self.parse_record = lru_cache(maxsize=4096)(self._parse_record)
        self._rejection_key: tuple | None = None
        self._restore_rejection: Rejection | None = None

    # -- sizes and identity -------------------------------------------------
    def __len__(self) -> int:
        return self.res.event_end()

    @property
    def path(self) -> Path:
        return self.raw.path

    @property
    def records(self) -> int:
        return len(self.res.rec_start)

    @property
    def session_id(self) -> str | None:
        return self.header.session_id

    @property
    def rejection(self) -> Rejection | None:
        """Why dsh would refuse to load this log, or None: its header (header.py), else the first
        problem of its load's checks beyond the header (restore.py: vocabulary, legacy shapes, unknown
        types, envelopes, message shapes, the surface fold). Damage (corruption, a torn tail) is
        reported apart: it gives a partial view, not a refusal."""
        if self.header.rejection is not None:
            return self.header.rejection
        res = self.res
        key = (id(res), len(res.surface_seqs), len(res.refusals.first))
        if self._rejection_key != key:  # computed once per index (a followed log's grows)
            self._rejection_key, self._restore_rejection = key, self._refused_by_restore()
        return self._restore_rejection

    def _refused_by_restore(self) -> Rejection | None:
        res = self.res
        if res.projected:
            return None
        damage = damage_refusal(self)  # dsh's scan refuses damage (damage.py) before its load checks run
        if damage is not None:
            return damage
        loaded = loaded_events(self)  # its checks see only what it loads: nothing past a resume cut
        refusals = Refusals()
        for p in res.refusals.first.values():
            if p.index < loaded:
                refusals.note(p)
        folded = fold_problem(res.surface_seqs, res.replacements, self._rest_of_result)
        if folded is not None and folded[0] < loaded:
            index, seq, problem = folded
            refusals.note(Problem(RESTORE, 0, index, seq, "INVALID_SURFACE", f"event at seq {seq}: {problem}"))
        p = refusals.decisive()
        return None if p is None else Rejection(p.code, p.message)

    def _rest_of_result(self, seq: int):
        """A tool/result's data without its content (restore.fold_problem reads two per rewrite)."""
        i = self.index_of_seq(seq)
        if i is None:
            return None
        ev = self.event(i).event
        return without_content(ev.get("data")) if ev.get("type") == "tool/result" else None

    @property
    def accepted(self) -> bool:
        return self.rejection is None

    @property
    def verified(self) -> bool:
        """False when the log was read past a rejection (--lenient)."""
        return self.accepted

    @property
    def whole(self) -> bool:
        """True when nothing was lost or skipped while decoding, and every frame's checksum held.
        A frame without a checksum decodes, but nothing says its bytes are the ones dsh wrote (dsh
        always writes one): like a torn tail, what it shows cannot be trusted alone."""
        r = self.res
        return (self.accepted and not r.gaps and self.raw.torn is None and not self.raw.corruption
                and not r.corruption and not self.raw.unchecked_frames
                and not any(not u.ignorable for u in r.unknown.values()))

    @property
    def corruption_count(self) -> int:
        """Every corruption found: the frames', the records' kept and the records' only counted."""
        return len(self.raw.corruption) + len(self.res.corruption) + self.res.corruption_dropped

    # -- live follow ------------------------------------------------------------
    def release_facts(self) -> None:
        """Let go of what only the diagnosis reads (the facts and per-call usage) once it is made. The
        log can no longer index an append in place: a live follow re-reads it, as one from the cache."""
        self.res.facts = []
        self.res.usage_calls = CallTable()
        self._scanner = None

    def refresh(self, *, max_plain: int | None = None) -> int:
        """Index what was appended to the file since it was read.

        Returns the number of new events, 0 when nothing changed, or -1 when the
        file was truncated, replaced or a torn frame we had partly read changed:
        the caller must re-open it. Never writes; raises LogUnreadable.
        """
        raw = self.raw
        if not self.followable:
            return 0
        try:
            st = os.stat(raw.path)
        except OSError as exc:
            raise LogUnreadable("os-error", f"cannot stat {raw.path}: {exc.strerror or exc}") from None
        if self._scanner is None or st.st_size < raw.size:
            return -1
        if st.st_size == raw.size:
            return 0
        torn = raw.torn
        if torn is not None and torn.recovered_records:
            return -1  # records of a torn frame were indexed; the completed frame repeats them
        limit = max_plain_bytes(max_plain)
        fb, st = open_file_bytes(raw.path, limit)
        before = len(self)
        produced = len(self.store)
        try:
            if raw.encoding == "jsonl":
                start = torn.offset if torn is not None else produced
                raw.torn = None
                chunks: Iterator[bytes] = iter_lines(raw, fb, start=start)
            else:
                start = torn.offset if torn is not None else raw.frames_end
                if torn is not None:  # the torn frame's entry is re-made when it is read again
                    del raw.frame_offsets[-1], raw.frame_plain[-1]
                    raw.torn = None
                chunks = iter_plain(raw, fb, limit, start=start, produced=produced)
            with gc_paused():
                for chunk in chunks:
                    self._scanner.feed(chunk, produced)
                    produced += len(chunk)
        finally:
            fb.close()
        raw.size, raw.mtime_ns = fb.size, st.st_mtime_ns  # the stat that bounded the read
        self.res = self._scanner.finish()
        self.store = file_store(raw, produced)
        self.parse_record.cache_clear()
        return len(self) - before

    # -- record and event access ----------------------------------------------
    def record_bytes(self, r: int) -> bytes:
        return self.store.slice(self.res.rec_start[r], self.res.end_of(r))

    def line_of_record(self, r: int) -> int:
        return r + 2 + self.res.lines_skipped_before(r)  # the header is line 1

    def _parse_record(self, r: int) -> tuple[Any, bool]:
        return parse_json(self.record_bytes(r))

    def record_of(self, i: int) -> int:
        return self.res.record_of(i)

    def type_of(self, i: int) -> str:
        tid = self.res.type_id(i)
        if tid < 255:
            return self.res.types[tid]
        obj, _ = self.parse_record(self.res.record_of(i))
        return "assistant/chunk" if obj.get("type") in PACKED_ROWS else obj.get("type", "?")

    def seq_of(self, i: int) -> int:
        shifts = self.res.seq_shift
        if not shifts:
            return i
        k = bisect.bisect_right(shifts, (i, float("inf"))) - 1
        return i + shifts[k][1] if k >= 0 else i

    def index_of_seq(self, seq: int) -> int | None:
        """The first event index carrying ``seq`` (None when no event has it)."""
        bounds = [0] + [s[0] for s in self.res.seq_shift] + [len(self)]
        deltas = [0] + [s[1] for s in self.res.seq_shift]
        for k, delta in enumerate(deltas):
            i = seq - delta
            if bounds[k] <= i < bounds[k + 1]:
                return i
        return None

    def event(self, i: int) -> EventView:
        if not 0 <= i < len(self):
            raise IndexError(i)
        r = self.res.record_of(i)
        obj, lenient = self.parse_record(r)
        raw = self.record_bytes(r)
        line = self.line_of_record(r)
        seq = self.seq_of(i)
        row = PACKED_ROWS.get(obj.get("type")) if isinstance(obj, dict) else None
        if row is not None:
            k = i - self.res.first_event(r)
            ev, m = _expand_member(obj, row, k, seq)
            return EventView(i, r, seq, "assistant/chunk", ev.get("time"), ev, (obj["type"], k, m), None, raw, line,
                             lenient)
        etype = obj.get("type", "?")
        data = obj.get("data")
        new_type, new_data, tag = upgrade(etype, data, seq, self.session_id)
        ev = obj if tag is None else {**obj, "type": new_type, "data": new_data}
        time = obj.get("time") if isinstance(obj.get("time"), int) else None
        return EventView(i, r, seq, etype, time, ev, None, tag, raw, line, lenient)

    def record_index_at(self, offset: int) -> int:
        return max(0, self.res.record_at(offset))

    def search(self, needle: str, start: int, *, backward: bool = False) -> int | None:
        """Index of the next event (after/before ``start``) whose record holds ``needle``.

        Case-insensitive (ASCII) over the raw text of the whole log, so it finds types, tool
        names, callIds and message text anywhere, not only on screen. The text is read a window
        at a time from ``start`` on (search.py), never held whole.
        """
        if not needle or not len(self):
            return None
        key = needle_key(needle)
        cur_rec = self.res.record_of(min(max(start, 0), len(self) - 1))
        if not backward:
            lo = self.res.end_of(cur_rec) if start >= 0 else self.res.body_start
            at = first_offset(self.store, key, lo, len(self.store))
        else:
            at = last_offset(self.store, key, self.res.body_start, self.res.rec_start[cur_rec])
        return None if at is None else self._first_event_of_record(self.record_index_at(at), needle)

    def _first_event_of_record(self, r: int, needle: str) -> int:
        first = self.res.first_event(r)
        obj, _ = self.parse_record(r)
        row = PACKED_ROWS.get(obj.get("type")) if isinstance(obj, dict) else None
        if row is not None:  # land on the member that holds the text
            members = obj.get("data", {}).get(row[1]) or []
            low = needle.lower()
            for k, text in enumerate(members):
                if isinstance(text, str) and low in text.lower():
                    return first + k
        return first


def _expand_member(row: dict, spec: tuple[str, str], k: int, seq: int) -> tuple[dict, int]:
    d = row.get("data") if isinstance(row.get("data"), dict) else {}
    members = d.get(spec[1]) if isinstance(d.get(spec[1]), list) else [None]
    dt = d.get("dt") if isinstance(d.get("dt"), list) else []
    time0 = row.get("time0")
    time = None
    if isinstance(time0, int):
        time = time0 + sum(x for x in dt[:k] if isinstance(x, int) and not isinstance(x, bool))
    value = members[k] if k < len(members) else None
    if spec[0] == "tool-call-delta":
        chunk = {"type": "tool-call-delta", "index": d.get("index"), "id": d.get("id")}
        if "name" in d:
            chunk["name"] = d["name"]
        chunk["argumentsDelta"] = value
    else:
        chunk = {"type": spec[0], "index": d.get("index"), "text": value}
    ev = {"type": "assistant/chunk", "seq": seq, "time": time,
          "data": {"turn": d.get("turn"), "step": d.get("step"), "chunk": chunk}}
    return ev, len(members)


def file_store(raw: RawLog, produced: int):
    """Where a file's text is read back from: its lines (JSONL) or its frames (zstd)."""
    if raw.encoding == "jsonl":
        return FileStore(raw.path, produced)
    return FrameStore(raw.path, produced, raw.frame_offsets, raw.frame_plain, raw.frames_end,
                      raw.torn.offset if raw.torn is not None else None, raw.size)
