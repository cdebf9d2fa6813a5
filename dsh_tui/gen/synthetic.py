"""Streaming generator of large, realistic dsh session logs (exact event counts).

Shape follows the real large log (big-936k-events): every turn is an inbox-spliced prompt,
turn/start, a few steps with a reasoning stream and one or two tool calls, then a final
reasoning + text step; most events are token-sized deltas that pack into rows; batches are
cut where dsh flushes (~25 events per frame). Tool outputs vary from a line to tens of KB.
Memory is bounded: batches are yielded as soon as each step is written.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson

from .builder import EventBuilder, ToolCall, split_args
from .storage import write_log_facts

SYNTH_CREATED_AT = 1_796_218_466_430
_VOCAB = ("path", "module", "cache", "value", "file", "change", "test", "config", "fix", "import",
          "index", "check", "function", "return", "result", "query", "line", "build", "output",
          "error", "run", "the", "a", "parser", "frame", "session", "record", "buffer", "thread")
_TOOLS = ("bash", "bash", "bash", "bash", "bash", "read", "read", "grep", "edit", "write")
_RETRY = {"message": "rate limited", "code": "RATE_LIMITED", "status": 429}


def synthetic_header(seed: int = 0) -> dict:
    """Header of a synthetic session (deterministic per seed)."""
    sid = uuid.UUID(int=random.Random(f"synthetic-{seed}").getrandbits(128), version=4)
    return {"type": "session", "version": 0, "id": str(sid), "createdAt": SYNTH_CREATED_AT + seed,
            "cwd": "/srv/agents/big-repo", "delegationDepth": 0, "agentPreset": "code"}


def _size(kw: dict, end_turn: bool = False) -> int:
    calls = kw.get("calls", ())
    return EventBuilder.step_size(
        user="user" in kw, end=kw.get("end", True), retries=len(kw.get("retries", ())),
        reasoning=len(kw.get("reasoning") or ()), text=len(kw.get("text") or ()), calls=calls,
        call_deltas=[len(c.deltas) for c in calls]) + int(end_turn)


class _Synth:
    def __init__(self, n_events: int, seed: int, crash: bool) -> None:
        rng = self.rng = random.Random(seed)
        self.n, self.crash = n_events, crash
        self.tokens = [" " + rng.choice(_VOCAB) for _ in range(16384)]
        self.pool = "".join(rng.choice(_VOCAB) + ("\n" if rng.random() < 0.08 else " ")
                            for _ in range(16000))
        dts = [1 if rng.random() < 0.08 else 0 for _ in range(4093)]
        dts[2047] = -1  # the wall clock occasionally steps back
        self.b = EventBuilder(SYNTH_CREATED_AT + seed + 5, seed=seed, model="deepseek-v4-pro",
                              batch_limit=64, dt_pattern=dts)
        self.calls = self.turn = 0

    def _toks(self, lo: int, hi: int) -> list[str]:
        n = self.rng.randint(lo, hi)
        start = self.rng.randrange(len(self.tokens) - n)
        return self.tokens[start:start + n]

    def _text(self, size: int) -> str:
        start = self.rng.randrange(len(self.pool) - size)
        return self.pool[start:start + size]

    def _call(self, result: bool = True) -> ToolCall:
        """A planned call; its id is given when it is written (so ids never skip)."""
        rng = self.rng
        name = rng.choice(_TOOLS)
        words = "".join(self._toks(2, 6)).strip()
        if name == "bash":
            args: dict = {"command": words}
        elif name == "grep":
            args = {"pattern": words.split()[0], "path": "src"}
        else:
            args = {"file_path": f"src/{words.split()[0]}_{rng.randrange(100)}.py"}
            if name == "edit":
                args |= {"old_string": "limit = 10", "new_string": "limit = 20"}
            elif name == "write":
                args["content"] = self._text(rng.randint(40, 400))
        arguments = orjson.dumps(args).decode()
        r = rng.random()
        size = (rng.randint(20, 400) if r < 0.7 else rng.randint(400, 4000) if r < 0.96
                else rng.randint(4000, 40000))
        call = ToolCall("", name, arguments, self._text(size) if result else None,
                        duration_ms=rng.randint(2, 40), deltas=split_args(arguments))
        if name == "bash" and result and rng.random() < 0.04:
            call.is_error = True
            call.error = {"name": "ToolError", "code": "EXIT_NONZERO"}
            call.output = "Error: " + (call.output or "")[:200]
        elif name in ("edit", "write"):
            call.meta = {"diffs": [{"path": args["file_path"], "oldText": "limit = 10",
                                    "newText": "limit = 20"}]}
        return call

    def _tool_step(self) -> dict:
        rng = self.rng
        return {"retries": [_RETRY] if rng.random() < 0.07 else [],
                "reasoning": self._toks(15, 75),
                "calls": [self._call() for _ in range(2 if rng.random() < 0.15 else 1)]}

    def _emit(self, turn: int, step: int, kw: dict) -> None:
        for call in kw.get("calls", ()):
            call.id = f"call_{self.calls:06d}"
            self.calls += 1
        if step == 1:
            kw = kw | {"user": self.user_text, "user_id": self.user_id}
        self.b.model_step(turn, step, **kw)

    def _open_turn(self) -> int:
        b = self.b
        self.turn += 1
        b.tick(self.rng.randint(3, 9))
        self.user_text = f"Task {self.turn}:" + "".join(self._toks(12, 24))
        self.user_id = b.new_id()
        b.inbox_spliced(inserted=[{"content": [{"type": "text", "text": self.user_text}],
                                   "source": {"kind": "user"}, "role": "user", "id": self.user_id}])
        b.turn_start(self.turn)
        b.inbox_spliced(removed=1)
        return self.turn

    def run(self) -> Iterator[list[dict]]:
        b, rng, n = self.b, self.rng, self.n
        last = self._call(result=False) if self.crash else None  # the crash call, planned early
        text = self._toks(20, 45)

        def closing(step: int, pad: int) -> dict:
            kw: dict = {"reasoning": self.tokens[:pad]}
            if last is not None:
                return kw | {"calls": [last], "end": False}
            return kw | {"text": text}

        def closing_base(step: int) -> int:  # closing size without its reasoning deltas
            return _size(closing(step, 0) | ({"user": 1} if step == 1 else {}), not self.crash) + 2

        minimum = 3 + closing_base(1) + 1
        if n < minimum:
            raise ValueError(f"n_events must be >= {minimum} for this shape (got {n})")
        while True:
            plan = [self._tool_step() for _ in range(rng.randint(1, 4))]
            plan.append({"reasoning": self._toks(15, 75), "text": self._toks(20, 45)})
            plan[0]["user"] = 1
            size = 3 + sum(_size(kw) for kw in plan) + 1
            if n - b.seq - size < minimum:
                break
            turn = self._open_turn()
            for step, kw in enumerate(plan, 1):
                kw.pop("user", None)
                self._emit(turn, step, kw)
                yield from b.take()
            b.turn_end(turn)
            yield from b.take()
        turn, step = self._open_turn(), 1
        while True:  # complete tool steps while the closing step still fits after them
            kw = self._tool_step()
            if n - b.seq - _size(kw | ({"user": 1} if step == 1 else {})) < closing_base(step + 1) + 1:
                break
            self._emit(turn, step, kw)
            yield from b.take()
            step += 1
        self._emit(turn, step, closing(step, n - b.seq - closing_base(step)))
        if last is None:
            b.turn_end(turn)
        yield from b.finish()
        if b.seq != n:
            raise AssertionError(f"synthetic generator wrote {b.seq} events, wanted {n}")


def iter_synthetic_batches(n_events: int, *, seed: int = 0, crash: bool = True) -> Iterator[list[dict]]:
    """Yield write batches holding exactly ``n_events`` events in total (bounded memory)."""
    return _Synth(n_events, seed, crash).run()


def write_synthetic(path: str | Path, n_events: int, *, seed: int = 0, encoding: str = "zstd",
                    crash: bool = True) -> dict:
    """Write a synthetic log; returns ``{events, records, frames, plain_bytes, last_call_id}``."""
    return write_log_facts(path, synthetic_header(seed), iter_synthetic_batches(
        n_events, seed=seed, crash=crash), encoding=encoding)
