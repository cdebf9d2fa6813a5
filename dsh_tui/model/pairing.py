"""Pair calls with their outcomes, replaying dsh's crash-repair bookkeeping.

tool/call <-> tool/result by callId (the result's id is message.source.callId),
command/run <-> command/done by commandId, approval/asked <-> approval/decided
by id. The turn/step state machine is dsh's `interruptedTurnClosers`
(repair.ts): tool-call blocks of an assistant/message become pending, a
tool/call records its seq, a tool/result clears it, step/end and turn/start
clear the pending set. What is still pending in an open turn at the end is
exactly what dsh would close as TOOL_OUTCOME_UNKNOWN / TOOL_NOT_STARTED.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from .facts import Fact

REPAIR_CODES = ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN")


@dataclass
class Pair:
    kind: str  # "tool" | "command" | "approval"
    key: str  # callId / commandId / approval id
    name: str | None = None
    ask: int | None = None  # tool: assistant/message index holding the tool-call block
    open: int | None = None  # tool/call, command/run, approval/asked index
    close: int | None = None  # tool/result, command/done, approval/decided index
    status: str = "open"  # paired | error | TOOL_NOT_STARTED | TOOL_OUTCOME_UNKNOWN | open | undecided | rejected ...
    code: str | None = None
    turn: Any = None
    step: Any = None
    detail: str = ""  # args preview / outcome / command text
    result: str = ""  # result preview
    repaired: bool = False  # the closing result was written by dsh's crash repair
    seqs: dict = field(default_factory=dict)  # role -> seq

    def __reduce__(self) -> tuple:
        """Pickled as its field values: the index cache holds one per call, and these load ~3x
        faster than Python's default (an attribute dict per object)."""
        return (Pair, tuple(map(self.__dict__.__getitem__, PAIR_FIELDS)))

    @property
    def anchor(self) -> int:
        """The newest event of the pair: where a backward walk meets it."""
        return _span(self)[0]

    @property
    def first(self) -> int:
        return _span(self)[1]


PAIR_FIELDS = tuple(f.name for f in fields(Pair))


@dataclass
class TurnState:
    open_turn: Any = None
    open_turn_index: int | None = None
    open_step: Any = None
    open_step_index: int | None = None
    pending: dict[str, Pair] = field(default_factory=dict)  # callId -> pair, as in repair.ts


@dataclass
class Pairing:
    tools: dict[str, Pair] = field(default_factory=dict)
    commands: dict[str, Pair] = field(default_factory=dict)
    approvals: dict[str, Pair] = field(default_factory=dict)
    state: TurnState = field(default_factory=TurnState)
    interrupted: list[Pair] = field(default_factory=list)  # what dsh's repair would close
    tool_set: dict[str, Any] = field(default_factory=dict)  # callId -> latest request/header tools
    orphan_results: list[Fact] = field(default_factory=list)
    latest_tools: Any = None  # the tools of the request/header fed last (for the next tool/call)

    def all_pairs(self) -> list[Pair]:
        """Newest first: walking backward from the end of the log."""
        pairs = [*self.tools.values(), *self.commands.values(), *self.approvals.values()]
        return sorted(pairs, key=_span, reverse=True)


def _span(p: Pair) -> tuple[int, int]:
    """(anchor, first): the newest and the oldest event of the pair (keys a sort of every pair)."""
    xs = [i for i in (p.ask, p.open, p.close) if i is not None]
    return max(xs), min(xs)


