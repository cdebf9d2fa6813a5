"""Pair calls with their outcomes, replaying dsh's crash-repair bookkeeping.

tool/call <-> tool/result by callId (the result's id is message.source.callId),
command/run <-> command/done by commandId, approval/asked <-> approval/decided
by id. The turn/step state machine is dsh's `interruptedTurnClosers`
(packages/core/session/src/repair.ts), rule for rule: each tool-call block of
an assistant/message (re)registers its call as pending and not yet started; a
tool/call marks a call started only if it is pending when written; a
tool/result clears it; step/end, turn/start and turn/end clear the pending set.
What is still pending in an open turn at the end is exactly what dsh would
close as TOOL_OUTCOME_UNKNOWN (started) / TOOL_NOT_STARTED, and `closers`
lists the rows dsh's repair would append. A call left without a result
anywhere else is "unpaired": dsh never closes it.
"""

from __future__ import annotations

from functools import partial
from operator import eq
from typing import Any

import msgspec.structs
from msgspec import Struct, field

from ..reading.facts import Fact
from ..columns.interning import shared_name
from ..columns.pairtable import PairOrder, PairTable

REPAIR_CODES = ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN")


class Pair(Struct):  # one per call, command and approval: ~1M of them in a 10M-event log
    kind: str  # "tool" | "command" | "approval"
    key: str  # callId / commandId / approval id
    name: str | None = None
    ask: int | None = None  # tool: assistant/message index holding the tool-call block
    open: int | None = None  # tool/call, command/run, approval/asked index
    close: int | None = None  # tool/result, command/done, approval/decided index
    # paired | error | TOOL_NOT_STARTED | TOOL_OUTCOME_UNKNOWN | unpaired | result-without-call | open |
    # undecided | rejected ...
    status: str = "open"
    code: str | None = None
    turn: Any = None
    step: Any = None
    detail: str = ""  # args preview / outcome / command text
    result: str = ""  # the result preview's first line, with its line break (tool); outcome (approval)
    repaired: bool = False  # the closing result was written by dsh's crash repair
    # The seq of each role (`seqs`): three slots and the roles' first-set order, not a dict per pair
    # (~170 bytes less on each of a 10M-event log's 100k+ calls).
    seq_ask: int | None = None
    seq_open: int | None = None
    seq_close: int | None = None
    seq_order: int = 0  # the slots in the order they were first set (`_ORDER_SLOTS`: a small int, shared)
    # Why a tool call left dsh's pending set without a result ("step/end at seq 12"); for a
    # TOOL_NOT_STARTED call, why a durable tool/call did not count as its start.
    cleared: str | None = None
    earlier_call: int | None = None  # seq of a tool/call that did not count as this call's start
    for_call: str | None = None  # approval: the callId it was asked for (approval/asked's callId)

    # A tool call's offered tools: what the latest request/header listed when it was called (a tuple
    # of names when it listed them); None until its tool/call (NOT_IN_TOOL_SET reads it).
    offered: Any = None

    @property
    def seqs(self) -> dict[str, int]:
        """role -> seq, in the order the roles were first met ("ask", "call", "result" for a tool call,
        "run", "done" for a command, "asked", "decided" for an approval). Made on each read."""
        roles = _ROLES[self.kind]
        return {roles[k]: getattr(self, _SLOT[k]) for k in _ORDER_SLOTS.get(self.seq_order, "")}

    def set_seq(self, slot: str, seq: int) -> None:
        """Note ``seq`` for a role by its slot letter ("a": ask, "o": open, "c": close)."""
        setattr(self, _SLOT[slot], seq)
        self.seq_order = _NEXT_ORDER[self.seq_order, slot]

    @property
    def anchor(self) -> int:
        """The newest event of the pair: where a backward walk meets it."""
        return _span(self)[0]

    @property
    def first(self) -> int:
        return _span(self)[1]


class TurnState(Struct):
    open_turn: Any = None
    open_turn_index: int | None = None
    open_step: Any = None
    open_step_index: int | None = None
    pending: dict[str, Pair] = field(default_factory=dict)  # callId -> pair, in registration order
    started: dict[str, int] = field(default_factory=dict)  # callId -> seq of its tool/call (repair.ts callSeq)
    last_seq: int | None = None  # the seq of the last fact fed (closers follow the log's last event)


class Pairing(Struct):
    # By key, in the order first met (pairtable.py: read as dicts; the index cache holds their `plain`)
    tools: PairTable = field(default_factory=lambda: PairTable(Pair, "tool"))
    commands: PairTable = field(default_factory=lambda: PairTable(Pair, "command"))
    approvals: PairTable = field(default_factory=lambda: PairTable(Pair, "approval"))
    state: TurnState = field(default_factory=TurnState)
    interrupted: list[Pair] = field(default_factory=list)  # what dsh's repair would close
    closers: list[tuple] = field(default_factory=list)  # (type, code, callId): the rows repair would append
    orphan_results: list[Fact] = field(default_factory=list)
    latest_tools: Any = None  # the tools of the request/header fed last (for the next tool/call)

    def all_pairs(self) -> PairOrder:
        """Newest first: walking backward from the end of the log (each pair made as it is read)."""
        return PairOrder((self.tools, self.commands, self.approvals))


