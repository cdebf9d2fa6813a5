"""Would dsh load this log? Its load-time checks beyond the header, rule for rule.

dsh's load (`packages/session/session-persistence/src/coordinator.ts` prepareCore, then
`Session.fromRestore` in `packages/core/session/src/index.ts` and `surface.ts`) refuses a
log in four stages, and says why at the first failure:

0. vocabulary it cannot replay: a `request/header-delta` event, a `mode/set` event, a
   `request/header` with reason `fallback` (each searched over the whole log, in that order);
1. a legacy shape it cannot upgrade (a pre-react-loop `turn/start`, `turn/end` or
   `steering/message` of the wrong shape), at the first such event;
2. an event type it does not know, not marked `ignorable: true`;
3. the restore: per event in order, the envelope (exact keys, safe-integer seq and time,
   data present, ignorable only `true`), the request header and message shapes, and the
   ordered surface (surfaceOp present exactly on surface types, sourceEventSeqs, and a
   `replace` whose range is in the surface and which names every node it shadows).

The scan calls the per-event checks and keeps the first problem of each stage
(`Refusals`); `surface_problem` folds the surface facts afterwards. Stdlib only.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from .vocabulary import MAX_SAFE, SURFACE_TYPES

ENVELOPE_KEYS = frozenset({"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs", "ignorable"})
VOCABULARY, LEGACY, UNKNOWN, RESTORE = range(4)
# Stage 0 looks for each refused shape over the whole log, in this order.
REFUSED_SHAPES = ("request/header-delta", "mode/set", "request/header fallback")


class Problem(Struct):
    stage: int
    order: int  # within a stage: REFUSED_SHAPES' position in stage 0, else 0
    index: int  # event index (the first in log order wins)
    seq: int | None
    code: str
    message: str

    def key(self) -> tuple[int, int, int]:
        return (self.stage, self.order, self.index)


class Refusals(Struct):
    """The first problem of each (stage, order): merged by index, so parts of a log read apart agree."""
    first: dict[tuple[int, int], Problem] = field(default_factory=dict)

    def note(self, p: Problem) -> None:
        held = self.first.get((p.stage, p.order))
        if held is None or p.index < held.index:
            self.first[(p.stage, p.order)] = p

    def merge(self, other: Refusals) -> None:
        for p in other.first.values():
            self.note(p)

    def decisive(self) -> Problem | None:
        """What dsh would say: the first problem of the earliest stage."""
        return min(self.first.values(), key=Problem.key, default=None)


def _safe_int(v: Any) -> bool:
    """JS Number.isSafeInteger: 3.0 passes (JSON has one number type), True does not."""
    if type(v) is int:
        return -MAX_SAFE <= v <= MAX_SAFE
    return type(v) is float and v.is_integer() and -MAX_SAFE <= v <= MAX_SAFE


_INT = {int}


def _seq_ok(v: Any) -> bool:
    return _safe_int(v) and v >= 0


def vocabulary_order(etype: str, data: Any) -> int | None:
    """Stage 0: which refused vocabulary this event is (its REFUSED_SHAPES position), else None."""
    if etype == "request/header-delta":
        return 0
    if etype == "mode/set":
        return 1
    if etype == "request/header" and isinstance(data, dict) and data.get("reason") == "fallback":
        return 2
    return None


def vocabulary_message(order: int, seq: Any) -> str:
    what = ("legacy request/header-delta event", "legacy mode/set event",
            'legacy request/header reason "fallback"')[order]
    return f"contains unsupported {what} at seq {seq}"


def _only_keys(d: dict, required: tuple, optional: tuple = ()) -> bool:
    allowed = set(required) | set(optional)
    return all(k in allowed for k in d) and all(k in d for k in required)


def legacy_problem(etype: str, data: Any) -> str | None:
    """Stage 1: a pre-react-loop shape dsh's coordinator refuses to upgrade (migrateLegacy*)."""
    if not isinstance(data, dict):
        return "malformed pre-react-loop steering/message" if etype == "steering/message" else None
    if etype == "turn/start":
        if "trigger" not in data:
            return None
        trig = data["trigger"]
        if (not _safe_int(data.get("turn")) or data["turn"] < 1 or not _only_keys(data, ("turn", "trigger"))
                or not isinstance(trig, dict) or not isinstance(trig.get("kind"), str) or not trig["kind"]):
            return "malformed pre-react-loop turn/start"
        return None
    if etype == "turn/end":
        return _turn_end_problem(data)
    if etype == "steering/message":
        if isinstance(data.get("message"), dict) and _safe_int(data.get("turn")) and _only_keys(data, ("turn", "message")):
            return None
        if not _safe_int(data.get("turn")) or not _only_keys(data, ("turn", "content", "source")):
            return "malformed pre-react-loop steering/message"
    return None


