"""The session browser's rows and texts, Textual-free (the widgets only draw them).

`browser_rows` turns a listing into display rows: one heading per project
(decoded project name / most common cwd), sessions newest first with subagent
and fork children nested under their parents (`build_tree`/`walk_tree`), and,
under a filter, the matching sessions plus their ancestors for context.
`row_cells` gives the same facts `dsh-tui ls` prints, already sanitised
(`safety.one_line`). `root_has_sessions` is the cheap check the CLI makes
before choosing between the browser and the demo log.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from msgspec import Struct

from ..model.sessions.discovery import Listing, filter_entries, group_by_project, tree_marker, walk_tree
from ..model.sessions.entry import SessionEntry
from ..model.sessions.layout import LOG_NAMES, NO_CWD
from ..model.sessions.rootlisting import root_warning
from ..safety import one_line
from ..units import human_size

__all__ = ["Row", "browser_rows", "layout_for", "row_cells", "head_text", "status_of", "session_status", "verdict_text", "entry_details",
           "footer_notes", "summary_line", "display_root", "display_path", "root_has_sessions", "utc_minutes"]

# status -> (label, style class): "ok" | "bad" | "warn" | "dim"
STATUS = {
    "unknown": ("…", "dim"),
    "completed": ("completed", "ok"),
    "failed": ("failed", "bad"),
    "idle": ("idle", "dim"),
    "empty": ("empty", "dim"),
    "open-turn": ("open turn", "bad"),
    "error": ("error", "bad"),
    "aborted": ("aborted", "warn"),
    "interrupted": ("interrupted", "warn"),
    "blocked": ("blocked", "warn"),
    "max-tokens": ("max-tokens", "warn"),
    "torn": ("TORN", "bad"),
    "corrupt": ("CORRUPT", "bad"),
    "unreadable": ("unreadable", "bad"),
    "rejected": ("REJECTED", "bad"),
}


class Row(Struct):
    kind: str  # "group" | "session"
    entry: SessionEntry | None = None
    depth: int = 0
    title: str = ""  # group heading (sanitised)
    count: int = 0  # group: sessions shown
    context: bool = False  # a session shown only because a descendant matches the filter


def utc_minutes(seconds: float | None, *, year: bool = True) -> str:
    if seconds is None:
        return "?"
    try:
        dt = datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return "?"
    return dt.strftime("%Y-%m-%d %H:%M" if year else "%m-%d %H:%M")


def group_title(entry: SessionEntry) -> str:
    if entry.project_dir == NO_CWD:
        return "(no cwd)  _no-cwd"
    title = entry.project_display or "(not in a project directory)"
    return one_line(title, 300)


def browser_rows(roots: list[SessionEntry], entries: list[SessionEntry], text: str = "") -> list[Row]:
    """Display rows for a tree from ``build_tree`` (``roots``) over ``entries``, narrowed by ``text``.

    Linear in the sessions however deep the tree (a 20,000-session chain is one walk)."""
    matched: set[int] | None = None
    if text.strip():
        matched = {id(e) for e in filter_entries(entries, text)}
    out: list[Row] = []
    for members in group_by_project(roots).values():
        walked = list(walk_tree(members))
        if matched is None:
            rows = [Row("session", entry, depth) for entry, depth in walked]
        else:
            context = _ancestors_of(walked, matched)
            rows = [Row("session", entry, depth, context=id(entry) not in matched) for entry, depth in walked
                    if id(entry) in matched or id(entry) in context]
        if rows:
            shown = sum(1 for r in rows if not r.context)
            out.append(Row("group", title=group_title(members[0]), count=shown))
            out.extend(rows)
    return out


def _ancestors_of(walked: list[tuple[SessionEntry, int]], matched: set[int]) -> set[int]:
    """The ids of the entries above a matched one, from a pre-order walk: the walk's path is
    kept as a stack, and marking stops at an ancestor already marked (its own are too)."""
    marked: set[int] = set()
    path: list[SessionEntry] = []
    for entry, depth in walked:
        del path[depth:]
        if id(entry) in matched:
            for above in reversed(path):
                if id(above) in marked:
                    break
                marked.add(id(above))
        path.append(entry)
    return marked


# Statuses that say the session failed by themselves; any other with a verdict failed all the same.
FAILED_STATUSES = ("torn", "corrupt", "unreadable", "rejected", "open-turn", "error")


def session_status(entry: SessionEntry) -> str:
    """The one status `ls` (text and JSON's ``shown_status``), the browser and the family screen
    show: the entry's own, except that a last turn that completed (or no turn at all) with a verdict
    (a command that failed, a tool error, a call left without a result) is "failed"."""
    if entry.verdict_kind and entry.status in ("completed", "idle", "empty"):
        return "failed"
    return entry.status


def status_of(entry: SessionEntry) -> tuple[str, str]:
    """(label, class) of `session_status` for the browser's STATUS column; a verdict makes it "bad"."""
    status = session_status(entry)
    label, cls = STATUS.get(status, (one_line(status, 12), "warn"))
    return label, "bad" if entry.verdict_kind else cls


def mark_of(entry: SessionEntry) -> tuple[str, str]:
    if entry.verdict_kind or entry.status in FAILED_STATUSES:
        return "✗", "bad"
    if entry.notes or entry.orphan or entry.status in ("aborted", "interrupted"):
        return "!", "warn"
    return " ", "dim"


def verdict_text(entry: SessionEntry) -> str | None:
    """The verdict as one line (kind, [callId], message), None without one: `ls` prints it under the row."""
    if not entry.verdict_kind:
        return None
    msg = f" {entry.verdict_message}" if entry.verdict_message else ""
    call = f" [{entry.verdict_call_id}]" if entry.verdict_call_id else ""
    return f"verdict: {entry.verdict_kind}{call}{msg}"


def layout_for(width: int) -> str:
    """Columns by width: "narrow" (< 100), "medium" (+ verdict, size), "wide" (>= 150: + preset, depth, modified)."""
    return "wide" if width >= 150 else "medium" if width >= 100 else "narrow"


def row_cells(entry: SessionEntry, depth: int, layout: str) -> list[tuple[str, str]]:
    """(text, class) cells of a session row; the id column (with the tree) comes last and is cut to fit."""
    mark, mark_cls = mark_of(entry)
    long = layout != "narrow"
    created = entry.created_at / 1000 if isinstance(entry.created_at, int) else None
    when = utc_minutes(created, year=long) if created is not None else "~" + utc_minutes(entry.mtime or None,
                                                                                          year=long)
    label, cls = status_of(entry)
    events = "" if entry.events is None else f"{entry.events:,}"
    tree = tree_marker(depth)
    cells = [(mark, mark_cls), (f"{when:<{16 if long else 11}} ", "time"), (f"{one_line(label, 11):<11} ", cls)]
    if long:
        verdict = one_line(entry.verdict_kind or "", 22)
        cells += [(f"{verdict:<22} ", "bad" if verdict else "dim"),
                  (f"{events:>7} ", "dim"), (f"{human_size(entry.size):>9} ", "dim")]
        if layout == "wide":
            cells += [(f"{one_line(entry.preset or '-', 10):<10} ", "dim"),
                      (f"{'-' if entry.delegation_depth is None else entry.delegation_depth:>2} ", "dim"),
                      (f"{utc_minutes(entry.mtime or None):<16} ", "time")]
    else:
        cells += [(f"{events:>6} ", "dim")]
    cells += [(tree, "tree"), (one_line(entry.display_id, 120), "id")]
    if long and entry.member:
        cells.append((f"  {one_line(entry.member, 80)}", "dim"))
    return cells


def head_text(layout: str) -> str:
    """The column titles, aligned with ``row_cells``."""
    if layout == "narrow":
        return " " + f"{'CREATED':<11} " + f"{'STATUS':<11} " + f"{'EVENTS':>6} " + "ID"
    out = (" " + f"{'CREATED (UTC)':<16} " + f"{'STATUS':<11} " + f"{'VERDICT':<22} " + f"{'EVENTS':>7} "
           + f"{'SIZE':>9} ")
    if layout == "wide":
        out += f"{'PRESET':<10} " + f"{'D':>2} " + f"{'MODIFIED (UTC)':<16} "
    return out + "ID"


def display_root(root: Path) -> str:
    """The root for the screen: ``~/…`` under the home directory."""
    try:
        home = Path.home()
        rel = Path(os.path.abspath(root)).relative_to(home)
        return one_line("~" if str(rel) == "." else f"~/{rel}", 200)
    except (ValueError, RuntimeError, KeyError):
        return one_line(str(root), 200)


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to the listing root when it is under it."""
    try:
        rel = Path(path).relative_to(root)
        return one_line(str(rel), 300)
    except ValueError:
        return one_line(str(path), 300)


def entry_details(entry: SessionEntry, root: Path) -> list[list[tuple[str, str]]]:
    """The detail lines for the selected session: label/value pairs (label class "dim")."""
    where = (display_path(entry.path, root) if not entry.member
             else f"{one_line(entry.path.name, 80)}!{one_line(entry.member, 120)}")
    label, _cls = status_of(entry)
    line1 = [("id ", "dim"), (one_line(entry.display_id, 80), "id"), ("  status ", "dim"),
             (label if entry.status != "unknown" else "reading…", "value")]
    if entry.verdict_kind:
        line1 += [("  verdict ", "dim"), (one_line(entry.verdict_kind, 40), "bad")]
        if entry.verdict_call_id:
            line1 += [(" " + one_line(entry.verdict_call_id, 60), "value")]
        if entry.verdict_message:
            line1 += [("  " + one_line(entry.verdict_message, 200), "dim")]
    line2 = [("cwd ", "dim"), (one_line(entry.cwd or "-", 120), "value"), ("  file ", "dim"), (where, "value")]
    line3 = [("created ", "dim"), (utc_minutes(entry.created_at / 1000) if isinstance(entry.created_at, int)
                                   else "?", "value"),
             ("  modified ", "dim"), (utc_minutes(entry.mtime or None), "value"),
             ("  size ", "dim"), (human_size(entry.size), "value"),
             ("  events ", "dim"), ("-" if entry.events is None else f"{entry.events:,}", "value"),
             ("  preset ", "dim"), (one_line(entry.preset or "-", 30), "value"),
             ("  depth ", "dim"), ("-" if entry.delegation_depth is None else str(entry.delegation_depth), "value")]
    if entry.parent_session:
        line3 += [("  parent ", "dim"), (one_line(entry.parent_session, 60), "value")]
    if entry.origin:
        line3 += [("  origin ", "dim"), (one_line(entry.origin, 20), "value")]
    if entry.seed_length is not None:
        line3 += [("  seedLength ", "dim"), (str(entry.seed_length), "value")]
    out = [line1, line2, line3]
    problems = []
    if entry.header_error:
        problems.append(f"header: {entry.header_error}")
    if entry.error and entry.error != entry.header_error:
        problems.append(entry.error)
    problems += entry.notes
    if entry.torn and entry.status != "torn":
        problems.append("torn tail: the last write batch is incomplete")
    if problems:
        out.append([("! ", "bad"), (one_line(" · ".join(problems), 400), "warn")])
    return out


def footer_notes(listing: Listing) -> list[str]:
    """Legacy flat files, temp leftovers and root problems: never listed as sessions."""
    root = listing.root
    out = [root_warning(listing.breaks_listing, root)] if listing.breaks_listing else []  # first: it hides the root
    if listing.legacy_flat:
        names = ", ".join(display_path(p, root) for p in listing.legacy_flat[:3])
        more = f" (+{len(listing.legacy_flat) - 3} more)" if len(listing.legacy_flat) > 3 else ""
        out.append(f"{len(listing.legacy_flat)} legacy flat file(s), not sessions (dsh rejects this layout): "
                   f"{names}{more}")
    if listing.ignored_tmp:
        names = ", ".join(display_path(p, root) for p in listing.ignored_tmp[:2])
        more = f" (+{len(listing.ignored_tmp) - 2} more)" if len(listing.ignored_tmp) > 2 else ""
        out.append(f"{len(listing.ignored_tmp)} *.tmp leftover(s) of interrupted writes ignored: {names}{more}")
    others = [p for p in listing.problems if "legacy flat" not in p]
    if others:
        out.append(f"problem: {others[0]}" + (f" (+{len(others) - 1} more)" if len(others) > 1 else ""))
    return [one_line(x, 600) for x in out]


def summary_line(listing: Listing, filled: int, pending: int, shown: int | None = None) -> str:
    n = len(listing.entries)
    projects = len({e.project_dir for e in listing.entries})
    text = f"{n:,} session{'s' if n != 1 else ''} in {projects} project{'s' if projects != 1 else ''}"
    if shown is not None:
        text += f" · {shown:,} match"
    if pending:
        text += f" · reading status {filled:,}/{filled + pending:,}"
    return text


def _has_log(path: str) -> bool:
    try:
        names = os.listdir(path)
    except OSError:
        return False
    return any(n in names for n in LOG_NAMES)


def root_has_sessions(root: Path) -> bool:
    """True when ``root`` (a root, a project or a session directory) holds at least one session log."""
    try:
        with os.scandir(root) as it:
            top = list(it)
    except OSError:
        return False
    names = {d.name for d in top}
    if any(n in names for n in LOG_NAMES):
        return True
    is_project = root.name == NO_CWD or (root.name.startswith("--") and root.name.endswith("--"))
    for d in top:
        try:
            if not d.is_dir():
                continue
        except OSError:
            continue
        if is_project:
            if _has_log(d.path):
                return True
        elif d.name == NO_CWD or (d.name.startswith("--") and d.name.endswith("--") and len(d.name) > 4):
            try:
                with os.scandir(d.path) as it:
                    if any(_has_log(s.path) for s in it if s.is_dir()):
                        return True
            except OSError:
                continue
    return False
