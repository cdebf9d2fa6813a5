"""One side of a diff: what a run did, compact (turns, tool calls, retries, models, files).

Read from a log already opened and diagnosed the way `check` opens one (target.py): the calls
come from the diagnosis's pairing (so a call dsh's crash repair would close counts as it would),
their arguments and results are read back from the log by index, and only the few event types
the comparison needs are parsed (found by the scan's one-byte type column, not by a walk of every
event). What is kept per call is its identity and keys (hashes), not its text: the detail pane
reads the text back from the log when it is shown.

``lo``/``hi`` bound a run inside a log (`runs`): the runs of a session resumed by dsh are split
at its ``session/end-seed`` rows.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from typing import Any

from msgspec import Struct, field
import orjson

from ..context.select import indices_of
from ..diagnosing.pairing import REPAIR_CODES
from .reader import read_data

END_SEED = "session/end-seed"
WANTED = ("turn/start", "turn/end", "step/start", "user/message", "request/header", "llm/retry", END_SEED)
PROMPT_CHARS = 1000  # a prompt's text kept for similarity and display (its hash covers the whole): a bound per turn
PREVIEW_CHARS = 160
NO_RESULT = ("open", "unpaired", *REPAIR_CODES)  # no result durably written: the run stopped there


class CallDigest(Struct):
    index: int  # its tool/call (else the assistant/message that asked for it, else its result)
    seq: int
    turn: Any
    step: Any
    call_id: str
    name: str
    args_key: bytes  # hash of the normalized arguments (`normalized_arguments`)
    args_preview: str
    status: str  # the pairing's: paired | error | TOOL_NOT_STARTED | TOOL_OUTCOME_UNKNOWN | open | ...
    code: str | None  # tool/result error.code (or the repair's code)
    result_key: bytes  # hash of the result content and error flag (b"" without a result)
    result_index: int | None
    result_seq: int | None
    retries: int = 0  # llm/retry rows in its step
    model: str = ""  # provider/model of the request/header in force for its step
    shared: bool = False  # inherited through a fork seed (left unjudged)

    @property
    def outcome(self) -> str:
        """``ok``, ``error CODE`` or the status when no result was written."""
        if self.status in NO_RESULT:
            return self.status
        if self.status == "paired":
            return "ok"
        return f"error {self.code}" if self.code else "error"

    @property
    def stopped(self) -> bool:
        """No result was written (or only dsh's repair's, after a crash): the run stopped here."""
        return self.status in NO_RESULT or self.code in REPAIR_CODES


class TurnDigest(Struct):
    turn: Any
    index: int  # its turn/start
    seq: int
    prompt: str = ""  # the first user prompt of the turn (cut at PROMPT_CHARS)
    prompt_key: bytes = b""
    steps: int = 0
    retries: int = 0
    models: list = field(default_factory=list)  # provider/model of each request/header, distinct, in order
    end: str | None = None  # the turn/end reason kind; None while open
    end_index: int | None = None
    end_seq: int | None = None
    calls: list = field(default_factory=list)  # positions in RunDigest.calls
    shared: bool = False


class RunDigest(Struct):
    label: str  # how the side is named (its path, with the run for --runs)
    session_id: str | None
    parent: str | None
    seed_length: int | None
    lo: int
    hi: int
    turns: list[TurnDigest]
    calls: list[CallDigest]
    files: dict[str, str]  # path -> hash of what the run wrote to it ("" for read only)
    verdict: dict | None
    tokens: dict[str, int]
    wall_ms: int | None
    model_ms: int
    tool_ms: int
    verified: bool = True
    run: str = ""  # which run of the log ("" for the whole log): `diff FILE --runs`


def _hash(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def normalized_arguments(value: Any, *, indent: bool = False) -> str:
    """The arguments as compared: a JSON string parsed and written back with sorted keys and no
    whitespace (key order and spacing ignored); a string that is not JSON compared as it is; an
    already-parsed value written the same way. What orjson cannot read (past 1024 levels, an integer
    past 64 bits) is compared as its text. ``indent``: two-space indented, as the detail diff shows it."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | (orjson.OPT_INDENT_2 if indent else 0)).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


def _canon(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return repr(value).encode("utf-8", "replace")


def prompt_text(data: dict) -> str | None:
    """A user prompt's text, or None for a message that is not the user's (injected context,
    a compaction summary, a plugin's notice)."""
    src = data.get("source")
    if isinstance(src, dict) and src.get("kind") not in (None, "user"):
        return None
    content = data.get("content")
    if isinstance(content, str):
        return content
    parts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)] \
        if isinstance(content, list) else []
    return "\n".join(parts)


def _model(data: dict) -> str:
    header = data.get("header") if isinstance(data.get("header"), dict) else {}
    config = header.get("config") if isinstance(header.get("config"), dict) else {}
    provider, model = config.get("provider"), config.get("model")
    return f"{provider if isinstance(provider, str) else '?'}/{model if isinstance(model, str) else '?'}"