_SLOT = {"a": "seq_ask", "o": "seq_open", "c": "seq_close"}
_ROLES = {"tool": {"a": "ask", "o": "call", "c": "result"}, "command": {"o": "run", "c": "done"},
          "approval": {"o": "asked", "c": "decided"}}
# A pair's role order as a small int (one shared object, also when read back from the index cache):
# its slot letters as base-4 digits, a=1, o=2, c=3 ("aoc" is 1*16 + 2*4 + 3 = 27).
_ORDER_SLOTS = {0: ""}
for _o in ("a", "o", "c", "ao", "ac", "oa", "oc", "ca", "co", "aoc", "aco", "oac", "oca", "cao", "coa"):
    _ORDER_SLOTS[sum("aoc".index(ch) + 1 << 2 * (len(_o) - 1 - k) for k, ch in enumerate(_o))] = _o
_NEXT_ORDER = {(code, slot): code if slot in o else code * 4 + "aoc".index(slot) + 1
               for code, o in _ORDER_SLOTS.items() for slot in "aoc"}


def _span(p: Pair) -> tuple[int, int]:
    """(anchor, first): the newest and the oldest event of the pair (keys a sort of every pair)."""
    xs = [i for i in (p.ask, p.open, p.close) if i is not None]
    return max(xs), min(xs)


ABSENT_KEY = "(absent)"  # a callId, commandId or approval id the log left out


def _key(value: Any) -> str:
    """An id as a dict key: a string as it is, an absent one named so, anything else as its repr."""
    return value if isinstance(value, str) else ABSENT_KEY if value is None else repr(value)


def _tool_pair(tools: PairTable, cid: str, name: Any, turn: Any, step: Any) -> Pair:
    """The pair for ``cid`` to change, created on first sight (from a tool-call block or a tool/call)."""
    p = tools.live(cid)
    if p is None:
        p = tools.add(Pair("tool", cid, shared_name(name), turn=turn, step=step))
    return p


def _clear(st: TurnState, why: str) -> None:
    """dsh's repair forgets every pending call here; remember why, for the unpaired ones."""
    for p in st.pending.values():
        p.cleared = why
    st.pending.clear()
    st.started.clear()


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
            if st.pending:
                _clear(st, f"turn/start at seq {seq}")
        elif t == "turn/end":
            st.open_turn = st.open_turn_index = None
            st.open_step = st.open_step_index = None
            if st.pending:
                _clear(st, f"its turn ended (turn/end at seq {seq})")
        elif t == "step/start":
            st.open_step, st.open_step_index = d[1], index
        elif t == "step/end":
            st.open_step = st.open_step_index = None
            if st.pending:
                _clear(st, f"its step ended (step/end at seq {seq})")
        elif t == "assistant/message":
            turn, step, calls = d[0], d[1], d[2]
            for call_id, name, args in calls:
                cid = _key(call_id)
                p = _tool_pair(tools, cid, name, turn, step)
                if p.open is not None and p.close is None:  # named after (or again after) its tool/call:
                    p.earlier_call = p.seq_open  # dsh's repair no longer counts that as its start
                p.ask = index
                p.set_seq("a", seq)
                p.step = step
                p.detail = p.detail or args or ""
                st.pending[cid] = p  # a known key keeps its place, as in a JS Map
                st.started.pop(cid, None)
        elif t == "tool/call":
            turn, step, call_id, name, args = d[:5]  # then its time (facts.py)
            cid = _key(call_id)
            p = _tool_pair(tools, cid, name, turn, step)
            p.open = index
            p.set_seq("o", seq)
            p.name = shared_name(name) or p.name
            p.detail = args or p.detail
            p.offered = latest_tools
            if cid in st.pending:
                st.started[cid] = seq
        elif t == "tool/result":
            turn, step, call_id, is_error, err, text, replace = d[:7]
            cid = _key(call_id)
            st.pending.pop(cid, None)  # repair.ts deletes on any tool/result, a replacement too
            st.started.pop(cid, None)
            if replace:
                continue  # a pruning rewrite of an earlier result, not an outcome
            p = tools.live(cid)
            if p is None:
                out.orphan_results.append(f)
                p = tools.add(Pair("tool", cid, None, turn=turn, step=step))
            p.close = index
            p.set_seq("c", seq)
            err = err or {}
            p.code = err.get("code") if isinstance(err.get("code"), str) else None
            if p.code in REPAIR_CODES:
                p.status, p.repaired = p.code, True
            elif p.code or is_error:
                p.status = "error"
            else:
                p.status = "paired"
            if p.open is None and p.code not in REPAIR_CODES:
                p.status = "result-without-call" if p.ask is None else p.status
            # Its first line (with its line break: truthy as the whole) is all that is ever shown of it:
            # by an error's finding and advice, and by the pairs view where the call has no arguments to
            # show. A call that succeeded with arguments keeps none (a 10M-event log's 100k+ calls held
            # ~20 MiB of them to the end).
            p.result = "" if not text or p.status == "paired" and p.detail else text.splitlines(True)[0]
        elif t == "request/header":
            latest_tools = d[0]
        elif t in ("command/run", "command/done"):
            _command(out, f)
        elif t in ("approval/asked", "approval/decided"):
            _approval(out, f)
        st.last_seq = seq
    out.latest_tools = latest_tools
    _tidy(out)


