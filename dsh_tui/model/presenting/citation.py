"""What a finding lets a bug report cite when it names no tool call: the model request that failed
(its request/header's seq, provider and model), the command left open. One reading for the snippet,
the markdown and the checklist, so they cite the same lines. Textual-free.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from .summary import event_data

# Findings about a model request, and the turn-level findings a model failure explains.
MODEL_KINDS = ("MODEL_REQUEST_FAILED", "RETRY_INTERRUPTED", "MODEL_STREAM_FAILED", "MESSAGE_INTERRUPTED")
TURN_KINDS = ("TURN_NOT_COMPLETED", "OPEN_TURN")
COMMAND_KINDS = ("COMMAND_NOT_DONE", "COMMAND_FAILED")
# How far back from the failure a request/header is looked for: a step's request/header comes a few
# events before its retries; a bound keeps a pathological log from costing a walk over all of it.
LOOK_BACK = 5_000


class Request(Struct, frozen=True):
    seq: int | None  # the request/header's seq (None: none found before the failure)
    provider: Any = None
    model: Any = None
    failure_seq: int | None = None  # the model failure's own event (the last retry, the finish chunk)


def model_failure(diag, finding):
    """The model failure behind ``finding``: itself, or, for a turn that ended badly (or was left
    open), the newest live model failure in that turn; None when no model request failed."""
    if finding is None:
        return None
    if finding.kind in MODEL_KINDS:
        return finding
    if finding.kind in TURN_KINDS:
        return next((f for f in diag.findings if f.kind in MODEL_KINDS and f.severity != "info"
                     and f.turn == finding.turn and f.run == finding.run), None)
    return None


def failed_request(log, diag, finding) -> Request | None:
    """The request/header of the model request ``finding`` is about (see `model_failure`), with the
    provider and model it names; the llm/retry's provider when no request/header is found."""
    failure = model_failure(diag, finding)
    if failure is None or failure.index is None:
        return None
    provider = None
    start = min(failure.index, len(log) - 1)
    for i in range(start, max(-1, start - LOOK_BACK), -1):
        t = log.type_of(i)
        if t == "request/header":
            header = event_data(log.event(i)).get("header")
            config = header.get("config") if isinstance(header, dict) else None
            config = config if isinstance(config, dict) else {}
            return Request(log.seq_of(i), config.get("provider", provider), config.get("model"), failure.seq)
        if t == "llm/retry" and provider is None:
            provider = event_data(log.event(i)).get("provider")
    return Request(None, provider, None, failure.seq)


def model_text(req: Request) -> str:
    """``deepseek-official / deepseek-v4-flash``; "absent" for what the request/header left out."""
    from .summary import shown
    return f"{shown(req.provider)} / {shown(req.model)}"


def request_text(req: Request) -> str:
    """``request/header seq 3; failed at seq 9``: the request to look at, and where it failed."""
    at = f"request/header seq {req.seq:,}" if req.seq is not None else "no request/header before it"
    return at + (f"; failed at seq {req.failure_seq:,}" if req.failure_seq is not None else "")


def id_label(finding) -> str:
    """What a finding's ``call_id`` is: a tool call's callId, a command's commandId, an approval's id."""
    if finding.kind in COMMAND_KINDS:
        return "commandId"
    if finding.kind == "APPROVAL_UNDECIDED":
        return "approval id"
    if finding.kind.startswith("CODE_DISPATCH"):
        return "run_code callId"
    return "callId"
