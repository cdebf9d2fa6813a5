"""HeaderPanel: file, decode, header fields, integrity badges and the verdict.

Built as ``Content`` from sanitised pieces (never markup), so log text such as
``[bold]`` or an escape sequence shows literally and harmlessly.
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widget import Widget

from ...model.presenting.report import created_iso
from ...model.presenting.summary import (decode_text, depth_text, field_text, plural, preset_text, runs_text, shown,
                                         turn_step)
from ...safety import one_line

LOUD_ERROR = "bold reverse $error"
LOUD_WARN = "bold reverse $warning"
OK = "bold $success"
DIM = "$text-muted"
KEY = "bold"


def _kv(key: str, value, width: int = 80) -> list:
    return [(f"{key} ", DIM), (one_line(str(value), width), KEY), "  "]


def short_id(value, max_chars: int = 19) -> str:
    """A sanitised id cut in the middle (``5e1d0c3a-…000000001``) when longer than ``max_chars``,
    so what follows it on a header line survives the cut at the panel width."""
    text = one_line(str(value), 400)
    if len(text) <= max_chars:
        return text
    tail = (max_chars - 1) // 2
    return text[:max_chars - 1 - tail] + "…" + text[-tail:]


CWD_LINE = 2  # header_lines' line holding the cwd (last, so the width cuts it first)
BADGES_LINE = 3  # header_lines' integrity badges: short, so the stranded calls' note fits after them


def header_lines(log, diag, path: Path) -> list[list]:
    """The panel's lines as lists of Content parts (each line is fitted to the width later)."""
    h = log.header
    created = (created_iso(log) or field_text(h.raw, "createdAt")).replace("+00:00", "Z").replace("T", " ")
    line1 = [(one_line(path.name, 100), "bold"), "  ", (decode_text(log), DIM), ("  · times UTC", DIM)]
    line2 = (_kv("v", field_text(h.raw, "version"), 10) + _kv("id", field_text(h.raw, "id"), 80)
             + _kv("preset", preset_text(log, diag), 40))
    line3: list = []
    if h.delegated:
        line3 += [(f" DELEGATED child session: depth {one_line(field_text(h.raw, 'delegationDepth'), 12)}, parent "
                   f"{one_line(field_text(h.raw, 'parentSession'), 80)} ", LOUD_WARN), "  "]
    elif h.forked:
        seed = f" at seq {h.seed_length:,}" if h.seed_length is not None else ""
        line3 += [(f" FORK of {one_line(field_text(h.raw, 'parentSession'), 80)}{seed} ", KEY), "  "]
    resumed = runs_text(log, diag)
    if resumed:
        line3 += [(f" {resumed} ", KEY), "  "]
    line3 += _kv("created", created, 40)
    if not h.delegated:
        line3 += _kv("depth", depth_text(h), 30)
    line3 += _kv("cwd", field_text(h.raw, "cwd"), 200)
    return [line1, line2, line3, resume_badge(diag) + integrity_badges(log), verdict_parts(diag, len(log), log.accepted)]


CUT_HINT = " H"  # ends a header line cut at the width: H shows the full header (screens/header.py)


def fit(lines: list[list], width: int, hinted: int | None = None) -> Content:
    """The lines, each cut to ``width`` with …; line ``hinted``, when cut, ends with CUT_HINT."""
    out = [Content.assemble(*parts).rstrip() for parts in lines if parts]
    if width > 0:
        out = [_cut(c, width, k == hinted) for k, c in enumerate(out)]
    return Content("\n").join(out)


def _cut(line: Content, width: int, hint: bool) -> Content:
    if not hint or line.cell_length <= width or width <= len(CUT_HINT) + 1:
        return line.truncate(width, ellipsis=True)
    return Content.assemble(line.truncate(width - len(CUT_HINT), ellipsis=True), (CUT_HINT, "bold reverse"))


def integrity_badges(log) -> list:
    raw, res = log.raw, log.res
    out: list = []
    if not log.accepted:
        rej = log.rejection
        why = "" if rej.code == "UNKNOWN_TYPE" else f": {one_line(rej.message, 90)}"  # its own badge says it
        out += [(f" UNVERIFIED: dsh rejects this log ({one_line(rej.code, 40)}{why}) ", LOUD_ERROR), " "]
    if res.projected:
        out += [(" PROJECTED fixture: seq by position, not verifiable ", LOUD_WARN), " "]
    elif res.gaps:
        g = res.gaps[0]
        out += [(f" SEQ GAPS: {len(res.gaps)} (first at line {g.line}: expected {g.expected}, found {g.found}) ",
                 LOUD_ERROR), " "]
    elif len(log):
        out += [(f"✓ seq 0..{log.seq_of(len(log) - 1)} contiguous", OK), "  "]
    if raw.torn is not None:
        if raw.torn.lost:
            out += [(f" TORN TAIL at byte {raw.torn.offset} ({raw.torn.unreadable_bytes} bytes unreadable) ",
                     LOUD_ERROR), " "]
        else:  # what the JSON's records_lost: false says: nothing lost, the last checksum cut
            out += [(f" TORN CHECKSUM at byte {raw.torn.offset}: every record read ", LOUD_WARN), " "]
    corrupt = log.corruption_count
    if corrupt:
        out += [(f" CORRUPT: {corrupt:,} record(s)/frame(s) unreadable ", LOUD_ERROR), " "]
    if res.unknown:
        names = ", ".join(f"{one_line(u.type, 40)} ×{u.count} ({'ignorable' if u.ignorable else 'REQUIRED'})"
                          for u in list(res.unknown.values())[:4])
        required = any(not u.ignorable for u in res.unknown.values())
        out += [(f" UNKNOWN TYPES: {names} ", LOUD_ERROR if required else LOUD_WARN), " "]
    if res.legacy:
        out += [(f"legacy shapes: {sum(res.legacy.values())}", DIM), "  "]
    return out