def _turn_end_problem(data: dict) -> str | None:
    bad = "malformed pre-react-loop turn/end"
    reason = data.get("reason")
    if (not _safe_int(data.get("turn")) or data["turn"] < 1 or not _only_keys(data, ("turn", "reason"))
            or not isinstance(reason, dict) or not isinstance(reason.get("kind"), str)):
        return bad
    kind = reason["kind"]
    if kind in ("completed", "blocked", "max-tokens", "interrupted", "disposed"):
        return None if _only_keys(reason, ("kind",)) else bad
    if kind == "aborted":
        return None if "reason" in reason or _only_keys(reason, ("kind",)) else bad
    if kind == "error":
        if "error" in reason:
            return None
        if not _safe_int(reason.get("step")) or reason["step"] < 0:
            return bad
        failure = reason.get("failure")
        if isinstance(failure, dict) and _only_keys(reason, ("kind", "step", "failure")):
            if (_only_keys(failure, ("message", "code"), ("status", "providerRetryAfterMs", "requestId"))
                    and isinstance(failure["message"], str) and isinstance(failure["code"], str)
                    and (failure.get("status") is None or type(failure.get("status")) in (int, float))
                    and (failure.get("providerRetryAfterMs") is None
                         or type(failure.get("providerRetryAfterMs")) in (int, float))
                    and (failure.get("requestId") is None or isinstance(failure.get("requestId"), str))):
                return None
        required = ("kind", "step", "message") + (("code",) if "code" in reason else ())
        if (not _only_keys(reason, required) or not isinstance(reason.get("message"), str)
                or ("code" in reason and not isinstance(reason["code"], str))):
            return bad
    return None


def envelope_problem(obj: dict) -> str | None:
    """Stage 3, the envelope and the event-local surface rules (assertSessionEventEnvelope,
    surfaceOpOf, the local half of assertProvenance). ``obj`` is the logical event as stored."""
    return None if envelope_plain(obj) else envelope_rules(obj)


def envelope_plain(obj: dict) -> bool:
    """True for the shape dsh writes, proven in a few C-level steps (False: not proven, the full rules
    decide). A surface event names the run of chunks it was made of: consecutive seqs, so one compare
    with a range and a count of the exact ints stand for the per-value, duplicate and order checks."""
    seq, time = obj.get("seq"), obj.get("time")
    if not (type(seq) is int and type(time) is int and 0 <= seq <= MAX_SAFE and -MAX_SAFE <= time <= MAX_SAFE
            and "data" in obj and "ignorable" not in obj and ENVELOPE_KEYS.issuperset(obj)):
        return False
    etype = obj.get("type")
    if etype not in SURFACE_TYPES:
        return (type(etype) is str and etype != "request/header-delta" and "surfaceOp" not in obj
                and "sourceEventSeqs" not in obj)
    if obj.get("surfaceOp") != "append":
        return False
    sources = obj.get("sourceEventSeqs", ())
    if sources == ():
        return True  # none (an absent key): nothing to check
    if type(sources) is not list or not sources:
        return False
    first, n = sources[0], len(sources)
    if type(first) is not int or first < 2 or first + n > seq or sources[-1] != first + n - 1:
        return False  # (a run from seq 0 or 1 is left to the rules: True == 1)
    # Ascending without a repeat, its ends n - 1 apart: the run first..first + n - 1. Each an exact
    # int: a float makes the sum a float, anything else but a bool makes it raise, and a bool is
    # not past 1. C loops that make no int objects (list(range(...)) and a map of type: 88 -> 30 ms
    # over the 936k log's 850k seqs).
    try:
        return type(sum(sources)) is int and sources == sorted(sources) and len(set(sources)) == n
    except TypeError:  # a str, None, a list or an object among them
        return False


