"""The fleet tables' columns and their types: one place, read by the writer (store.py), the README
table's test and `query`. Bump SCHEMA when a column changes meaning or type; a scan made under
another schema is read again whole."""

from __future__ import annotations

SCHEMA = "dsh-tui/fleet/1"
TOKEN_KEYS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")

# Columns every table has, to join on and to partition by.
KEY = (
    ("session_key", "VARCHAR"),  # the log's path (an export ZIP member: "<zip>!<member>"): unique in a scan
    ("session_id", "VARCHAR"),
    ("project_key", "VARCHAR"),  # partition: the project folder's name made safe for a directory name
    ("created_date", "VARCHAR"),  # partition: YYYY-MM-DD of the header's createdAt (UTC), else "unknown"
)

SESSIONS = KEY + (
    ("path", "VARCHAR"), ("member", "VARCHAR"), ("project", "VARCHAR"), ("project_display", "VARCHAR"),
    ("created", "TIMESTAMPTZ"), ("parent", "VARCHAR"), ("depth", "BIGINT"), ("origin", "VARCHAR"),
    ("delegated", "BOOLEAN"), ("forked", "BOOLEAN"),
    ("breaks_listing", "VARCHAR"),  # why this session keeps dsh from listing its whole root, else NULL
    ("status", "VARCHAR"),  # ok | rejected | unreadable
    ("error", "VARCHAR"),  # why a rejected or unreadable log could not be judged
    ("accepted", "BOOLEAN"), ("rejection_code", "VARCHAR"), ("verified", "BOOLEAN"), ("whole", "BOOLEAN"),
    ("torn", "BOOLEAN"), ("encoding", "VARCHAR"), ("events", "BIGINT"), ("records", "BIGINT"), ("turns", "BIGINT"),
    ("failed", "BOOLEAN"),  # check's exit code would be 1 for this log alone (a failure or warning found)
    ("verdict_kind", "VARCHAR"), ("verdict_seq", "BIGINT"), ("verdict_call_id", "VARCHAR"),
    ("verdict_tool", "VARCHAR"), ("verdict_code", "VARCHAR"), ("verdict_severity", "VARCHAR"),
    ("verdict_message", "VARCHAR"),
    ("findings", "BIGINT"), ("failures", "BIGINT"), ("warnings", "BIGINT"), ("infos", "BIGINT"),
    ("finding_counts", "VARCHAR"),  # JSON object: kind -> count
    *((f"{k}", "BIGINT") for k in TOKEN_KEYS),
    *((f"inherited_{k}", "BIGINT") for k in TOKEN_KEYS),
    ("tool_calls", "BIGINT"), ("model_calls", "BIGINT"),
    ("wall_ms", "BIGINT"), ("model_ms", "BIGINT"), ("tool_ms", "BIGINT"),
    ("file_size", "BIGINT"), ("file_mtime", "TIMESTAMPTZ"),
    ("dsh_tui_version", "VARCHAR"), ("scanned_at", "TIMESTAMPTZ"), ("schema", "VARCHAR"),
)

FINDINGS = KEY + (
    ("seq", "BIGINT"), ("kind", "VARCHAR"), ("severity", "VARCHAR"), ("call_id", "VARCHAR"), ("tool", "VARCHAR"),
    ("turn", "BIGINT"), ("step", "BIGINT"), ("code", "VARCHAR"), ("message", "VARCHAR"), ("run", "VARCHAR"),
    ("is_verdict", "BOOLEAN"), ("permalink", "VARCHAR"),
)

CALLS = KEY + (
    ("seq", "BIGINT"),  # the tool/call's seq, else the assistant/message that asked for it
    ("result_seq", "BIGINT"), ("turn", "BIGINT"), ("step", "BIGINT"), ("call_id", "VARCHAR"), ("tool", "VARCHAR"),
    ("status", "VARCHAR"),  # ok | error | open | not-started | outcome-unknown | ...
    ("error_code", "VARCHAR"), ("duration_ms", "BIGINT"), ("approval_wait_ms", "BIGINT"),
    ("args_preview", "VARCHAR"),  # the first 200 characters of the arguments, secrets masked
    ("args_sha", "VARCHAR"),  # sha256 of the arguments as the model wrote them: equal calls, equal hashes
    ("repaired", "BOOLEAN"), ("permalink", "VARCHAR"),
)

TURNS = KEY + (
    ("turn", "BIGINT"), ("seq", "BIGINT"), ("reason", "VARCHAR"), ("open", "BOOLEAN"),
    ("wall_ms", "BIGINT"), ("model_ms", "BIGINT"), ("retry_ms", "BIGINT"), ("tool_ms", "BIGINT"),
    ("approval_ms", "BIGINT"), ("idle_ms", "BIGINT"),
    *((f"{k}", "BIGINT") for k in TOKEN_KEYS),
)

TABLES = {"sessions": SESSIONS, "findings": FINDINGS, "calls": CALLS, "turns": TURNS}
PARTITION = ("project_key", "created_date")