def _tidy(out: Pairing, done: bool = False) -> None:
    """Write back the pairs changed, and pack the finished ones once a batch waits (pairtable.py). A
    pending call stays its object (`_clear` and `close_pairing` change it; the interrupted are pending)."""
    out.tools.tidy({id(p) for p in out.state.pending.values()}, done=done)
    out.commands.tidy(done=done)
    out.approvals.tidy(done=done)


def close_pairing(out: Pairing) -> Pairing:
    """At the end of the log: what is still pending in an open turn is what dsh's repair would
    close, in registration order, followed by step/end (if a step is open) and turn/end."""
    st, tools = out.state, out.tools
    if st.open_turn_index is not None:
        for cid, p in st.pending.items():  # assistant-message order, as repair.ts appends them
            p.status = "TOOL_OUTCOME_UNKNOWN" if cid in st.started else "TOOL_NOT_STARTED"
            out.interrupted.append(p)
            out.closers.append(("tool/result", p.status, cid))
        if st.open_step_index is not None:
            out.closers.append(("step/end", None, None))
        out.closers.append(("turn/end", "interrupted", None))
    for p in tools.where("status", partial(eq, "open")):  # no result, and dsh's repair will never close it
        cleared = p.cleared
        if cleared is None:
            cleared = ("no assistant/message asked for it (no tool-call block names it)" if p.ask is None
                       else "its turn is not open at the end of the log")
        tools.set_fields(p.key, status="unpaired", cleared=cleared)  # (rows already read: safe while iterating)
    _tidy(out, done=True)
    return out


def freeze_pairing(out: Pairing) -> None:
    """A finished pairing's tables key their rows by `FrozenKeys`, not dicts (pairtable.py): what a
    decoded log keeps while it is explored."""
    for table in (out.tools, out.commands, out.approvals):
        table.freeze()


def _command(out: Pairing, f: Fact) -> None:
    t, index, seq, d = f
    cid = _key(d.get("commandId"))
    p = out.commands.live(cid)
    if p is None:
        p = out.commands.add(Pair("command", cid, d.get("name")))
    if t == "command/run":
        p.open, p.name = index, d.get("name")
        p.set_seq("o", seq)
        p.detail = d.get("args") if isinstance(d.get("args"), str) else ""
        return
    p.close = index
    p.set_seq("c", seq)
    p.result = d.get("text") if isinstance(d.get("text"), str) else ""
    p.status = "paired" if d.get("kind") == "success" else "error"
    p.code = None if d.get("kind") == "success" else str(d.get("kind"))
    if p.open is None:
        p.status = "done-without-run"


def _approval(out: Pairing, f: Fact) -> None:
    t, index, seq, d = f
    aid = _key(d.get("id"))
    p = out.approvals.live(aid)
    if p is None:
        p = out.approvals.add(Pair("approval", aid, None, status="undecided"))
    if t == "approval/asked":
        p.open, p.name = index, d.get("toolName")
        p.set_seq("o", seq)
        call = d.get("callId")
        p.for_call = call if isinstance(call, str) else None
        p.detail = " ".join(x if isinstance(x, str) else repr(x) for x in (d.get("callId"), d.get("reason")) if x)
        return
    p.close = index
    p.set_seq("c", seq)
    outcome = d.get("outcome")
    p.result = outcome if isinstance(outcome, str) else "outcome absent" if outcome is None else repr(outcome)
    p.status = "paired" if outcome == "allowed-once" else p.result
    if p.open is None:
        p.status = "decided-without-ask"


# -- the index cache's form (open.py's cache_payload / from_payload) --------------------------------------
_TABLES = (("tools", "tool"), ("commands", "command"), ("approvals", "approval"))


def pairing_plain(pairing: Pairing) -> Pairing:
    """A copy whose tables are their plain form (pairtable.py); the pairs the state and the interrupted
    list hold stay objects (the codec keeps each one object, in both places)."""
    return msgspec.structs.replace(pairing, **{name: getattr(pairing, name).plain() for name, _kind in _TABLES})


def pairing_from_plain(pairing: Any) -> None:
    """`pairing_plain`'s tables back, in place, each pending or interrupted call its row's object as in a
    fresh diagnosis. ValueError if it is not one (a cache entry is checked, not trusted)."""
    if not (type(pairing) is Pairing and type(pairing.state) is TurnState and type(pairing.interrupted) is list
            and type(pairing.state.pending) is dict):
        raise ValueError("not a pairing")
    for name, kind in _TABLES:
        setattr(pairing, name, PairTable.from_plain(Pair, kind, getattr(pairing, name)))
    for p in (*pairing.state.pending.values(), *pairing.interrupted):
        if type(p) is not Pair or p.kind != "tool" or not pairing.tools.adopt(p):
            raise ValueError("a pending call not in the table")
