"""What one session becomes in the fleet tables: a `sessions` row and its `findings`, `calls` and
`turns` rows, read through the same reader and diagnosis as `check` (so each row says what `check
--format json` says of that log). A log that cannot be read or that dsh refuses is a `sessions` row
with its reason, never an exception. Model code: no DuckDB, no Textual."""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from .schema import SCHEMA, TOKEN_KEYS

# Findings kept per session in the `findings` table: a crafted log of a million open calls is one
# row in `sessions` with its counts, not a million rows. The counts always cover every finding.
MAX_FINDINGS = 10_000
ARGS_PREVIEW = 200


@dataclass(frozen=True, slots=True)
class SessionRef:
    """One session to scan: the log (or export ZIP and member) and the project folder it lies in."""
    path: str
    member: str | None = None
    project: str = ""  # the project folder's name under the root ("--key--", "_no-cwd"); "" when none
    project_display: str = ""
    breaks_listing: str | None = None  # why this session makes dsh's listing of its whole root throw

    @property
    def key(self) -> str:
        """Unique in a scan; valid UTF-8, as every value the tables and the manifest hold."""
        return utf8(self.path if self.member is None else f"{self.path}!{self.member}")


@dataclass(slots=True)
class Rows:
    sessions: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    calls: list[dict] = field(default_factory=list)
    turns: list[dict] = field(default_factory=list)

    def extend(self, other: "Rows") -> None:
        for name in ("sessions", "findings", "calls", "turns"):
            getattr(self, name).extend(getattr(other, name))