def _key(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _tool_pair(tools: dict[str, Pair], cid: str, name: Any, turn: Any, step: Any) -> Pair:
    """The pair for ``cid``, created on first sight (from a tool-call block or a tool/call)."""
    p = tools.get(cid)
    if p is None:
        p = tools[cid] = Pair("tool", cid, name, turn=turn, step=step)
    return p


def feed_facts(out: Pairing, facts: list[Fact]) -> None:
    """Pair ``facts`` after those already fed (a log's head can be paired while its tail is read).
    The data layouts are in facts.py."""
    st = out.state
    tools = out.tools
    latest_tools: Any = out.latest_tools
    for f in facts:
        t, index, seq, d = f
        if t == "turn/start":
            st.open_turn, st.open_turn_index = d[0], index
            st.open_step = st.open_step_index = None
            st.pending.clear()
        elif t == "turn/end":
            st.open_turn = st.open_turn_index = None
            st.open_step = st.open_step_index = None
        elif t == "step/start":
            st.open_step, st.open_step_index = d[1], index
        elif t == "step/end":
            st.open_step = st.open_step_index = None
            st.pending.clear()
        elif t == "assistant/message":
            turn, step, calls = d
            for call_id, name, args in calls:
                cid = _key(call_id)
                p = _tool_pair(tools, cid, name, turn, step)
                p.ask = index
                p.seqs["ask"] = seq
                p.detail = p.detail or args or ""
                st.pending[cid] = p
        elif t == "tool/call":
            turn, step, call_id, name, args = d
            cid = _key(call_id)
            p = _tool_pair(tools, cid, name, turn, step)
            p.open = index
            p.seqs["call"] = seq
            p.name = name or p.name
            p.detail = args or p.detail
            out.tool_set[cid] = latest_tools
        elif t == "tool/result":
            turn, step, call_id, is_error, err, text, replace = d
            if replace:
                continue  # a pruning rewrite of an earlier result, not an outcome
            cid = _key(call_id)
            p = tools.get(cid)
            if p is None:
                out.orphan_results.append(f)
                p = tools[cid] = Pair("tool", cid, None, turn=turn, step=step)
            p.close = index
            p.seqs["result"] = seq
            err = err or {}
            p.code = err.get("code") if isinstance(err.get("code"), str) else None
            p.result = text or ""
            if p.code in REPAIR_CODES:
                p.status, p.repaired = p.code, True
            elif p.code or is_error:
                p.status = "error"
            else:
                p.status = "paired"
            if p.open is None and p.code not in REPAIR_CODES:
                p.status = "result-without-call" if p.ask is None else p.status
            st.pending.pop(cid, None)
        elif t == "request/header":
            latest_tools = d[0]
        elif t in ("command/run", "command/done"):
            _command(out, f)
        elif t in ("approval/asked", "approval/decided"):
            _approval(out, f)
    out.latest_tools = latest_tools


def close_pairing(out: Pairing) -> Pairing:
    """At the end of the log: what is still pending is what dsh's repair would close."""
    st, tools = out.state, out.tools
    if st.open_turn_index is not None:
        for p in st.pending.values():  # assistant-message order, as repair.ts appends them
            p.status = "TOOL_OUTCOME_UNKNOWN" if p.open is not None else "TOOL_NOT_STARTED"
            out.interrupted.append(p)
    for p in tools.values():
        if p.status == "open":  # unpaired outside an open turn (the step closed without it)
            p.status = "TOOL_OUTCOME_UNKNOWN" if p.open is not None else "TOOL_NOT_STARTED"
    return out


def _command(out: Pairing, f: Fact) -> None:
    t, index, seq, d = f
    cid = _key(d.get("commandId"))
    p = out.commands.get(cid)
    if p is None:
        p = out.commands[cid] = Pair("command", cid, d.get("name"))
    if t == "command/run":
        p.open, p.name = index, d.get("name")
        p.seqs["run"] = seq
        p.detail = d.get("args") if isinstance(d.get("args"), str) else ""
        return
    p.close = index
    p.seqs["done"] = seq
    p.result = d.get("text") if isinstance(d.get("text"), str) else ""
    p.status = "paired" if d.get("kind") == "success" else "error"
    p.code = None if d.get("kind") == "success" else str(d.get("kind"))
    if p.open is None:
        p.status = "done-without-run"


def _approval(out: Pairing, f: Fact) -> None:
    t, index, seq, d = f
    aid = _key(d.get("id"))
    p = out.approvals.get(aid)
    if p is None:
        p = out.approvals[aid] = Pair("approval", aid, None, status="undecided")
    if t == "approval/asked":
        p.open, p.name = index, d.get("toolName")
        p.seqs["asked"] = seq
        p.detail = " ".join(str(x) for x in (d.get("callId"), d.get("reason")) if x)
        return
    p.close = index
    p.seqs["decided"] = seq
    outcome = d.get("outcome")
    p.result = str(outcome)
    p.status = "paired" if outcome == "allowed-once" else str(outcome)
    if p.open is None:
        p.status = "decided-without-ask"
