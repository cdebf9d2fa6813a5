"""EventBuilder: dsh session events with exact real shapes, contiguous seqs and batch cuts.

Shapes copied from logs written by the real dsh writer (dsh-logs/written, dsh-logs/large):
key order of every envelope and payload follows those bytes. A batch is cut wherever dsh
flushes (before a model request, before a tool body, at turn end) and whenever the current
batch reaches ``batch_limit`` events (the write window).
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PROVIDER = "deepseek-official"
MODEL = "deepseek-v4-flash"
_NO_META: Any = object()
_WORDS = re.compile(r"\s*\S+|\s+")


def split_text(text: str) -> list[str]:
    """Token-like deltas (leading whitespace kept): ``"I'll do it."`` -> ``["I'll", " do", " it."]``."""
    return _WORDS.findall(text) or [text]


def split_args(arguments: str, width: int = 6) -> list[str]:
    """Argument fragments of ``width`` characters, as the DeepSeek adapter streams them."""
    return [arguments[i:i + width] for i in range(0, len(arguments), width)] or [arguments]


@dataclass
class ToolCall:
    """One model tool call and what happened to it.

    ``output=None`` means no ``tool/result`` (crash after the call started); ``started=False``
    means not even a ``tool/call`` (the crash came first).
    """

    id: str
    name: str
    arguments: str
    output: str | None
    is_error: bool = False
    error: dict | None = None
    meta: Any = _NO_META
    started: bool = True
    approval: str | None = None
    approval_reason: str | None = None
    duration_ms: int = 4
    deltas: list[str] | None = None


@dataclass
class StepInfo:
    """Seqs of what one :meth:`EventBuilder.model_step` call wrote."""

    message_seq: int
    chunk_seqs: list[int]
    user_seq: int | None = None
    call_seqs: dict[str, int] = field(default_factory=dict)
    result_seqs: dict[str, int] = field(default_factory=dict)


def _deltas(value: str | Sequence[str] | None, split) -> list[str]:
    if value is None:
        return []
    return split(value) if isinstance(value, str) else list(value)


class EventBuilder:
    """Assigns ``seq`` (contiguous from 0) and ``time`` (deterministic ms) and groups batches."""

    def __init__(self, start_ms: int = 1_796_218_179_615, *, seed: int = 0, provider: str = PROVIDER,
                 model: str = MODEL, batch_limit: int | None = None,
                 dt_pattern: Sequence[int] = (0, 1, 0, 0, 2, 1, 0, 1, 0, 0, 3, 0, 1)) -> None:
        self.seq = 0
        self.time = start_ms
        self.provider, self.model = provider, model
        self.rng = random.Random(seed)
        self.batch_limit = batch_limit
        self._dts = list(dt_pattern)
        self._dti = 0
        self._batch: list[dict] = []
        self._ready: list[list[dict]] = []

    # -- clock, ids, batching ---------------------------------------------------------
    def tick(self, ms: int) -> None:
        self.time += ms

    def _dt(self) -> int:
        dts = self._dts
        i = self._dti
        self._dti = i + 1 if i + 1 < len(dts) else 0
        return dts[i]

    def new_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def cut(self) -> None:
        """End the current write batch (a ``session/flush`` checkpoint)."""
        if self._batch:
            self._ready.append(self._batch)
            self._batch = []

    def take(self) -> list[list[dict]]:
        """Completed batches so far (the open batch stays open)."""
        ready, self._ready = self._ready, []
        return ready

    def finish(self) -> list[list[dict]]:
        self.cut()
        return self.take()

    def emit(self, type_: str, data: Any, *, dt: int | None = None, source: list[int] | None = None,
             surface: bool = False) -> dict:
        """Append one event; ``dt`` ms are added to the clock first (default: the pattern)."""
        self.time += self._dt() if dt is None else dt
        event: dict[str, Any] = {"type": type_, "seq": self.seq, "time": self.time, "data": data}
        if source is not None:
            event["sourceEventSeqs"] = source
        if surface:
            event["surfaceOp"] = "append"
        self.seq += 1
        batch = self._batch
        batch.append(event)
        if self.batch_limit is not None and len(batch) >= self.batch_limit:
            self.cut()
        return event

    # -- simple events ----------------------------------------------------------------
    def turn_start(self, turn: int) -> dict:
        return self.emit("turn/start", {"turn": turn})

    def turn_end(self, turn: int, reason: str | dict = "completed") -> dict:
        r = {"kind": reason} if isinstance(reason, str) else reason
        event = self.emit("turn/end", {"turn": turn, "reason": r})
        self.cut()
        return event

    def step_start(self, turn: int, step: int) -> dict:
        return self.emit("step/start", {"turn": turn, "step": step})

    def step_end(self, turn: int, step: int) -> dict:
        return self.emit("step/end", {"turn": turn, "step": step})

    def user_message(self, text: str, *, id: str | None = None) -> dict:
        msg = {"content": [{"type": "text", "text": text}], "source": {"kind": "user"},
               "role": "user", "id": id or self.new_id()}
        return self.emit("user/message", msg, surface=True)

    def inbox_spliced(self, *, inserted: list[dict] | None = None, removed: int | None = None) -> dict:
        data: dict[str, Any] = {"target": "next-turn", "start": 0}
        if removed is not None:
            data["removedCount"] = removed
        data["inserted"] = inserted or []
        return self.emit("agent/inbox/spliced", data)

    def request_header(self, *, reason: str = "initial", system: str | None = None,
                       tools: list[dict] | None = None) -> dict:
        header: dict[str, Any] = {"config": {"provider": self.provider, "model": self.model}}
        if system is not None:
            header["system"] = system
        if tools is not None:
            header["tools"] = tools
        return self.emit("request/header", {"header": header, "reason": reason})

    def command(self, name: str, args: str | None, text: str, *, command_id: str,
                domain: Sequence[tuple[str, dict]] = (), kind: str = "success") -> tuple[dict, dict]:
        """``command/run``, the domain events it causes, ``command/done`` (outside turns)."""
        run: dict[str, Any] = {"commandId": command_id, "name": name}
        if args is not None:
            run["args"] = args
        run["source"] = {"kind": "user"}
        first = self.emit("command/run", run)
        for type_, data in domain:
            self.emit(type_, data)
        done = self.emit("command/done", {"commandId": command_id, "kind": kind, "text": text})
        return first, done

    def approval(self, approval_id: str, tool_name: str, outcome: str, *,
                 call_id: str | None = None, reason: str | None = None) -> tuple[dict, dict]:
        asked: dict[str, Any] = {"id": approval_id, "toolName": tool_name}
        if call_id is not None:
            asked["callId"] = call_id
        if reason is not None:
            asked["reason"] = reason
        a = self.emit("approval/asked", asked)
        d = self.emit("approval/decided", {"id": approval_id, "outcome": outcome}, dt=700)
        return a, d

    def retry(self, turn: int, step: int, retry_id: str, failure: dict, *, retry: int = 1,
              max_retries: int = 2, delay_ms: int = 500) -> tuple[dict, dict]:
        data = {"retryId": retry_id, "turn": turn, "step": step, "provider": self.provider,
                "mode": "normal", "policyKey": f'["normal",{max_retries}]', "retry": retry,
                "maxRetries": max_retries, "delayMs": delay_ms, "failure": failure}
        first = self.emit("llm/retry", data, dt=30)
        return first, self.emit("llm/retry-started", {"retryId": retry_id, "turn": turn,
                                                      "step": step, "retry": retry}, dt=delay_ms)

    def session_title(self, title: str, message_seqs: list[int], source: dict | None = None) -> dict:
        return self.emit("session/title", {"title": title, "messageSeqs": message_seqs,
                                           "source": source or {"kind": "fallback"}})

    def todo_write(self, todos: Sequence[tuple[str, str]]) -> dict:
        return self.emit("todo/write", {"todos": [{"content": c, "status": s} for c, s in todos]})

    def agent_preset(self, preset: str) -> dict:
        return self.emit("agent-preset/selected", {"agentPreset": preset})

    # -- a whole model step -----------------------------------------------------------
    @staticmethod
    def step_size(*, start: bool = True, end: bool = True, user: bool = False, header: bool = True,
                  retries: int = 0, reasoning: int = 0, text: int = 0,
                  calls: Sequence[ToolCall] = (), call_deltas: Sequence[int] | None = None,
                  usage: bool = True) -> int:
        """Events :meth:`model_step` writes for the given delta counts (for exact sizing)."""
        n = int(start) + int(end) + int(user) + int(header) + 2 * retries + 2 + int(usage)
        n += (reasoning + 2 if reasoning else 0) + (text + 2 if text else 0)
        for i, call in enumerate(calls):
            deltas = call_deltas[i] if call_deltas is not None else len(
                call.deltas or split_args(call.arguments))
            n += deltas + 2
            if call.started:
                n += 1 + (2 if call.approval else 0) + (call.output is not None)
        return n

    def model_step(self, turn: int, step: int, *, user: str | None = None,
                   user_id: str | None = None, header: bool | dict = True, header_reason: str | None = None,
                   retries: Sequence[dict] = (), reasoning: str | Sequence[str] | None = None,
                   text: str | Sequence[str] | None = None, calls: Sequence[ToolCall] = (),
                   usage: dict | bool = True, start: bool = True, end: bool = True) -> StepInfo:
        """One model step: step/start, [user/message], [request/header], retries, streamed
        chunks (reasoning, text, tool calls, usage, finish), assistant/message, then per call
        tool/call, [approval], tool/result, then step/end. Cuts batches where dsh flushes."""
        chunk, emit = self._chunk, self.emit
        if start:
            self.step_start(turn, step)
        user_seq = self.user_message(user, id=user_id)["seq"] if user is not None else None
        if header:
            hdr = header if isinstance(header, dict) else {}
            self.request_header(reason=header_reason or ("initial" if step == 1 else "change"), **hdr)
        self.cut()
        for i, failure in enumerate(retries, 1):
            self.retry(turn, step, f"retry-{turn}-{step}-{i}", failure, retry=i)
        first = self.seq
        content: list[dict] = []
        index = 0
        for kind, value in (("reasoning", reasoning), ("text", text)):
            deltas = _deltas(value, split_text)
            if not deltas:
                continue
            chunk(turn, step, {"type": "block-start", "index": index, "blockType": kind})
            delta_type = kind + "-delta"
            for d in deltas:
                chunk(turn, step, {"type": delta_type, "index": index, "text": d})
            block = {"type": kind, "text": "".join(deltas)}
            chunk(turn, step, {"type": "block-end", "index": index, "block": block})
            content.append(block)
            index += 1
        for call in calls:
            chunk(turn, step, {"type": "block-start", "index": index, "blockType": "tool-call"})
            for j, d in enumerate(call.deltas or split_args(call.arguments)):
                if j == 0:
                    c = {"type": "tool-call-delta", "index": index, "id": call.id, "name": call.name,
                         "argumentsDelta": d}
                else:
                    c = {"type": "tool-call-delta", "index": index, "id": call.id, "argumentsDelta": d}
                chunk(turn, step, c)
            block = {"type": "tool-call", "id": call.id, "name": call.name, "arguments": call.arguments}
            chunk(turn, step, {"type": "block-end", "index": index, "block": block})
            content.append(block)
            index += 1
        if usage is True:
            usage = {"inputTokens": 900 + self.rng.randrange(24000),
                     "outputTokens": 4 * (self.seq - first) + 8, "cacheReadTokens": 15000}
        if usage:
            chunk(turn, step, {"type": "usage", "usage": usage})
        reason = "tool-calls" if calls else "stop"
        chunk(turn, step, {"type": "finish", "reason": {"kind": reason}})
        message = {"role": "assistant", "content": content,
                   "source": {"kind": "model", "provider": self.provider, "model": self.model},
                   "id": self.new_id()}
        data: dict[str, Any] = {"turn": turn, "step": step, "message": message}
        if usage:
            data["usage"] = usage
        msg = emit("assistant/message", data, source=list(range(first, self.seq)), surface=True)
        info = StepInfo(msg["seq"], list(range(first, msg["seq"])), user_seq)
        if calls:
            self.cut()
        for call in calls:
            if not call.started:
                continue
            info.call_seqs[call.id] = self.tool_call(turn, step, call)["seq"]
            if call.approval:
                self.approval(f"approval-{call.id}", call.name, call.approval, call_id=call.id,
                              reason=call.approval_reason)
            if call.output is not None:
                ev = self.tool_result(turn, step, call, info.call_seqs[call.id])
                info.result_seqs[call.id] = ev["seq"]
        if end:
            self.step_end(turn, step)
        return info

    def _chunk(self, turn: int, step: int, chunk: dict) -> dict:
        return self.emit("assistant/chunk", {"turn": turn, "step": step, "chunk": chunk})

    def tool_call(self, turn: int, step: int, call: ToolCall) -> dict:
        event = self.emit("tool/call", {"turn": turn, "step": step, "callId": call.id,
                                        "name": call.name, "arguments": call.arguments}, dt=2)
        self.cut()
        return event

    def tool_result(self, turn: int, step: int, call: ToolCall, call_seq: int) -> dict:
        message = {"source": {"kind": "tool", "callId": call.id},
                   "content": [{"type": "tool-result", "toolCallId": call.id,
                                "content": [{"type": "text", "text": call.output}],
                                "isError": call.is_error}],
                   "role": "user", "id": self.new_id()}
        data: dict[str, Any] = {"turn": turn, "step": step, "message": message}
        if call.error is not None:
            data["error"] = call.error
        if call.meta is not _NO_META:
            data["meta"] = call.meta
        return self.emit("tool/result", data, dt=call.duration_ms, source=[call_seq], surface=True)
