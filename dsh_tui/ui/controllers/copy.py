"""CopyController: what leaves the explorer. Every copy key builds a `CopyRequest`, and all go one way:
a thread worker (group "copy") runs the layered copy (file, OSC 52, native clipboard: clipboard.py),
posts `Copied`, and the result is shown: the copy window (`ReportModal`), or a notice for a one-line
copy (Y, l). Only the bug report (y, m) is also written to a file; another copy only when it is too
large for the clipboard. Advice on OSC 52 shows only when the terminal gives no sign it takes it
(osc52sign.py). ``s`` saves the full event to a file (no clipboard).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.message import Message
from textual.worker import WorkerState

from ...clipboard import TMUX_HINT, copy_layered
from ...model.presenting.detail import event_maps
from ...model.presenting.report import bug_report_markdown, permalink, snippet
from ...model.presenting.summary import call_id_of, light_event
from ...safety import escape_json, one_line
from ..export import save_event_json
from ..screens.report import ReportModal
from .base import Controller
from .ports import CopyPort


@dataclass(frozen=True)
class CopyRequest:
    title: str  # the copy window's title
    text: str  # as built; masked (unless ``mask`` is False) and sanitised on the way out
    kind: str  # "snippet" | "markdown" | "permalink" | "raw" | "call-id" | "marked"
    stem: str  # the saved file's name starts with it
    mask: bool = True
    suffix: str = ".txt"
    window: bool = True  # the copy window shows the result; False: a notice (a one-line copy)
    save: bool = False  # also written to a file (the bug report); else only when too large for the clipboard


class Copied(Message):
    def __init__(self, request: CopyRequest, result: Any, advice: str | None = None) -> None:
        super().__init__()
        self.request, self.result = request, result
        self.advice = advice  # on making OSC 52 work; None when the terminal gives a sign it takes it


def finding_at(diag, index: int | None):
    """The finding shown at event ``index`` (failures first), or None."""
    if index is None or diag is None:
        return None
    found = event_maps(diag)[1].get(index, [])
    ranked = sorted(found, key=lambda f: {"failure": 0, "warning": 1}.get(f.severity, 2))
    return ranked[0] if ranked else None


class CopyController(Controller):
    port: CopyPort  # what it may reach of the explorer (controllers/ports.py)
    groups = ("copy",)

    _advice: tuple[str | None] | None = None  # osc52sign.advice, asked once (it may ask tmux)

    def reset(self) -> None:
        """A copy under way finishes (its window shows what was copied) when another session opens."""

    # -- the one way out -------------------------------------------------------------------------
    def copy(self, request: CopyRequest) -> None:
        if request.window:
            self.port.key_gate.expect_modal()  # the keys typed meanwhile are for its window (ui/keygate.py)
        self.run(partial(self._copy, request), "copy")

    def _copy(self, request: CopyRequest) -> None:  # in the worker's thread
        port = self.port
        result = copy_layered(request.text, osc52=self._osc52, stem=request.stem, use_native=port.native_clipboard,
                              mask=request.mask, suffix=request.suffix, save=request.save)
        if self._advice is None:
            from ...osc52sign import advice
            self._advice = (advice(),)
        port.post_message(Copied(request, result, self._advice[0]))

    def _osc52(self, text: str) -> None:
        self.port.call_from_thread(self.port.copy_to_clipboard, text)

    def copied(self, message: Copied) -> None:
        port, request, result = self.port, message.request, message.result
        if not port.is_open:
            return
        if not request.window:
            text = f"copied {request.title} {one_line(result.text, 120)}{' (OSC 52)' if result.osc52 else ''}"
            if result.path is not None:  # too large for the clipboard
                text += f"; saved to {one_line(str(result.path), 200)}"
            if message.advice:
                text += f"\n{message.advice}"
            port.notify(text, markup=False, severity="warning" if message.advice else "information")
            return
        from ...osc52sign import TMUX_ADVICE
        advice = TMUX_HINT if message.advice == TMUX_ADVICE else message.advice  # the window has room for it all
        port.push_screen(ReportModal(request.title, request.text, result, kind=request.kind, advice=advice,
                                     saved=request.save))
        port.key_gate.modal_done()

    def worker_changed(self, event) -> None:
        if event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
            self.port.key_gate.modal_done()  # its window will not come: the keys held for it go on
        if event.state == WorkerState.ERROR:
            self.port.notify_worker_error(event.worker)

    # -- the copy keys -----------------------------------------------------------------------------
    def report(self) -> None:
        """y: the masked bug report for the finding under the cursor, else the verdict."""
        port = self.port
        if port.log_ is None:
            return
        finding = finding_at(port.diag, port.current_index) or port.diag.verdict
        what = finding.kind if finding else "no failure"
        self.copy(CopyRequest(f"bug report: {what}", snippet(port.log_, port.diag, finding, mask=True), "snippet",
                              "bug-report", save=True))

    def report_markdown(self) -> None:
        """m (in the copy window): the same finding's report as markdown."""
        port = self.port
        if port.log_ is None:
            return
        finding = finding_at(port.diag, port.current_index) or port.diag.verdict
        what = finding.kind if finding else "no failure"
        self.copy(CopyRequest(f"markdown bug report: {what}", bug_report_markdown(port.log_, port.diag, finding),
                              "markdown", "bug-report", suffix=".md", save=True))

    def raw(self) -> None:
        """R: the event's record exactly as written, secrets NOT masked (on purpose: the window says so).

        As JSON it means exactly what the log holds; characters a terminal acts on are ``\\uXXXX``
        escapes in it (``escape_json``), so the file and the clipboard hold no raw control.
        """
        port = self.port
        cur = port.current_index
        if cur is None or port.log_ is None:
            return
        ev = light_event(port.log_, cur)
        text = escape_json(bytes(ev.raw).decode("utf-8", "replace").rstrip("\r\n"))
        what = "the packed row holding it" if ev.packed else "exactly as written"
        self.copy(CopyRequest(f"UNMASKED raw record of seq {ev.seq} ({what})", text, "raw", "raw-record-unmasked",
                              mask=False))

    def marked(self, indices: list[int]) -> None:
        """M: the raw records of the marked events, one a line, in log order, secrets masked.

        A packed row holding several marked events is copied once.
        """
        port = self.port
        if port.log_ is None or not indices:
            return
        lines, seen = [], set()
        for i in indices:
            ev = light_event(port.log_, i)
            if ev.record in seen:
                continue
            seen.add(ev.record)
            lines.append(escape_json(bytes(ev.raw).decode("utf-8", "replace").rstrip("\r\n")))
        n = len(indices)
        self.copy(CopyRequest(f"raw records of {n:,} marked event{'s' if n != 1 else ''} (masked)",
                              "\n".join(lines) + "\n", "marked", "marked-events"))

    def permalink(self) -> None:
        """l: ``<session-id>@<seq>`` of the event under the cursor."""
        port = self.port
        cur = port.current_index
        if cur is None or port.log_ is None:
            return
        link = permalink(port.log_, port.log_.seq_of(cur))
        self.copy(CopyRequest("permalink", link, "permalink", "permalink", window=False))

    def call_id(self) -> None:
        """Y: just the callId (of the finding, the pair or the event under the cursor, else the verdict's)."""
        port = self.port
        cur = port.current_index
        if cur is None:
            return
        f = finding_at(port.diag, cur)
        pairs = event_maps(port.diag)[0].get(cur)
        p = pairs[0] if pairs else None
        cid = (f.call_id if f else None) or (p.key if p and p.kind == "tool" else None) \
            or call_id_of(light_event(port.log_, cur)) or (port.diag.verdict.call_id if port.diag.verdict else None)
        if not cid:
            port.notify("no callId here", severity="warning", markup=False)
            return
        self.copy(CopyRequest("callId", one_line(cid, None), "call-id", "call-id", window=False))

    def header_line(self, text: str) -> None:
        """y in the full header (screens/header.py): the raw header line, as that screen shows it."""
        if text:
            self.copy(CopyRequest("the raw header line (secrets masked)", text, "header", "header-line"))

    # -- save --------------------------------------------------------------------------------------
    def save_event(self) -> None:
        """s: the full event, uncapped and NOT masked, to a file (export.py)."""
        port = self.port
        cur = port.current_index
        if cur is None:
            return
        try:
            path = save_event_json(port.log_, cur)
        except OSError as exc:
            port.notify(one_line(f"could not save: {exc}", 300), severity="error", markup=False)
            return
        port.notify(f"saved the full event, secrets NOT masked, to {one_line(str(path), 300)}", markup=False,
                    timeout=10)
