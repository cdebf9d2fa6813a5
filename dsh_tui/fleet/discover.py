"""Which sessions a scan reads: every session under the roots, as `ls` lists them (dsh's layout: a
root, a project or a session directory; an export ZIP and its `subagents/` children), plus the export
ZIPs lying at the top of a root directory and the log files lying outside dsh's layout (which dsh's
listing skips, and `ls` names as problems), each with the identity a re-scan compares (size,
modification time, inode). Model code: no DuckDB."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .rows import SessionRef


@dataclass(frozen=True, slots=True)
class Found:
    ref: SessionRef
    size: int
    mtime_ns: int
    inode: int

    @property
    def identity(self) -> list:
        return [self.size, self.mtime_ns, self.inode]


@dataclass(slots=True)
class Discovery:
    found: list[Found] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line each: a root or a folder that could not be read
    failed_roots: list[str] = field(default_factory=list)  # roots not listed: their earlier rows are kept


def discover(roots: list[str]) -> Discovery:
    from ..model.sessions.discovery import RootUnreadable, list_target
    from ..model.reading.exportzip import looks_like_zip
    out = Discovery()
    seen: set[str] = set()

    def add(ref: SessionRef) -> None:
        if ref.key in seen:
            return
        try:
            st = os.stat(ref.path)
        except OSError as exc:
            out.problems.append(f"{ref.key}: {exc.strerror or exc}")
            return
        seen.add(ref.key)
        out.found.append(Found(ref, st.st_size, st.st_mtime_ns, st.st_ino))

    for root in roots:
        path = Path(root)
        targets = [path]
        if path.is_dir():
            try:
                targets += sorted(p for p in path.iterdir() if p.suffix == ".zip" and p.is_file() and looks_like_zip(p))
            except OSError:
                pass  # list_target says why the root cannot be read
        elif path.is_file() and not looks_like_zip(path):
            add(SessionRef(os.path.abspath(path), None, path.parent.parent.name, ""))
            continue
        for target in targets:
            try:
                listing = list_target(target)
            except RootUnreadable as exc:
                out.problems.append(str(exc))
                if target == path:
                    out.failed_roots.append(os.path.abspath(path))
                continue
            try:
                breakers = {b["path"]: b["reason"] for b in listing.breaks_listing}
                if listing.breaks_listing:  # said first, at the root: one session hides every other from dsh
                    from ..model.sessions.rootlisting import root_warning
                    out.problems.insert(0, root_warning(listing.breaks_listing))
                out.problems += listing.problems
                for e in listing.entries:
                    add(SessionRef(os.path.abspath(e.path), e.member, e.project_dir or (e.path.name if e.member else ""),
                                   e.project_display or "", breakers.get(str(e.path))))
                for flat in listing.legacy_flat:  # logs outside dsh's layout (dsh itself skips them): read all the same
                    add(SessionRef(os.path.abspath(flat), None, flat.parent.name, ""))
            finally:
                listing.close()
    return out