def envelope_rules(obj: dict) -> str | None:
    """envelope_problem, rule by rule (what the common shape's proof falls back to)."""
    if obj.get("type") == "request/header-delta":
        return "uses unsupported legacy request/header-delta format"
    if not ENVELOPE_KEYS.issuperset(obj):
        return "has an invalid event envelope (unknown key " + repr(sorted(set(obj) - ENVELOPE_KEYS)[0])[:80] + ")"
    if (not isinstance(obj.get("type"), str) or not _seq_ok(obj.get("seq")) or not _safe_int(obj.get("time"))
            or "data" not in obj or ("ignorable" in obj and obj["ignorable"] is not True)):
        return "has an invalid event envelope"
    etype = obj["type"]
    op, sources = obj.get("surfaceOp"), obj.get("sourceEventSeqs")
    if etype not in SURFACE_TYPES:
        if "surfaceOp" in obj:
            return f'"{etype}" is not surface-eligible and cannot carry surfaceOp'
        if "sourceEventSeqs" in obj:
            return f'"{etype}" is not surface-eligible and cannot carry sourceEventSeqs'
        return None
    if "surfaceOp" not in obj:
        return f'"{etype}" is surface-eligible and requires a surfaceOp marker'
    if op != "append":
        if not isinstance(op, dict):
            return f'"{etype}" carries an invalid surfaceOp'
        if len(op) != 3 or op.get("op") != "replace" or not _seq_ok(op.get("start")) or not _seq_ok(op.get("end")):
            return f'"{etype}" carries an invalid replace surfaceOp'
    if "sourceEventSeqs" in obj:
        if not isinstance(sources, list):
            return "sourceEventSeqs must be an array when present"
        if not sources and etype != "assistant/message":
            return "sourceEventSeqs must not be empty except on assistant/message"
        # An assistant/message names every chunk it was made of (~900k seqs in the 936k-event log):
        # a list of ints is checked by C loops (min, max), anything else one value at a time.
        if not (set(map(type, sources)) == _INT and 0 <= min(sources) and max(sources) <= MAX_SAFE
                or all(map(_seq_ok, sources))):
            return "sourceEventSeqs must densely contain non-negative safe integers"
        if len(set(sources)) != len(sources):
            return "sourceEventSeqs must not contain duplicates"
        seq = obj["seq"]
        if sources and max(sources) >= seq:
            return f"sourceEventSeqs must reference earlier events (seq {seq})"
    return None


def _provider_model(v: Any) -> bool:
    return (isinstance(v, dict) and isinstance(v.get("provider"), str) and bool(v["provider"])
            and isinstance(v.get("model"), str) and bool(v["model"]))