def resume_badge(diag) -> list:
    """What a resume deletes (model/diagnosing/resume.py), first on the badges line: dsh's repair cuts
    the log at its damage and deletes the recorded work after it, silently."""
    cut = getattr(diag, "resume", None)
    if not cut:
        return []
    seqs = cut.get("deleted_seqs")
    what = f"{cut['deleted_records']:,} RECORDS (seq {seqs[0]}-{seqs[1]})" if seqs else "THE LINES"
    results = len(cut.get("destroyed_results") or ())
    lost = f", {results} RESULT{'S' if results != 1 else ''}" if results else ""
    return [(f" A RESUME DELETES {what}{lost} after byte {cut['offset']:,}: copy the file first ", LOUD_ERROR), " "]


def stranded_text(diag) -> str | None:
    """``2 calls stranded: P shows them``: the calls dsh's crash repair would close, else the tool calls
    with no result; said in the header while the pairs pane is hidden (the narrow layout)."""
    pairing = getattr(diag, "pairing", None)
    n = len(pairing.interrupted) if pairing is not None else 0
    what = "stranded"
    if not n:
        n = sum(1 for p in getattr(diag, "pairs", ()) if p.kind == "tool" and p.status not in ("paired", "error"))
        what = "without a result"
    if not n:
        return None
    return f"{n:,} call{'s' if n != 1 else ''} {what}: P shows {'them' if n != 1 else 'it'}"


def where_text(seq, turn, step) -> str:
    """``seq 25 · turn 2/1``, leaving out what the finding does not know."""
    ts = turn_step(turn, step)
    return " · ".join(x for x in (f"seq {seq}" if seq is not None else "", f"turn {ts}" if ts else "") if x)


def verdict_parts(diag, n: int, accepted: bool = True) -> list:
    v = diag.verdict
    if v is None:
        if not n:
            return [("no events: the log holds only its header", KEY)]
        if not accepted:  # read past dsh's refusal (L / --lenient): no check mark over a log dsh will not load
            return [(f"no failure found in {plural(n, 'event')}, but dsh refuses this log: "
                     "a resume fails before any repair (UNVERIFIED, above)", LOUD_WARN)]
        return [(f"✓ No failure found in {plural(n, 'event')}", OK)]
    who = " ".join(one_line(shown(x), 60) for x in (v.call_id, v.name) if x)
    where = where_text(v.seq, v.turn, v.step)
    return [(f" VERDICT {one_line(v.kind, 40)} ", LOUD_ERROR), " ", (who, "bold"), f"  {where}  ",
            (one_line(v.message, 300), DIM)]


class HeaderPanel(Widget):
    """The top panel; ``show_loading`` until the log is read, then ``show_log``.

    Each line is cut to the panel width (with …) at render time, so the panel
    never wraps: at 80x24 it is five lines, whatever the log holds.
    """

    DEFAULT_CSS = "HeaderPanel { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[list] = []
        self._hinted: int | None = None  # the line holding the cwd: when cut, it ends with "… H"
        self.stranded: str | None = None  # stranded_text, shown while the pairs pane is hidden
        self.state: tuple[str, str] | None = None  # (text, style) before line 1: following / paused
        self.extra: list[list] = []  # after the verdict: the session's family, child failures

    def show_loading(self, path: Path, note: str = "reading…") -> None:
        self._lines = [[(one_line(path.name, 120), "bold"), "  ", (one_line(note, 200), DIM)]]
        self.state, self.extra, self._hinted, self.stranded = None, [], None, None
        self.refresh(layout=True)

    def show_provisional(self, path: Path, tv) -> None:
        """The tail verdict, marked provisional, until the full decode replaces the panel."""
        who = " ".join(one_line(shown(x), 60) for x in (tv.call_id, tv.name) if x)
        where = where_text(tv.seq, tv.turn, tv.step)
        verdict = [(f" VERDICT {one_line(tv.kind, 40)} ", LOUD_ERROR), " ", (who, "bold"), f"  {where}  ",
                   (f"provisional: read from the last {tv.tail_bytes // 1024:,} KiB; full decode running…", DIM)]
        self._lines = self._lines[:1] + [verdict]
        self.refresh(layout=True)

    def show_log(self, log, diag, path: Path) -> None:
        self._lines = header_lines(log, diag, path)
        self._hinted, self.stranded = CWD_LINE, stranded_text(diag)
        self.refresh(layout=True)

    def set_extra(self, state: tuple[str, str] | None, extra: list[list]) -> None:
        """The follow state and the family lines (built from sanitised parts by ``ui.navigation``)."""
        self.state, self.extra = state, extra
        self.refresh(layout=True)

    def plain(self) -> str:
        return self.render().plain

    def _pairs_hidden(self) -> bool:
        found = self.screen.query("#pairs") if self.is_attached else ()
        return bool(found) and not found.first().display

    def pairs_shown(self) -> None:
        """The pairs pane was shown or hidden (screens/explorer.py): the stranded calls' note follows."""
        if self.stranded:
            self.refresh()

    def get_content_height(self, container, viewport, width: int) -> int:
        return sum(1 for parts in self._lines + self.extra if parts)  # lines are cut, never wrapped

    def render(self) -> Content:
        lines = list(self._lines)
        if self.state is not None and lines:
            lines[0] = [self.state, " ", *lines[0]]
        if self.stranded and len(lines) > BADGES_LINE and self._pairs_hidden():
            lines[BADGES_LINE] = [*lines[BADGES_LINE], (self.stranded, "bold $warning")]
        return fit(lines + self.extra, self.content_region.width, self._hinted)
