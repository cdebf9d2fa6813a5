"""The session header (first line) and dsh's rules for accepting it (DSH-FORMAT 3)."""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from .jsonparse import parse_json
from .deepvalue import deeper_than, short_repr, spelled

SESSION_FORMAT_VERSION = 0
HEADER_KEYS = ("version", "id", "cwd", "createdAt", "parentSession", "seedLength",
               "origin", "delegationDepth", "agentPreset")
RETIRED_KEYS = ("sandboxMode", "approvalPolicy")
MAX_SAFE_INT = 2**53 - 1
FIELD_DEPTH = 32  # fields(): deeper values are shown as text


class Rejection(Struct, frozen=True):
    code: str
    message: str
    line: int | None = None  # the physical line dsh's loader refused at (1 = header), for damage it refuses

    def as_dict(self) -> dict:
        out = {"code": self.code, "message": self.message}
        if self.line is not None:
            out["line"] = self.line
        return out


class Header(Struct):
    raw: dict[str, Any] | None
    rejection: Rejection | None = None
    notes: list[str] = field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default) if isinstance(self.raw, dict) else default

    @property
    def session_id(self) -> str | None:
        value = self.get("id")
        return value if isinstance(value, str) else None

    @property
    def delegation_depth(self) -> int | None:
        value = self.get("delegationDepth")
        return int(value) if _is_safe_nonneg_int(value) else None

    @property
    def delegated(self) -> bool:
        """A subagent child, as dsh has it (types.ts, child-agent, list-children.ts): delegationDepth > 0
        or origin "subagent". parentSession alone is seed lineage: a user fork is a top-level session."""
        return bool(self.delegation_depth) or self.subagent

    @property
    def subagent(self) -> bool:
        """What dsh's own children listing (`listChildren`) takes: origin "subagent"."""
        return self.get("origin") == "subagent"

    @property
    def forked(self) -> bool:
        """A user fork: a parentSession (and usually a seedLength) on a session that is not delegated."""
        return isinstance(self.get("parentSession"), str) and not self.delegated

    @property
    def seed_length(self) -> int | None:
        value = self.get("seedLength")
        return int(value) if _is_safe_nonneg_int(value) else None

    def fields(self) -> dict[str, Any]:
        """The header as read, in dsh's key order, only keys present.

        A value nested deeper than FIELD_DEPTH (an unknown key dsh drops; no serialiser or
        report takes 1000 levels) is given as its bounded text (`short_repr`) instead."""
        if not isinstance(self.raw, dict):
            return {}
        out = {k: self.raw[k] for k in ("type",) + HEADER_KEYS if k in self.raw}
        out.update({k: v for k, v in self.raw.items() if k not in out})
        return {k: short_repr(v) if deeper_than(v, FIELD_DEPTH) else v for k, v in out.items()}


def _is_safe_nonneg_int(value: Any) -> bool:
    # JS has one number type: 1.0 passes dsh's integer checks, -0 does not.
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= MAX_SAFE_INT
    if isinstance(value, float) and value.is_integer():
        return 0 <= value <= MAX_SAFE_INT and not (value == 0 and str(value).startswith("-"))
    return False


def parse_header(line: bytes | memoryview | None) -> Header:
    """Parse and validate the header line the way dsh's JSONL reader does."""
    if line is None or not bytes(line[:1]):
        return Header(None, Rejection("NO_HEADER", "empty or header-less session log"))
    obj, _lenient = parse_json(line)
    if obj is None:
        return Header(None, Rejection("HEADER_NOT_JSON", "first line is not JSON: not a dsh session header"))
    if not isinstance(obj, dict) or obj.get("type") != "session":
        if not isinstance(obj, dict):
            what = f"{spelled(obj)}, not an object"
        else:
            what = f"type {spelled(obj['type'])}" if "type" in obj else "no type field"
        return Header(obj if isinstance(obj, dict) else None,
                      Rejection("NOT_A_SESSION_HEADER",
                                f"first line is not a session header ({what}): not a dsh session log"))
    return Header(obj, _validate(obj))


def _wrong(h: dict[str, Any], key: str, expected: str) -> str:
    """"the header has no version" / "the header's version is null, not a number" (never Python's repr)."""
    if key not in h:
        return f"the header has no {key}"
    return f"the header's {key} is {spelled(h[key])}, not {expected}"


def _validate(h: dict[str, Any]) -> Rejection | None:
    version = h.get("version")
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        if version != SESSION_FORMAT_VERSION:
            direction = "a newer harness; upgrade dsh-tui/dsh" if version > SESSION_FORMAT_VERSION \
                else "an older harness; dsh ships no upgrade path"
            return Rejection("UNSUPPORTED_VERSION",
                             f"session log format version {version} was written by {direction} "
                             f"(this reader knows version {SESSION_FORMAT_VERSION})")
    else:
        return Rejection("BAD_HEADER", f"{_wrong(h, 'version', 'a number')}: not a session header")
    if not isinstance(h.get("id"), str) or not h["id"]:
        return Rejection("BAD_HEADER", _wrong(h, "id", "a non-empty string"))
    if not _is_safe_nonneg_int(h.get("createdAt")):
        return Rejection("BAD_HEADER", _wrong(h, "createdAt", "a non-negative integer (epoch ms)"))
    if "delegationDepth" not in h:
        return Rejection("MISSING_DELEGATION_DEPTH",
                         "header lacks delegationDepth (required on disk since 2026-07-20); dsh rejects this log")
    if not _is_safe_nonneg_int(h["delegationDepth"]):
        return Rejection("BAD_DELEGATION_DEPTH",
                         f"{_wrong(h, 'delegationDepth', 'a non-negative integer')}; dsh rejects this log")
    for key in RETIRED_KEYS:
        if key in h:
            return Rejection("RETIRED_HEADER_FIELDS", f"session header uses retired policy baseline field {key}")
    cwd = h.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not (cwd.startswith("/") or cwd[1:3] in (":\\", ":/"))):
        if cwd != "{{cwd}}":  # projected fixtures tokenise the cwd
            return Rejection("BAD_HEADER", _wrong(h, "cwd", "an absolute path"))
    for key in ("parentSession", "agentPreset"):
        if key in h and not isinstance(h[key], str):
            return Rejection("BAD_HEADER", _wrong(h, key, "a string"))
    if "seedLength" in h and not _is_safe_nonneg_int(h["seedLength"]):
        return Rejection("BAD_HEADER", _wrong(h, "seedLength", "a non-negative integer"))
    if "origin" in h and h["origin"] != "subagent":
        return Rejection("BAD_HEADER", _wrong(h, "origin", '"subagent"'))
    return None
