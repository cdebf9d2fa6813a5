"""The ten-minute pass as a checklist: each step's result from the model; Enter jumps to its event."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from .modal import Modal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...model.diagnosis import ADVICE
from ...model.report import created_iso
from ...model.summary import field_text, shown
from ...safety import one_line
from ..nocolor import colourless
from ...model.summary import decode_text, depth_text, plural, preset_text

GLYPH = {"ok": ("✓", "bold $success"), "fail": ("✗", "bold $error"), "warn": ("!", "bold $warning"),
         "info": ("i", "bold $accent")}


@dataclass
class Step:
    number: int
    title: str
    status: str  # ok | fail | warn | info
    lines: list[str] = field(default_factory=list)
    index: int | None = None  # the event the step concerns


def _last_bad_call(diag):
    for p in diag.pairs:  # newest first
        if p.kind == "tool" and p.status != "paired":
            return p
    return None


def ten_minute_pass(log, diag) -> list[Step]:
    h, raw, res = log.header, log.raw, log.res
    n = len(log)
    corrupt = raw.corruption + res.corruption
    s1 = Step(1, "Decoded: encoding, frames, header fields", "ok" if log.accepted and not corrupt else "fail",
              [decode_text(log),
               f"version {field_text(h.raw, 'version')}, id {field_text(h.raw, 'id')}, "
               f"createdAt {created_iso(log) or field_text(h.raw, 'createdAt')}",
               f"delegationDepth {depth_text(h)}, agentPreset {preset_text(log, diag)}"
               + (f", DELEGATED from {field_text(h.raw, 'parentSession')}" if h.delegated else "")], 0 if n else None)
    if h.rejection:
        s1.lines.append(f"REJECTED by dsh ({h.rejection.code}): {h.rejection.message}")
    s1.lines += [f"corruption: {c.message}" for c in corrupt[:3]]
    if res.projected:
        s2 = Step(2, "seq contiguous after expanding packed rows", "info",
                  ["projected fixture: no seq on disk, seq assigned by position (not verifiable)"])
    elif res.gaps:
        s2 = Step(2, "seq contiguous after expanding packed rows", "fail",
                  [f"{len(res.gaps)} gap(s)"] + [f"line {g.line}: expected {g.expected}, found {g.found}: {g.cause}"
                                                 for g in res.gaps[:3]], min(res.gaps[0].index, max(n - 1, 0)))
    elif not n:
        s2 = Step(2, "seq contiguous after expanding packed rows", "info",
                  ["no events: the log holds only its header"])
    else:
        s2 = Step(2, "seq contiguous after expanding packed rows", "ok",
                  [f"seq 0..{log.seq_of(n - 1)} contiguous ({plural(log.records, 'record')} → {plural(n, 'event')})"])
    if raw.torn is not None:
        s2.status = "fail" if s2.status == "fail" else "warn"
        s2.lines.append(f"torn tail at byte {raw.torn.offset}: {raw.torn.unreadable_bytes} bytes unreadable, "
                        "the last write batch was lost")
        s2.index = s2.index if s2.index is not None else (n - 1 if n else None)
    p = _last_bad_call(diag)
    if p is None:
        s3 = Step(3, "The last call without a result or with an error", "ok",
                  ["every tool call has a result and none failed"])
        s4 = Step(4, "Its classification", "ok", ["nothing to classify"])
    else:
        where = p.close if p.close is not None else p.open if p.open is not None else p.ask
        s3 = Step(3, "The last call without a result or with an error", "fail",
                  [f"{shown(p.key)} {shown(p.name)}: {p.status}"
                   + (f" ({p.code})" if p.code and p.code != p.status else ""),
                   " → ".join(f"{role} seq {seq}" for role, seq in p.seqs.items()),
                   f"arguments {shown(p.detail)}"], where)
        if p.status in ADVICE:
            advice = [p.status + (" (closed by dsh crash repair)" if p.repaired else ""), ADVICE[p.status]]
        elif p.status == "error":
            advice = [f"the tool ran and returned an error{': ' + p.code if p.code else ''}",
                      ((p.result or "").splitlines() or [""])[0]]
        else:
            advice = [p.status]
        s4 = Step(4, "Its classification", "fail", advice, where)
    outside = [f for f in diag.findings if f.kind == "NOT_IN_TOOL_SET"]
    if outside:
        s5 = Step(5, "Tool names not in this session's tool set", "warn",
                  [f"{shown(f.name)} (callId {shown(f.call_id)}, seq {shown(f.seq)})" for f in outside[:5]],
                  outside[0].index)
    elif not any(isinstance(t, tuple) for t in diag.pairing.tool_set.values()):
        s5 = Step(5, "Tool names not in this session's tool set", "info",
                  ["no request/header tool list before the calls: cannot check"])
    else:
        s5 = Step(5, "Tool names not in this session's tool set", "ok", ["every called tool is in the tool set"])
    v = diag.verdict
    cite = v if v is not None and v.call_id else None
    cid, name, seq, at = ((cite.call_id, cite.name, cite.seq, cite.index) if cite else
                          (p.key, p.name, p.seqs.get("call", p.seqs.get("ask")), s3.index) if p else
                          (None, None, v.seq if v else None, v.index if v else None))
    s6 = Step(6, "The lines to cite", "info" if cid or v else "ok",
              [f"callId:          {shown(cid)}", f"tool/name:       {shown(name)}",
               f"header version:  {field_text(h.raw, 'version')}", f"session id:      {field_text(h.raw, 'id')}",
               f"seq:             {shown(seq)}"] if cid or v
              else ["no failure to cite"], at)
    return [s1, s2, s3, s4, s5, s6]


def step_content(step: Step, no_color: bool = False) -> Content:
    glyph, style = GLYPH[step.status]
    if no_color:  # bold, in the highlight bar's colours when highlighted (ui/nocolor.py)
        style = colourless(style)
    parts: list = [(f" {glyph} ", style), (f"{step.number}. {step.title}", "bold")]
    if step.index is not None:
        parts.append(("   ⏎ jump", "$text-muted"))
    for line in step.lines:
        parts += ["\n", f"      {one_line(str(line), 240)}"]
    return Content.assemble(*parts)


class ChecklistScreen(Modal[int | None]):
    BINDINGS = [Binding("escape,q,t", "close", "Close", show=False)]

    def __init__(self, steps: list[Step]) -> None:
        super().__init__()
        self.steps = steps

    def compose(self) -> ComposeResult:
        options = OptionList(*(Option(step_content(s, self.app.no_color), id=f"step-{s.number}") for s in self.steps),
                             id="checklist")
        options.border_title = "the ten-minute pass"
        options.border_subtitle = "enter jumps to the event · esc closes"
        yield options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        step = self.steps[event.option_index]
        if step.index is not None:
            self.dismiss(step.index)

    def action_close(self) -> None:
        self.dismiss(None)
