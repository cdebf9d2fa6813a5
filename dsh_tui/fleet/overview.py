"""What the fleet view shows of a scan: the sessions grouped by verdict kind and by tool, a per-day
strip, and a group's sessions, each with where to open it (its log and its verdict's seq). Read with
DuckDB from the scan's tables; plain data, no Textual."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .store import connect

ALL_FAILED = "all failed"
MAX_SESSIONS = 5_000  # sessions listed for one group (the count says how many there are)
BARS = " ▁▂▃▄▅▆▇█"


@dataclass(frozen=True, slots=True)
class Group:
    label: str  # a verdict kind, "tool NAME", or ALL_FAILED
    count: int  # sessions
    kind: str | None = None  # the verdict kind, for a kind's group
    tool: str | None = None  # the tool, for a tool's group (sessions with an error result of it)


@dataclass(frozen=True, slots=True)
class SessionRow:
    created: str
    session_id: str
    project: str
    verdict: str
    tool: str
    path: str  # what the explorer opens (a log, or "<zip>!<member>")
    seq: int | None  # the verdict's seq


@dataclass(slots=True)
class Overview:
    total: int = 0
    failed: int = 0
    kinds: list[Group] = field(default_factory=list)
    tools: list[Group] = field(default_factory=list)
    days: list[tuple[str, int, int]] = field(default_factory=list)  # (day, sessions, failed)

    @property
    def groups(self) -> list[Group]:
        return [Group(ALL_FAILED, self.failed), *self.kinds, *self.tools]


def overview(out: Path) -> Overview:
    con = connect(out)
    try:
        total, failed = con.execute("SELECT count(*), count(*) FILTER (WHERE failed OR status <> 'ok') "
                                    "FROM sessions").fetchone()
        kinds = [Group(k, n, kind=k) for k, n in con.execute(
            "SELECT coalesce(verdict_kind, upper(status)), count(*) FROM sessions WHERE failed OR status <> 'ok' "
            "GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()]
        tools = [Group(f"tool {t}", n, tool=t) for t, n in con.execute(
            "SELECT tool, count(DISTINCT session_key) FROM calls WHERE status = 'error' AND tool IS NOT NULL "
            "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50").fetchall()]
        days = [(d, n, f) for d, n, f in con.execute(
            "SELECT created_date, count(*), count(*) FILTER (WHERE failed OR status <> 'ok') FROM sessions "
            "GROUP BY 1 ORDER BY 1").fetchall()]
        return Overview(total, failed, kinds, tools, days)
    finally:
        con.close()


def sessions_of(out: Path, group: Group) -> list[SessionRow]:
    """The group's sessions, newest first."""
    where, params = "failed OR status <> 'ok'", []
    if group.kind is not None:
        where = "coalesce(verdict_kind, upper(status)) = ? AND (failed OR status <> 'ok')"
        params = [group.kind]
    elif group.tool is not None:
        where = "session_key IN (SELECT session_key FROM calls WHERE status = 'error' AND tool = ?)"
        params = [group.tool]
    con = connect(out)
    try:
        rows = con.execute(
            "SELECT strftime(created, '%Y-%m-%d %H:%M'), session_id, coalesce(project_display, project), "
            "coalesce(verdict_kind, upper(status)), verdict_tool, session_key, verdict_seq FROM sessions "
            f"WHERE {where} ORDER BY created DESC NULLS LAST, session_key LIMIT {MAX_SESSIONS}", params).fetchall()
    finally:
        con.close()
    return [SessionRow(c or "?", i or "?", p or "", v or "", t or "", k, s) for c, i, p, v, t, k, s in rows]


def day_strip(days: list[tuple[str, int, int]], width: int) -> tuple[str, str]:
    """(sessions per day, failed per day) as block characters, the last ``width`` days, one scale."""
    days = [d for d in days if d[0] != "unknown"][-width:]
    top = max((n for _d, n, _f in days), default=0)
    if not top:
        return "", ""

    def bar(v: int) -> str:
        return BARS[0] if v == 0 else BARS[max(1, round(v / top * (len(BARS) - 1)))]
    return "".join(bar(n) for _d, n, _f in days), "".join(bar(f) for _d, _n, f in days)


def is_scan_folder(path: Path) -> bool:
    """A folder `dsh-tui scan --out` wrote (its manifest names the fleet schema)."""
    from .schema import SCHEMA
    try:
        with open(path / "manifest.json", "rb") as fh:
            head = fh.read(200)
    except OSError:
        return False
    return f'"schema":"{SCHEMA}"'.encode() in head
