"""One way in: what to open (`Target`: a log file, an export ZIP or one of its members) and how
(`OpenOptions`), decided once, and `open_target`, which opens it: from the index cache when fresh,
else decoded, diagnosed and (best effort) cached. `check`, `ls`, the explorer and the browser all
open a log through it, and so do the tests and benchmarks (open.py is its path for a file).
Textual-free.

A ZIP is recognised once, here: ``x.zip`` is its root session, ``x.zip!subagents/a/session.jsonl``
one member (read in memory, never unpacked; nothing to follow or cache). Anything else is a file.
"""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct

from ..columns.offsets import Offsets
from ..diagnosing.diagnosis import diagnose
from ..diagnosing.pairing import freeze_pairing
from ..reading.exportzip import ROOT_MEMBER, is_export_zip, load_zip_session, looks_like_zip
from .open import OpenOptions, open_file
from ..reading import session

__all__ = ["OpenOptions", "Target", "load_log", "open_target", "resolve"]


class Target(Struct, frozen=True):
    path: Path  # the log file, or the ZIP
    member: str | None = None  # a ZIP's member (ROOT_MEMBER for its root session); None for a file

    @property
    def is_zip(self) -> bool:
        return self.member is not None

    @property
    def name(self) -> Path:
        """How the model names it (`SessionLog.path`): the file, or ``<zip>!<member>``."""
        if self.member is None or self.member == ROOT_MEMBER:
            return self.path
        return Path(f"{os.fspath(self.path)}!{self.member}")


def resolve(target: Target | str | os.PathLike) -> Target:
    """What ``target`` names. ``x.zip!member`` is a member only where no file has that whole name
    and ``x.zip`` is an export ZIP; a file that starts like a ZIP is opened as one."""
    if isinstance(target, Target):
        return target
    text = os.fspath(target)
    if "!" in text and not os.path.exists(text):
        base, member = text.split("!", 1)
        if member and is_export_zip(base):
            return Target(Path(base), member)
    if looks_like_zip(text):
        return Target(Path(text), ROOT_MEMBER)
    return Target(Path(text))


def open_target(target: Target | str | os.PathLike, options: OpenOptions = OpenOptions()):
    """(SessionLog, Diagnosis) for ``target``. Raises LogUnreadable (and its LogRejected),
    Cancelled. A log dsh would refuse comes back with ``log.rejection`` set; callers refuse it
    unless ``options.lenient``."""
    target = resolve(target)
    if target.is_zip:
        if options.early_tail is not None:
            options.early_tail.close()
        log = load_zip_session(target.path, target.member, lenient=options.lenient, max_plain=options.max_plain,
                               cancel=options.cancel, progress=options.progress)
        log.followable = False
        return log, diagnose(log)
    return open_file(target.path, options)


def load_log(target: Target | str | os.PathLike, options: OpenOptions = OpenOptions()):
    """The SessionLog alone, not diagnosed and not cached (a follow's re-open, the browser's rows)."""
    target = resolve(target)
    if target.is_zip:
        log = load_zip_session(target.path, target.member, lenient=options.lenient, max_plain=options.max_plain,
                               cancel=options.cancel, progress=options.progress)
        log.followable = False
        return log
    return session.load_session(target.path, lenient=options.lenient, max_plain=options.max_plain, cancel=options.cancel,
                                progress=options.progress)


def keep_for_exploring(log, diag) -> None:
    """What a log held while it is explored keeps, once read: its pair tables keyed by arrays, not by
    a dict of call ids (`freeze_pairing`), its context records a byte a row for the values their rows
    share (`Columns.compact`), the timing's seqs one array with their event indexes where they are the
    same (`Timing.share_seqs`) and its call ids one buffer with the pairs' keys, its record starts ~2
    bytes each (`Offsets`). Not for `check`: it lets go of all at once."""
    freeze_pairing(diag.pairing)
    # Only a timing the read built: one from the index cache is rebuilt when first read (the timing
    # worker's, after the paint; ~0.2 s of the x11 file's), and comes back shared if its entry was.
    timing = diag.__dict__.get("timing")
    if timing is not None:
        timing.share_seqs()
        timing.share_call_ids(diag.pairing.tools.list)
    if log.res.context is not None:
        log.res.context.compact()
    if type(log.res.rec_start) is not Offsets:
        log.res.rec_start = Offsets(log.res.rec_start)
