"""dsh's event vocabulary (packages/core/session/src/known-event-types.ts, 48 types)."""

KNOWN_EVENT_TYPES = frozenset({
    "turn/start", "turn/end", "step/start", "step/end", "session/end-seed",
    "request/header", "request/context",
    "user/message", "assistant/message", "assistant/chunk",
    "tool/call", "tool/result",
    "command/run", "command/done",
    "approval/asked", "approval/decided", "approval/policy",
    "sandbox/mode", "permission/preset", "plan/mode",
    "llm/retry", "llm/retry-started",
    "subagent/descriptor",
    "tool-workflow/run-start", "tool-workflow/agent-start", "tool-workflow/agent-end", "tool-workflow/run-end",
    "tool/code-dispatch-start", "tool/code-dispatch",
    "team/member", "team/task", "team/message/queued", "team/message/delivered",
    "agent/inbox/spliced",
    "compaction/start", "compaction/end", "compaction/summary", "compaction/prune",
    "agent-preset/selected", "todo/write", "session/title", "session/title-llm-request",
    "goal/change", "schedule/change", "hook/invoked", "hook/result",
    "feedback/record", "web/deepseek-search-llm-request",
})

# Surface events carry surfaceOp and produce a model-visible message.
SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})

# Storage-only packed rows: row tag -> (chunk type, member list key).
PACKED_ROWS = {
    "text-chunks": ("text-delta", "texts"),
    "reasoning-chunks": ("reasoning-delta", "texts"),
    "tool-call-chunks": ("tool-call-delta", "args"),
}

# Legacy types dsh still upgrades on read (coordinator.ts); they count as known.
LEGACY_TYPES = frozenset({"steering/message"})

MAX_SAFE = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER: seq, time and dt are safe integers
