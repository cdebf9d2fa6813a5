"""A session's family: its parent, its subagent descendants and its forks in the same root.

dsh records the parent -> child link only in the child's header
(`parentSession`), so the family is found by listing the session root the
log sits in (header frames only) or the members of an export ZIP. As in dsh's
own `listChildren`, a session's children are its subagent children (origin
"subagent"); a session that names it as parent without being one (a user
fork: seed lineage, a top-level session) is listed apart, among its forks,
and its failures are its own. The children's verdicts roll up into the
parent's report, and a tool name the parent's tool set lacks is looked up in
the children's calls.
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct, field

from .discovery import RootUnreadable, fill_status, list_sessions
from .entry import SessionEntry, zip_entries
from ..reading.exportzip import ExportZip, ZipUnreadable, is_export_zip

MAX_CHILDREN = 64


class Relative(Struct):
    entry: SessionEntry
    depth: int  # 1 = direct child
    tools_called: frozenset = frozenset()
    parent_id: str | None = None  # the session this one was delegated from (its row's parent)
    kind: str = "child"  # child (subagent) | fork (seed lineage) | unlisted (delegated, but no origin)


class Lineage(Struct):
    root: Path | None
    parent: SessionEntry | None = None
    parent_relation: str = "parent"  # or "fork source": the session a user fork was seeded from
    children: list[Relative] = field(default_factory=list)
    forks: list[Relative] = field(default_factory=list)  # direct only: sessions seeded from this one
    truncated: bool = False

    def child_with_tool(self, name: str) -> Relative | None:
        return next((c for c in self.children if name in c.tools_called), None)

    def failures(self) -> list[Relative]:
        return [c for c in self.children if c.entry.verdict_kind]


def session_root(path: Path) -> Path | None:
    """`<root>/--<project>--/<segment>/session.jsonl[.zstd]` -> root (None for other layouts)."""
    try:
        project = path.parents[1].name
    except IndexError:
        return None
    if path.name in ("session.jsonl", "session.jsonl.zstd") and (
            project == "_no-cwd" or (project.startswith("--") and project.endswith("--"))):
        return path.parents[2]
    return None


def find_lineage(path: Path, session_id: str | None, *, cancel=None, fill: bool = True,
                 max_plain: int | None = None) -> Lineage:
    """Parent and descendants of ``session_id``. Never raises; empty when no root is found.

    At most MAX_CHILDREN descendants are read in full (``fill``), each under the caller's
    plaintext limit ``max_plain`` (as `check --max-plain-size`): a child that decodes past it,
    or cannot be read at all, shows as unreadable in the parent's report and is not loaded.
    An export ZIP is opened once for the listing and every child read.
    """
    path = Path(str(path).split("!", 1)[0])
    archive = None
    try:
        if is_export_zip(path):
            root = path
            archive = ExportZip(path)
            entries = zip_entries(archive)
        else:
            root = session_root(path)
            if root is None:
                return Lineage(None)
            entries = list_sessions(root).entries
        return _family(root, entries, session_id, cancel, fill, max_plain, archive)
    except (ZipUnreadable, RootUnreadable):
        return Lineage(root)
    finally:
        if archive is not None:
            archive.close()


def _family(root: Path, entries: list[SessionEntry], session_id: str | None, cancel, fill: bool,
            max_plain: int | None, archive) -> Lineage:
    by_id = {e.session_id: e for e in entries if e.session_id}
    me = by_id.get(session_id)
    out = Lineage(root)
    if me is not None and me.parent_session:
        out.parent = by_id.get(me.parent_session)
        out.parent_relation = "fork source" if me.forked else "parent"
    kids: dict[str, list[SessionEntry]] = {}
    for e in entries:
        if e.subagent:
            kids.setdefault(e.parent_session, []).append(e)
        elif e.parent_session == session_id and session_id is not None and len(out.forks) < MAX_CHILDREN:
            out.forks.append(Relative(e, 1, parent_id=session_id, kind="fork" if e.forked else "unlisted"))
    out.forks.sort(key=lambda r: _sibling_order(r.entry))
    out.children, out.truncated = _descendants(session_id, kids)
    if fill:
        for rel in out.children + out.forks:
            if cancel is not None and cancel.is_set():
                break
            _fill(rel, cancel, max_plain, archive)
    return out


def _sibling_order(e: SessionEntry) -> tuple:
    return (e.sort_time, e.session_id or "", e.member or "", str(e.path))


def _descendants(session_id: str | None, kids: dict[str, list[SessionEntry]]) -> tuple[list[Relative], bool]:
    """The descendants of ``session_id`` depth-first in tree order, and whether some were left out.

    Which descendants are kept (at most MAX_CHILDREN) is decided breadth-first, so a
    deep first branch cannot hide later direct children; the kept set holds every
    kept row's parent, and is then listed depth-first: each child followed by its own
    descendants, siblings by createdAt then id. Each row records its parent's id.
    """
    chosen: dict[str, list[SessionEntry]] = {}  # parent id -> its kept children, in sibling order
    frontier, seen, count, truncated = [session_id], {session_id}, 0, False
    while frontier and not truncated:
        nxt: list[str] = []
        for sid in frontier:
            for child in sorted(kids.get(sid, ()), key=_sibling_order):
                cid = child.session_id
                if cid is not None and cid in seen:  # a duplicate id or a parentSession loop
                    continue
                if count >= MAX_CHILDREN:
                    truncated = True
                    break
                count += 1
                chosen.setdefault(sid, []).append(child)
                if cid is not None:
                    seen.add(cid)
                    nxt.append(cid)
            if truncated:
                break
        frontier = nxt
    rows: list[Relative] = []
    stack: list[tuple[str, int, int]] = [(session_id, 1, 0)]  # (parent id, depth, next child index)
    while stack:
        sid, depth, k = stack.pop()
        siblings = chosen.get(sid, ())
        if k >= len(siblings):
            continue
        child = siblings[k]
        rows.append(Relative(child, depth, parent_id=sid))
        stack.append((sid, depth, k + 1))
        if child.session_id is not None:
            stack.append((child.session_id, depth + 1, 0))
    return rows, truncated


def tree_guides(children: list[Relative]) -> list[str]:
    """Box-drawing prefixes (``├─ ``, ``└─ ``, ``│  ``) for rows listed depth-first by ``find_lineage``.

    A row is its parent's last listed child when no later row has the same parent.
    """
    last: list[bool] = []
    later: set = set()
    for rel in reversed(children):
        last.append(rel.parent_id not in later)
        later.add(rel.parent_id)
    last.reverse()
    out: list[str] = []
    more: list[bool] = []  # per depth above the row: whether that ancestor has later siblings
    for rel, is_last in zip(children, last):
        d = max(rel.depth, 1)
        more = more[:d - 1] + [False] * (d - 1 - len(more))
        out.append("".join("│  " if m else "   " for m in more) + ("└─ " if is_last else "├─ "))
        more.append(not is_last)
    return out


def _fill(rel: Relative, cancel, max_plain: int | None, archive) -> None:
    """The child's status, verdict and the tools it called (one full read, within ``max_plain``)."""
    fill_status(rel.entry, cancel=cancel, max_plain=max_plain, archive=archive)
    rel.tools_called = rel.entry.tools_called