def _indices(log, lo: int, hi: int) -> list[tuple[int, str]]:
    """(index, type) of each event in [lo, hi) of a type in WANTED, in order: one pass over the scan's
    type column for all of them (`indices_of`), each one's type read back a byte an event."""
    at = indices_of(log, WANTED)
    at = at[bisect_left(at, lo):bisect_left(at, hi)]
    res = log.res
    return [(i, res.types[t] if t < 255 else log.type_of(i)) for i, t in zip(at, res.type_ids_of(at))]


def digest(log, diag, lo: int = 0, hi: int | None = None, *, label: str | None = None, run: str = "") -> RunDigest:
    """The run of ``log`` between event indexes ``lo`` and ``hi`` (default: the whole log): one
    forward pass over the events it needs (reader.py)."""
    hi = len(log) if hi is None else hi
    fields = log.header.fields()
    seed = fields.get("seedLength")
    seed = seed if isinstance(seed, int) and not isinstance(seed, bool) and seed > 0 else None
    parent = fields.get("parentSession") if isinstance(fields.get("parentSession"), str) else None
    walk = _Walk(log, seed)
    pairs = [p for p in diag.pairing.tools.values() if lo <= _at(p) < hi]
    roles: dict[int, list] = {}
    for i, t in _indices(log, lo, hi):
        roles.setdefault(i, []).append(t)
    for k, p in enumerate(pairs):
        if p.open is not None:
            roles.setdefault(p.open, []).append(("open", k))
        elif p.ask is not None:
            roles.setdefault(p.ask, []).append(("ask", k))
        if p.close is not None and lo <= p.close < hi:
            roles.setdefault(p.close, []).append(("close", k))
    args: dict[int, Any] = {}
    results: dict[int, tuple[bytes, Any]] = {}
    for i, data in read_data(log, roles):
        for role in roles[i]:
            if isinstance(role, str):
                walk.event(i, role, data)
            elif role[0] == "open":
                args[role[1]] = data.get("arguments")
            elif role[0] == "ask":
                args[role[1]] = _asked_arguments(data, pairs[role[1]].key)
            else:
                results[role[1]] = _result(data, walk.files)
    calls = [_call(log, p, args.get(k), results.get(k), walk, hi, seed) for k, p in enumerate(pairs)]
    calls.sort(key=lambda c: c.index)
    turns = walk.turns
    starts = [t.index for t in turns]
    for k, c in enumerate(calls):
        at = bisect_right(starts, c.index) - 1
        if at >= 0:
            turns[at].calls.append(k)
    whole = lo == 0 and hi == len(log)
    return RunDigest(label or str(log.path), log.session_id, parent, seed, lo, hi, turns, calls, walk.files,
                     _verdict(diag, lo, hi, whole), _tokens(diag, turns, whole), *_times(diag, lo, hi),
                     verified=bool(getattr(log, "verified", True)), run=run)


def _at(p) -> int:
    at = p.open if p.open is not None else p.ask if p.ask is not None else p.close
    return -1 if at is None else at


class _Walk:
    """The turns, steps, prompts, models and retries, fed the WANTED events in order."""

    def __init__(self, log, seed: int | None) -> None:
        self.log, self.seed = log, seed
        self.turns: list[TurnDigest] = []
        self.step_starts: list[int] = []  # event index of each step/start (and turn/start)
        self.step_state: list[list] = []  # [retries, model] per entry of step_starts
        self.model = ""
        self.pending: tuple[str, bytes] | None = None  # a prompt met outside a turn: the next turn's
        self.cur: TurnDigest | None = None
        self.files: dict[str, str] = {}

    def step_of(self, i: int) -> tuple[int, str]:
        k = bisect_right(self.step_starts, i) - 1
        return (self.step_state[k][0], self.step_state[k][1]) if k >= 0 else (0, "")

    def event(self, i: int, t: str, data: dict) -> None:
        log, cur = self.log, self.cur
        if t == "turn/start":
            cur = self.cur = TurnDigest(data.get("turn"), i, log.seq_of(i),
                                        shared=self.seed is not None and i < self.seed)
            if self.pending is not None:
                cur.prompt, cur.prompt_key = self.pending
                self.pending = None
            self.turns.append(cur)
            self._step(i)
        elif t == "step/start":
            if cur is not None:
                cur.steps += 1
            self._step(i)
        elif t == "user/message":
            text = prompt_text(data)
            if text is None:
                return
            kept = (text[:PROMPT_CHARS], _hash(text.encode("utf-8", "replace")))
            if cur is not None and cur.end is None:
                if not cur.prompt_key:
                    cur.prompt, cur.prompt_key = kept
            elif self.pending is None:
                self.pending = kept
        elif t == "request/header":
            self.model = _model(data)
            if self.step_state:
                self.step_state[-1][1] = self.model
            if cur is not None and self.model not in cur.models:
                cur.models.append(self.model)
        elif t == "llm/retry":
            if self.step_state:
                self.step_state[-1][0] += 1
            if cur is not None:
                cur.retries += 1
        elif t == "turn/end" and cur is not None and cur.end is None:
            reason = data.get("reason")
            kind = reason.get("kind") if isinstance(reason, dict) else None
            cur.end = kind if isinstance(kind, str) else "?"
            cur.end_index, cur.end_seq = i, log.seq_of(i)

    def _step(self, i: int) -> None:
        self.step_starts.append(i)
        self.step_state.append([0, self.model])


