"""Legacy `version: 0` shapes, upgraded the way dsh's coordinator does on read.

Returns the upgraded (type, data) and a tag naming the legacy shape, so the
views can mark it. Anything not legacy passes through untouched (tag None).
"""

from __future__ import annotations

from typing import Any

LEGACY_SHAPES = (
    "steering/message", "turn/start.trigger", "turn/end.reason",
    "user/message pre-identity", "assistant/message pre-identity", "tool/result pre-identity",
)


def upgrade(etype: str, data: Any, seq: int, session_id: str | None) -> tuple[str, Any, str | None]:
    if not isinstance(data, dict):
        return etype, data, None
    if etype == "turn/start" and "trigger" in data:
        return etype, {k: v for k, v in data.items() if k != "trigger"}, "turn/start.trigger"
    if etype == "turn/end":
        return _turn_end(data)
    if etype == "steering/message":
        message = data.get("message")
        if not isinstance(message, dict):
            message = {"content": data.get("content", []), "source": data.get("source", {"kind": "user"})}
        return "user/message", _identity(message, seq, session_id), "steering/message"
    if etype == "user/message" and ("id" not in data or "role" not in data):
        return etype, _identity(data, seq, session_id), "user/message pre-identity"
    if etype == "assistant/message" and "message" not in data and "content" in data:
        prov = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
        out = {k: v for k, v in data.items() if k not in ("content", "provenance")}
        out["message"] = {"id": f"legacy-message:{session_id}:{seq}", "role": "assistant",
                          "content": data.get("content"), "source": {**prov, "kind": "model"}}
        return etype, out, "assistant/message pre-identity"
    if etype == "tool/result" and "message" not in data and "callId" in data:
        call_id = data.get("callId")
        block = {"type": "tool-result", "toolCallId": call_id, "content": data.get("content", [])}
        if data.get("isError"):
            block["isError"] = True
        out = {k: v for k, v in data.items() if k not in ("callId", "content", "isError")}
        out["message"] = {"id": f"legacy-message:{session_id}:{seq}", "role": "user",
                          "content": [block], "source": {"kind": "tool", "callId": call_id}}
        return etype, out, "tool/result pre-identity"
    return etype, data, None


def _identity(message: dict, seq: int, session_id: str | None) -> dict:
    out = dict(message)
    out.setdefault("id", f"legacy-message:{session_id}:{seq}")
    out.setdefault("role", "user")
    return out


def _turn_end(data: dict) -> tuple[str, Any, str | None]:
    reason = data.get("reason")
    if not isinstance(reason, dict):
        return "turn/end", data, None
    kind = reason.get("kind")
    new = None
    if kind == "aborted" and "reason" not in reason:
        new = {"kind": "aborted", "reason": {"kind": "legacy"}}
    elif kind == "disposed":
        new = {"kind": "aborted", "reason": {"kind": "disposed"}}
    elif kind == "error" and "error" not in reason:
        failure = reason.get("failure") if isinstance(reason.get("failure"), dict) else {}
        err = {"message": failure.get("message", reason.get("message")),
               "code": failure.get("code", reason.get("code"))}
        new = {"kind": "error", "error": err}
    if new is None:
        return "turn/end", data, None
    return "turn/end", {**data, "reason": new}, "turn/end.reason"