def shape_problem(etype: str, data: Any) -> str | None:
    """Stage 3, assertCurrentLlmShape: the request header's route and a message's identity, role,
    source and content (for a tool result: one tool-result block naming the call)."""
    record = data if isinstance(data, dict) else {}
    if etype == "request/header":
        header = record.get("header") if isinstance(record.get("header"), dict) else {}
        config = header.get("config")
        if not _provider_model(config):
            return "request/header lacks provider/model"
        effort = config.get("reasoningEffort")
        if effort is not None and (not isinstance(effort, str) or not effort):
            return "request/header has an invalid reasoningEffort"
        defaults = header.get("adapterDefaults")
        if defaults is not None and (not isinstance(defaults, dict)
                                     or any(k not in ("reasoningEffort", "maxTokens") for k in defaults)
                                     or any(v is not True for v in defaults.values())
                                     or (defaults.get("reasoningEffort") is True and "reasoningEffort" not in config)
                                     or (defaults.get("maxTokens") is True and "maxTokens" not in config)):
            return "request/header has invalid adapterDefaults"
        return None
    if etype not in SURFACE_TYPES:
        return None
    message = record if etype == "user/message" else record.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("id"), str) or not message["id"]:
        return f"{etype} lacks an identified message"
    role = "assistant" if etype == "assistant/message" else "user"
    if message.get("role") != role:
        return f'{etype} message must have role "{role}"'
    source = message.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("kind"), str) or not source["kind"]:
        return f"{etype} message has invalid source"
    content = message.get("content")
    if not isinstance(content, list):
        return f"{etype} message has invalid content"
    if etype == "assistant/message":
        return None if source["kind"] == "model" and _provider_model(source) else f"{etype} message must have model source"
    if etype == "tool/result":
        if source["kind"] != "tool" or not isinstance(source.get("callId"), str) or not source["callId"]:
            return f"{etype} message must have tool source"
        block = content[0] if content else None
        if (len(content) != 1 or not isinstance(block, dict) or block.get("type") != "tool-result"
                or not isinstance(block.get("content"), list)):
            return f"{etype} message must contain one tool-result block"
        if block.get("toolCallId") != source["callId"]:
            return f"{etype} message has mismatched tool call ids"
    return None


def fold_problem(seqs, replacements: list[tuple], rest) -> tuple[int, int, str] | None:
    """Fold the surface as dsh does (surface.ts foldSurface) and return (index, seq, problem) of the
    first replacement it refuses, else None.

    ``seqs``: the seq of every surface event in log order; ``replacements``: those that replace,
    each (its place in ``seqs``, index, seq, type, start, end, sourceEventSeqs); ``rest(seq)``: what a
    tool/result rewrite may not change (the event without its content; None when ``seq`` is not a
    tool/result), read only for a tool/result replacement."""
    nodes: list[int] = []
    done = 0
    for place, index, seq, etype, start, end, sources in replacements:
        nodes.extend(seqs[done:place])
        done = place + 1
        try:
            a = nodes.index(start)
        except ValueError:
            return index, seq, f"surface replace: start seq {start} not found in surface"
        try:
            b = nodes.index(end)
        except ValueError:
            return index, seq, f"surface replace: end seq {end} not found in surface"
        if a > b:
            return index, seq, f"surface replace: start seq {start} is after end seq {end}"
        shadowed = nodes[a:b + 1]
        named = set(sources)
        missing = [x for x in shadowed if x not in named]
        if missing:
            return index, seq, ("surface replace: sourceEventSeqs must include every shadowed surface node; "
                                f"missing {', '.join(map(str, missing[:10]))}")
        if etype == "tool/result":
            if len(shadowed) != 1:
                return index, seq, "tool/result surface replacement must rewrite exactly one current node"
            original = rest(shadowed[0])
            if original is None:
                return index, seq, "tool/result surface replacement must target a current tool/result"
            if original != rest(seq):
                return index, seq, "tool/result surface replacement may change only content"
        nodes[a:b + 1] = [seq]
    return None


def without_content(data: Any) -> Any:
    """A tool/result's data with its result block's content left out: what a rewrite keeps."""
    if not isinstance(data, dict) or not isinstance(data.get("message"), dict):
        return data
    message = data["message"]
    content = message.get("content")
    block = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else None
    blocks = [{**block, "content": None}] if block is not None else content
    return {**data, "message": {**message, "content": blocks}}