def link_findings(findings: list, lineage: Lineage) -> None:
    """Point "not in this session's tool set" findings at the child that called the tool."""
    for f in findings:
        if f.kind == "NOT_IN_TOOL_SET" and f.name and f.child_session is None:
            rel = lineage.child_with_tool(f.name)
            if rel is not None:
                f.child_session = rel.entry.session_id
                f.message += f"; child session {rel.entry.session_id} calls it"


def lineage_json(lineage: Lineage) -> dict:
    def one(e: SessionEntry, depth: int | None = None) -> dict:
        return {"id": e.session_id, "path": str(e.path), "member": e.member, "depth": depth,
                "status": e.status, "verdict_kind": e.verdict_kind, "verdict_call_id": e.verdict_call_id,
                "verdict_message": e.verdict_message}
    return {"root": str(lineage.root) if lineage.root else None,
            "parent": one(lineage.parent) if lineage.parent else None,
            "parent_relation": lineage.parent_relation if lineage.parent else None,
            "children": [{**one(c.entry, c.depth), "parent": c.parent_id} for c in lineage.children],
            "child_failures": [c.entry.session_id for c in lineage.failures()],
            "forks": [{**one(c.entry, 1), "kind": c.kind, "seed_length": c.entry.seed_length}
                      for c in lineage.forks],
            "truncated": lineage.truncated}


def lineage_lines(lineage: Lineage) -> list[str]:
    """Human lines for the report: the parent and each descendant with its verdict."""
    out = []
    if lineage.parent is not None:
        out.append(f"{lineage.parent_relation}: {lineage.parent.session_id} ({lineage.parent.path})")
    for c in lineage.children:
        e = c.entry
        verdict = f"{e.verdict_kind} {e.verdict_call_id or ''}".strip() if e.verdict_kind else "no failure found"
        mark = "CHILD FAILURE" if e.verdict_kind else "child"
        out.append(f"{'  ' * (c.depth - 1)}{mark}: {e.session_id} [{e.status}] {verdict}")
    if lineage.truncated:
        out.append(f"... more than {MAX_CHILDREN} descendants; listed the first {MAX_CHILDREN}")
    for c in lineage.forks:
        e = c.entry
        verdict = f"{e.verdict_kind} {e.verdict_call_id or ''}".strip() if e.verdict_kind else "no failure found"
        what = (f"fork (at seq {e.seed_length})" if c.kind == "fork" and e.seed_length is not None else "fork"
                if c.kind == "fork" else "names it as parent, no origin: dsh does not list it as a child")
        out.append(f"{what}: {e.session_id} [{e.status}] {verdict} (its own session: not counted here)")
    return out
