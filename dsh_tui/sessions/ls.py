"""`dsh-tui ls [DIR] [--format text|json] [--no-status]`: list the sessions under a root.

Groups sessions by project directory, nests subagent/fork children under their
parents, and (unless --no-status) loads each log to show how it ended. DIR may
also be one project directory, one session directory or a web export ZIP (the
names a ZIP listing skips are listed under problems).
Exit 0; 2 on usage errors; 3 when DIR does not exist or cannot be read (also a ZIP
that is not a readable archive, e.g. a truncated download).
Textual-free; every string printed passes `dsh_tui.safety`.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..model.sessions.discovery import (Listing, RootUnreadable, SessionEntry, build_tree, fill_status,
                                       group_by_project, list_target, tree_marker, walk_tree)
from ..model.sessions.rootlisting import root_warning
from ..safety import clean, one_line
from ..units import human_size
from .browse import session_status, verdict_text
from .locate import sessions_root

SCHEMA = "dsh-tui/ls/1"
EXIT_OK, EXIT_USAGE, EXIT_UNREADABLE = 0, 2, 3
COLUMNS = ("CREATED", "ID", "STATUS", "EVENTS", "SIZE", "PRESET", "DEPTH", "CWD")
_WIDTH_CAP = {"ID": 56, "STATUS": 12, "PRESET": 16, "CWD": 120}


def ls_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dsh-tui ls", description=(
        "List dsh sessions: grouped by project, subagent children under their parents. "
        "DIR defaults to $DSH_HOME/sessions or ~/.dsh/sessions; it may also be a project or session "
        "directory, or a web export ZIP. Exit 0; 2: usage error; 3: DIR missing or unreadable "
        "(or a ZIP that is not a readable archive)."))
    p.add_argument("dir", nargs="?", help="session root (default: the dsh default root)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--no-status", action="store_true",
                   help="read headers only (fast); do not load each log to find how it ended")
    return p


def iso_ms(ms: int | None) -> str | None:
    if not isinstance(ms, int):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return None


def _row(entry: SessionEntry, level: int, with_status: bool) -> dict[str, str]:
    created = iso_ms(entry.created_at)
    if created is None:
        created = "?" if not entry.mtime else "~" + (iso_ms(int(entry.mtime * 1000)) or "?")
    marker = "  " + tree_marker(level) if level else ""
    depth = entry.delegation_depth
    return {
        "CREATED": created,
        "ID": marker + one_line(entry.display_id, _WIDTH_CAP["ID"]),
        "STATUS": one_line(session_status(entry), _WIDTH_CAP["STATUS"]),
        "EVENTS": "-" if entry.events is None or not with_status else f"{entry.events:,}",
        "SIZE": human_size(entry.size),
        "PRESET": one_line(entry.preset or "-", _WIDTH_CAP["PRESET"]),
        "DEPTH": "-" if depth is None else str(depth),
        "CWD": one_line(entry.cwd or "-", _WIDTH_CAP["CWD"]),
    }


def _details(entry: SessionEntry) -> list[str]:
    out = []
    if entry.header_error:
        out.append(f"! header: {entry.header_error}")
    if entry.error and entry.error != entry.header_error:
        out.append(f"! {entry.error}")
    verdict = verdict_text(entry)  # every verdict, as the browser and the JSON show it
    if verdict:
        out.append(verdict)
    if entry.member:
        out.append(f"member: {entry.member}")
    out.extend(f"note: {n}" for n in entry.notes)
    return [one_line(x, 300) for x in out]


def render_text(listing: Listing, with_status: bool) -> str:
    roots = build_tree(listing.entries)
    groups = group_by_project(roots)
    total = len(listing.entries)
    lines = [f"{total} session{'s' if total != 1 else ''} in {len(groups)} project"
             f"{'s' if len(groups) != 1 else ''} under {clean(str(listing.root))}"
             + ("" if with_status else " (headers only: --no-status)")]
    if listing.breaks_listing:  # said first: one session hides every other from dsh
        lines += ["! " + one_line(root_warning(listing.breaks_listing), 1000)]
        lines += [f"!   {one_line(b['path'], 400)}: {one_line(b['reason'], 300)}" for b in listing.breaks_listing[1:]]
    rows_by_group: list[tuple[str, list[tuple[dict, list[str]]]]] = []
    for _key, members in groups.items():
        first = members[0]
        title = first.project_display or "(not in a project directory)"
        if first.project_dir and first.project_dir != title:
            title += f"  [{first.project_dir}]"
        rows = [(_row(e, lvl, with_status), _details(e)) for e, lvl in walk_tree(members)]
        rows_by_group.append((one_line(title, 300), rows))
    widths = {c: len(c) for c in COLUMNS}
    for _title, rows in rows_by_group:
        for row, _d in rows:
            for c in COLUMNS:
                widths[c] = max(widths[c], len(row[c]))
    right = {"EVENTS", "SIZE", "DEPTH"}

    def fmt(row: dict) -> str:
        cells = [row[c].rjust(widths[c]) if c in right else row[c].ljust(widths[c]) for c in COLUMNS]
        return ("  " + "  ".join(cells)).rstrip()

    for title, rows in rows_by_group:
        lines += ["", title, fmt({c: c for c in COLUMNS})]
        for row, details in rows:
            lines.append(fmt(row))
            indent = " " * (2 + widths["CREATED"] + 2)
            lines.extend(indent + "  " + d for d in details)
    for label, items in (("legacy flat files (dsh rejects this layout)", listing.legacy_flat),
                         ("ignored temp files (interrupted writes, never valid logs)", listing.ignored_tmp),
                         ("problems", listing.problems)):
        if items:
            lines += ["", f"{label}:"] + [f"  {one_line(str(x), 400)}" for x in items]
    if not listing.entries:
        lines.append("no sessions found")
    return clean("\n".join(lines) + "\n")


def render_json(listing: Listing) -> dict:
    sessions = []
    for key_entries in group_by_project(build_tree(listing.entries)).values():
        for entry, level in walk_tree(key_entries):
            d = entry.as_dict()
            d["created"] = iso_ms(entry.created_at)
            d["tree_level"] = level
            d["shown_status"] = session_status(entry)  # what the text and the browser show
            sessions.append(d)
    return {"schema": SCHEMA, "root": str(listing.root), "sessions": sessions,
            "legacy_flat": [str(p) for p in listing.legacy_flat],
            "ignored_tmp": [str(p) for p in listing.ignored_tmp], "problems": list(listing.problems),
            "breaks_listing": listing.breaks_listing}


def main_ls(argv: list[str]) -> int:
    try:
        args = ls_parser().parse_args(argv)
    except SystemExit as exc:  # 2 on usage errors, 0 for --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    target, note = (Path(args.dir), None) if args.dir else sessions_root()  # as the browser and permalinks read DSH_HOME
    if note:
        print(f"dsh-tui: {note}", file=sys.stderr)
    try:
        listing = list_target(target)
    except RootUnreadable as exc:
        print(f"dsh-tui: {one_line(str(exc), 2000)}", file=sys.stderr)
        return EXIT_UNREADABLE
    except OSError as exc:
        print(f"dsh-tui: {one_line(f'{target}: {exc.strerror or exc}', 2000)}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        if not args.no_status:
            for entry in listing.entries:
                if entry.status == "unknown":
                    fill_status(entry, archive=listing.archive)
    finally:
        listing.close()
    if args.format == "json":
        # ensure_ascii: everything non-ASCII or control is \u-escaped, so the terminal sees plain ASCII
        sys.stdout.write(json.dumps(render_json(listing), indent=2, ensure_ascii=True, default=str) + "\n")
    else:
        sys.stdout.write(render_text(listing, not args.no_status))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main_ls(sys.argv[1:]))