def _result(data: dict, files: dict[str, str]) -> tuple[bytes, Any]:
    msg = data.get("message") if isinstance(data.get("message"), dict) else {}
    content = msg.get("content")
    block = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    err = data.get("error") if isinstance(data.get("error"), dict) else {}
    code = err.get("code") if isinstance(err.get("code"), str) else None
    _note_files(files, data.get("meta"))
    return _hash(_canon([block.get("content"), bool(block.get("isError")), code])), code


def _call(log, p, args: Any, result: tuple[bytes, Any] | None, walk: _Walk, hi: int, seed: int | None) -> CallDigest:
    at = _at(p)
    norm = normalized_arguments("" if args is None else args)
    name = p.name if isinstance(p.name, str) else "?"
    result_key, code = result if result is not None else (b"", p.code)
    closed = p.close is not None and p.close < hi and result is not None
    retries, model = walk.step_of(at)
    return CallDigest(at, log.seq_of(at), p.turn, p.step, p.key if isinstance(p.key, str) else repr(p.key), name,
                      _hash(name.encode("utf-8", "replace") + b"\0" + norm.encode("utf-8", "replace")),
                      norm[:PREVIEW_CHARS], p.status, code or p.code, result_key,
                      p.close if closed else None, log.seq_of(p.close) if closed else None,
                      retries, model, shared=seed is not None and at < seed)


def _asked_arguments(data: dict, call_id: str) -> Any:
    msg = data.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    for b in content if isinstance(content, list) else ():
        if isinstance(b, dict) and b.get("type") == "tool-call" and b.get("id") == call_id:
            return b.get("arguments")
    return None


def _note_files(files: dict[str, str], meta: Any) -> None:
    """What a result's meta says was touched (dsh-tool-fs, DSH-FORMAT section 8): a write's or an
    edit's ``diffs`` (path, hunks), a read's ``path``."""
    if not isinstance(meta, dict):
        return
    diffs = meta.get("diffs")
    if isinstance(diffs, list):
        for h in diffs:
            if isinstance(h, dict) and isinstance(h.get("path"), str):
                before = files.get(h["path"], "")
                files[h["path"]] = _hash((before + "\0").encode() + _canon(h.get("newText"))).hex()
    elif isinstance(meta.get("path"), str) and "lines" in meta:
        files.setdefault(meta["path"], "")


def _verdict(diag, lo: int, hi: int, whole: bool) -> dict | None:
    """The log's verdict for the whole log; for a run, its newest failure."""
    f = diag.verdict if whole else next((x for x in diag.findings if x.index is not None and lo <= x.index < hi
                                         and x.severity == "failure"), None)
    if f is None:
        return None
    return {"kind": f.kind, "seq": f.seq, "callId": f.call_id, "name": f.name, "message": f.message}


def _tokens(diag, turns: list[TurnDigest], whole: bool) -> dict[str, int]:
    from ..diagnosing.usage import DSH_METER_KEYS
    from ..reading.tokens import TOKEN_KEYS
    if whole:
        return dict(diag.usage.dsh_total)
    out = dict.fromkeys(DSH_METER_KEYS, 0)
    per_turn = diag.usage.turns
    for t in turns:
        counts = per_turn.get(t.turn) if hasattr(per_turn, "get") else None
        if counts:
            for key, n in zip(TOKEN_KEYS, counts):
                if key in out:
                    out[key] += n
    return out


def _times(diag, lo: int, hi: int) -> tuple[int | None, int, int]:
    """Wall time (the turns' walls added up: idle time between turns is not the run's), and the
    model and tool parts of it (the timing pass's split)."""
    wall, model_ms, tool_ms, timed = 0, 0, 0, False
    try:
        turns = diag.timing.turns
    except Exception:  # noqa: BLE001 - no timing (a log without times): the summary says unknown
        return None, 0, 0
    for t in turns:
        if not lo <= t.index < hi:
            continue
        w = t.wall_ms
        if w is not None:
            wall += w
            timed = True
        split = t.split
        model_ms += split.get("model_ms", 0) or 0
        tool_ms += split.get("tool_ms", 0) or 0
    return (wall if timed else None), model_ms, tool_ms