def utf8(text: str) -> str:
    """``text`` as valid UTF-8 (Parquet and the manifest hold nothing else): a lone surrogate (a log
    read leniently, a file name of undecodable bytes) is kept as its ``\\udXXX`` spelling."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode()


def _int(v: Any) -> int | None:
    """A BIGINT column's value: a log's turn or step may be any JSON value."""
    return v if type(v) is int and -2**63 <= v < 2**63 else None


def _str(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    try:
        return orjson.dumps(v).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(v)


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def partition_value(text: str) -> str:
    """A project folder's name as a partition directory's value: ASCII letters, digits, ``._-``, at
    most 80 characters, with a short hash when anything was changed (two names never share one)."""
    safe = _SAFE.sub("_", text).strip("._") or "none"
    if safe == text and len(text) <= 80:
        return text
    return f"{safe[:64]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def _created(ms: Any) -> tuple[str | None, str]:
    if type(ms) in (int, float) and 0 <= ms < 253402300800000:
        when = _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc)
        return when.isoformat(timespec="milliseconds"), when.strftime("%Y-%m-%d")
    return None, "unknown"


def _iso(seconds: float) -> str | None:
    try:
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).isoformat(timespec="milliseconds")
    except (OverflowError, OSError, ValueError):
        return None


def _base(ref: SessionRef, session_id: Any, created_ms: Any) -> dict:
    created, day = _created(created_ms)
    return {"session_key": ref.key, "session_id": _str(session_id), "project_key": partition_value(ref.project or "none"),
            "created_date": day}, created


def session_rows(ref: SessionRef, *, max_plain: int | None = None, lenient: bool = False,
                 use_cache: bool = True, now: float | None = None) -> Rows:
    """The rows of one session. Never raises for a bad log (its `sessions` row says why)."""
    import time
    from ..model.reading.source import LogUnreadable
    from ..model.opening.target import OpenOptions, Target, open_target
    now = time.time() if now is None else now
    target = Target(Path(ref.path), ref.member)
    try:
        st = Path(ref.path).stat()
        size, mtime = st.st_size, st.st_mtime
    except OSError:
        size, mtime = None, None
    try:
        log, diag = open_target(target, OpenOptions(lenient=lenient, max_plain=max_plain, use_cache=use_cache,
                                                    write_cache=False, keep_facts=False))
    except LogUnreadable as exc:
        return _failed_row(ref, "unreadable", exc.message, size, mtime, now, rejected=_is_rejection(exc))
    except MemoryError:
        return _failed_row(ref, "unreadable", "out of memory while decoding; lower --max-plain-size", size, mtime, now)
    except RecursionError:
        return _failed_row(ref, "unreadable", "the input nests too deeply to read", size, mtime, now)
    except OSError as exc:
        return _failed_row(ref, "unreadable", f"{ref.key}: {exc.strerror or exc}", size, mtime, now)
    return _judged_rows(ref, log, diag, size, mtime, now, lenient)


def _is_rejection(exc) -> bool:
    from ..model.reading.session import LogRejected
    return isinstance(exc, LogRejected)


def _failed_row(ref: SessionRef, status: str, error: str, size, mtime, now, *, rejected: bool = False) -> Rows:
    base, created = _base(ref, None, None)
    row = _empty_session(ref, base, created, size, mtime, now)
    row.update(status="rejected" if rejected else status, error=error, accepted=False if rejected else None)
    return Rows(sessions=[row])


def _empty_session(ref: SessionRef, base: dict, created, size, mtime, now) -> dict:
    from .schema import SESSIONS
    row = {name: None for name, _t in SESSIONS}
    row.update(base)
    row.update(path=ref.path, member=ref.member, project=ref.project, project_display=ref.project_display,
               breaks_listing=ref.breaks_listing,
               created=created, file_size=size, file_mtime=_iso(mtime) if mtime is not None else None,
               dsh_tui_version=__version__, scanned_at=_iso(now), schema=SCHEMA)
    return row


def _judged_rows(ref: SessionRef, log, diag, size, mtime, now, lenient: bool) -> Rows:
    h = log.header
    base, created = _base(ref, log.session_id, h.get("createdAt"))
    row = _empty_session(ref, base, created, size, mtime, now)
    row.update(parent=_str(h.get("parentSession")), depth=_int(h.delegation_depth), origin=_str(h.get("origin")),
               delegated=bool(h.delegated), forked=bool(h.forked), accepted=bool(log.accepted),
               rejection_code=log.rejection.code if log.rejection else None, verified=bool(log.verified),
               whole=bool(log.whole), torn=log.raw.torn is not None, encoding=log.raw.encoding,
               events=len(log), records=log.records)
    if not log.accepted and not lenient:
        row.update(status="rejected", error=log.rejection.message if log.rejection else None)
        return Rows(sessions=[row])
    row["status"] = "ok"
    out = Rows(sessions=[row])
    _verdict(row, diag)
    _findings(out, base, log, diag)
    _usage_and_time(row, out, base, log, diag)
    _calls(out, base, log, diag)
    return out


def _verdict(row: dict, diag) -> None:
    v = diag.verdict
    row["failed"] = bool(diag.failed)
    if v is not None:
        row.update(verdict_kind=v.kind, verdict_seq=_int(v.seq), verdict_call_id=_str(v.call_id),
                   verdict_tool=_str(v.name), verdict_code=_str(v.code), verdict_severity=v.severity,
                   verdict_message=v.message)
    counts: dict[str, int] = {}
    sev = {"failure": 0, "warning": 0, "info": 0}
    for f in diag.findings:
        counts[f.kind] = counts.get(f.kind, 0) + 1
        sev[f.severity] = sev.get(f.severity, 0) + 1
    row.update(findings=len(diag.findings), failures=sev["failure"], warnings=sev["warning"], infos=sev["info"],
               finding_counts=orjson.dumps(counts).decode())


def _permalink(base: dict, seq: Any) -> str | None:
    return f"{base['session_id']}@{seq}" if base["session_id"] is not None and _int(seq) is not None else None


def _findings(out: Rows, base: dict, log, diag) -> None:
    verdict = diag.verdict
    for f in diag.findings[:MAX_FINDINGS]:
        out.findings.append({**base, "seq": _int(f.seq), "kind": f.kind, "severity": f.severity,
                             "call_id": _str(f.call_id), "tool": _str(f.name), "turn": _int(f.turn),
                             "step": _int(f.step), "code": _str(f.code), "message": f.message, "run": f.run,
                             "is_verdict": f is verdict, "permalink": _permalink(base, f.seq)})


def _usage_and_time(row: dict, out: Rows, base: dict, log, diag) -> None:
    from ..model.presenting.timing_text import timing_json
    u = diag.usage
    for k in TOKEN_KEYS:
        row[k] = u.session.get(k, 0)
        row[f"inherited_{k}"] = u.inherited.get(k, 0)
    timing = timing_json(log, diag.timing)
    totals, counts = timing["totals"], timing["counts"]
    row.update(turns=counts["turns"], tool_calls=len(diag.pairing.tools), model_calls=counts["model_calls"],
               wall_ms=totals.get("wall_ms"), model_ms=totals.get("model_ms"), tool_ms=totals.get("tool_ms"))
    tokens = {t["turn"]: t for t in u.as_dict()["turns"]}
    for t in timing["turns"]:
        spent = tokens.get(t["turn"], {})
        out.turns.append({**base, "turn": _int(t["turn"]), "seq": _int(t["seq"]), "reason": _str(t["reason"]),
                          "open": bool(t["open"]),
                          **{k: _int(t.get(k)) for k in ("wall_ms", "model_ms", "retry_ms", "tool_ms", "approval_ms",
                                                          "idle_ms")},
                          **{k: _int(spent.get(k, 0)) for k in TOKEN_KEYS}})


def _calls(out: Rows, base: dict, log, diag) -> None:
    from ..model.presenting.redact import redact
    from ..model.presenting.report import call_arguments
    timed: dict[Any, tuple] = {}
    for t in diag.timing.tools:
        timed[t.call_id] = (t.duration_ms, t.approval_ms)
    for p in diag.pairing.tools.values():
        args = call_arguments(log, p)
        seq = p.seq_open if p.seq_open is not None else p.seq_ask
        duration, wait = timed.get(p.key, (None, None))
        out.calls.append({**base, "seq": _int(seq), "result_seq": _int(p.seq_close), "turn": _int(p.turn),
                          "step": _int(p.step), "call_id": _str(p.key), "tool": _str(p.name), "status": p.status,
                          "error_code": _str(p.code), "duration_ms": _int(duration), "approval_wait_ms": _int(wait),
                          "args_preview": redact(args[:16 * 1024])[:ARGS_PREVIEW],
                          "args_sha": hashlib.sha256(args.encode("utf-8", "surrogatepass")).hexdigest(),
                          "repaired": bool(p.repaired), "permalink": _permalink(base, seq)})
