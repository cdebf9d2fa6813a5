"""The parity campaign's comparison (scripts/parity_campaign.py, tests/unit/test_parity_campaign.py):
what `dsh-tui check --format json` says about a log against what dsh itself said about it
(dsh-facts.mjs and tests/parity/dsh-resume.mjs: its loader, crash repair, listing and token meter)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

METER = {"uncachedInputTokens": "inputTokens", "outputTokens": "outputTokens", "cacheReadTokens": "cacheReadTokens",
         "cacheWriteTokens": "cacheWriteTokens"}


def check(path: Path, *extra: str) -> tuple[int, dict | None, str]:
    """`dsh-tui check PATH --format json --no-cache`, in process: (exit code, the JSON or None, stderr)."""
    from dsh_tui.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["check", str(path), "--format", "json", "--no-cache", *extra])
    text = out.getvalue()
    return rc, (json.loads(text) if text.strip() else None), err.getvalue()


def _dsh_cut(f: dict) -> int | None:
    """Where dsh's load() truncated the file before appending (None: it cut nothing)."""
    r = f.get("resume") or {}
    cut = r.get("cut")
    return cut if cut is not None and cut < r.get("size_before", 0) else None


def disagreements(path: Path, f: dict, *, listed: bool = True) -> list[str]:
    """How dsh-tui's answer about the log at ``path`` differs from dsh's ``f`` (empty: none).
    ``listed``: dsh listed the log's root (its children listing is then comparable)."""
    rc, out, err = check(path)
    f = dict(f)
    meter_threw = _meter_threw(f)
    if meter_threw:  # dsh's loader reads it; only its token meter throws (dsh's bug): judge the loader
        f["accepted"] = True
    if rc == 4:
        return [f"internal error: {err.strip()}"]
    if rc == 3:
        if f["accepted"]:
            return [f"dsh loads it; dsh-tui refuses it: {err.strip()[:300]}"]
        words = f["refusal"]["message"]
        if words.startswith("corrupt") and '"' not in words:  # dsh's damage words (not a path's)
            _rc, lenient, _err = check(path, "--lenient")
            ours = (lenient or {}).get("rejection") or {}
            if lenient is not None and ours.get("message") != words:
                return [f"refusal words: dsh {words!r}, dsh-tui {ours.get('message')!r}"]
        return []
    if not f["accepted"]:
        return [f"dsh refuses it ({f['refusal']['message'][:200]}); dsh-tui accepts it (exit {rc})"]
    out = out or {}
    bad = []
    if out.get("repair_closers") != f["closers"]:
        bad.append(f"closers: dsh {f['closers']}, dsh-tui {out.get('repair_closers')}")
    turn_ends = [[t["turn"], t["reason"]] for t in out.get("turn_ends", [])]
    if turn_ends != f["turn_ends"]:
        bad.append(f"turn ends: dsh {f['turn_ends']}, dsh-tui {turn_ends}")
    seeds = out.get("runs", {}).get("end_seed_seqs") or []
    cut = (out.get("resume") or {}).get("deleted_seqs")
    if cut:  # dsh loads (and reports) only the prefix before its cut
        seeds = [s for s in seeds if s < cut[0]]
    if seeds != f["end_seed_seqs"]:
        bad.append(f"end-seeds: dsh {f['end_seed_seqs']}, dsh-tui {seeds}")
    usage = {theirs: out["usage"]["dsh_total"][ours] for theirs, ours in METER.items()}
    if not meter_threw and usage != f["usage_fold_all"]:
        bad.append(f"meter: dsh {f['usage_fold_all']}, dsh-tui {usage}")
    torn = out.get("torn_tail") or {}
    ours_cut = (out.get("resume") or {}).get("offset", torn.get("offset"))
    if f.get("resume") is not None and ours_cut != _dsh_cut(f):
        bad.append(f"resume cut: dsh at byte {_dsh_cut(f)}, dsh-tui {ours_cut}")
    if listed and out.get("lineage") is not None:
        kids = [c["id"] for c in out["lineage"]["children"] if c["depth"] == 1]
        if sorted(kids) != sorted(f["dsh_list_children"]):  # (dsh lists in directory order)
            bad.append(f"children: dsh {f['dsh_list_children']}, dsh-tui {kids}")
    return bad


def _meter_threw(f: dict) -> bool:
    """dsh-facts.mjs folds dsh's token meter inside its load check: an assistant/chunk without a
    `chunk` object makes the meter (dsh-token-meter's usage projection, `event.data.chunk.type`) throw
    a TypeError there, while dsh's loader and repair (dsh-resume.mjs) read the log. A bug of dsh's
    meter, not a refusal of the log: the facts set before the meter ran are compared, the meter not."""
    refusal = f.get("refusal") or {}
    return (not f["accepted"] and refusal.get("name") == "TypeError" and "reading 'type'" in refusal.get("message", "")
            and bool((f.get("resume") or {}).get("accepted")) and "closers" in f)


def root_disagreements(root: Path, facts: dict) -> list[str]:
    """dsh's listing of the whole root refused (one session can do that) iff dsh-tui names a breaker."""
    from dsh_tui.model.sessions.discovery import list_target
    refused = {f["list_refusal"]["message"] for f in facts.values() if f.get("list_refusal")}
    ours = list_target(root).breaks_listing
    if bool(refused) != bool(ours):
        return [f"root listing: dsh {'refuses: ' + next(iter(refused)) if refused else 'lists it'}; dsh-tui "
                + (f"names {[b['path'] for b in ours]}" if ours else "names no breaker")]
    return []
