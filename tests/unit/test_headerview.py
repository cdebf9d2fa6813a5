"""The full header view: every field, in dsh's order then the header's, explained, sanitised and capped."""

from __future__ import annotations

from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.headerview import header_sections
from dsh_tui.model.reading.session import load_session

from ..support.logs import HEADER, PARITY, ev


def sections(path, **kw):
    log = load_session(path, **kw)
    return {s.title: s.lines for s in header_sections(log, diagnose(log))}


def test_every_field_whole_with_the_date_and_the_raw_line(write_jsonl):
    cwd = "/home/u/" + "deep/" * 60 + "project"  # far past 80 columns: the header bar cuts it, this does not
    header = {**HEADER, "cwd": cwd, "zz-extra": {"k": [1, 2]}, "agentPreset": "standard"}
    got = sections(write_jsonl([ev("turn/start", 0, {"turn": 1})], header=header))
    fields = got["Header (every field)"]
    assert fields[:5] == ["type: session", "version: 0", "id: sess-1", f"cwd: {cwd}",
                          "createdAt: 1790000000000  (2026-09-21 14:13:20.000Z)"]
    assert "delegationDepth: 0 (top-level)" in fields and "origin: absent" in fields
    assert fields[-1] == 'zz-extra: {"k":[1,2]}'  # a field dsh does not define is still shown
    assert got["Raw header line"][0].startswith('{"type":"session"') and cwd in got["Raw header line"][0]
    assert "a top-level session" in got["Session"]


def test_an_absent_depth_never_claims_top_level(write_jsonl):
    header = {k: v for k, v in HEADER.items() if k != "delegationDepth"}
    got = sections(write_jsonl([], header=header), lenient=True)
    assert "delegationDepth: absent" in got["Header (every field)"]
    assert not any("top-level session" in line for line in got["Session"])
    assert "Refused by dsh's load" in got


def test_hostile_values_are_inert_and_capped(write_jsonl):
    header = {**HEADER, "cwd": "/x\x1b]52;c;ZXZpbA==\x07\n/y", "big": "A" * 20_000,
              **{f"k{i}": i for i in range(300)}}
    got = sections(write_jsonl([], header=header))
    text = "\n".join(line for lines in got.values() for line in lines)
    assert "\x1b" not in text and "\x07" not in text
    assert all("\n" not in line for lines in got.values() for line in lines)
    big = next(line for line in got["Header (every field)"] if line.startswith("big: "))
    assert len(big) < 4200 and "more characters" in big
    assert got["Header (every field)"][-1].startswith("… ") and "more fields" in got["Header (every field)"][-1]


def test_a_fork_and_a_subagent_say_what_they_are():
    root = PARITY / "cases" / "zstd" / "--home-user-parity--"
    fork = sections(root / "src-fork" / "session.jsonl.zstd")
    assert any(line.startswith("a fork (parentSession src") for line in fork["Session"])
    child = sections(root / "src-child" / "session.jsonl.zstd")
    assert any(line.startswith("a subagent child of src") for line in child["Session"])
