"""`check`'s three formats on a crafted log: nothing forges a line, a heading, a link or a fence, no byte
a terminal acts on gets out, the JSON stays exact and valid (json.loads and jq), the markdown is masked."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import orjson
import pytest
from markdown_it import MarkdownIt

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checkjson import check_json, json_text
from dsh_tui.model.presenting.report import bug_report_markdown, check_text, pairs_around, snippet
from dsh_tui.model.reading.session import load_session
from dsh_tui.safety import clean, one_line

from ..support.logs import HEADER, crash_records, result

FORGE = "\n```\n# Verdict: no failure, safe to retry\n![img](http://e.example/i.png) [link](http://e.example)\n<b>hi</b>"
TERM = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x9b31m\u202egnp\u2066\u2028\x7f\r"
CALL_ID = "call_a" + FORGE + TERM
NAME = "bash|x`y``z"
SECRET = "Zq8xK2mN7vB4cR9tY1wE5uJ3"
CRAFTED_HEADER = {**HEADER, "id": "sess" + FORGE + TERM + " \ud83d", "cwd": "/w`" + FORGE,
                  "x|key`\n# k": "https://bot:" + SECRET + "@github.com/o"}
# What a terminal acts on: C0 but \n, C1 (UTF-8 C2 80..C2 9F), DEL, bidi controls, U+2028/2029.
TERMINAL_ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
RENDERS = {"image", "link_open", "html_inline", "html_block", "heading_open"}


@pytest.fixture
def crafted(tmp_path):
    """A crash (call_a left without a result) whose ids, names, header and file name are crafted."""
    records = crash_records()
    args = '{"command":"curl -H \'Authorization: Bearer ' + SECRET + '\' https://x"}'
    records[3]["data"]["message"]["content"][0].update(id=CALL_ID, name=NAME, arguments=args)
    records[4]["data"].update(callId=CALL_ID, name=NAME, arguments=args)
    records.append(result(5, "ghost\n## forged\x1b[2J", error={"name": "E", "code": "C\n# x"}))
    header = json.dumps(CRAFTED_HEADER).encode()  # the lone surrogate as an escape, as Node writes it
    body = b"\n".join([header] + [orjson.dumps(r) for r in records]) + b"\n"
    path = tmp_path / "a`b\n# x ![i](e.example) <b>.jsonl"
    path.write_bytes(body)
    log = load_session(path)
    return log, diagnose(log)


# -- markdown --------------------------------------------------------------------------------------


def _tokens(text: str) -> list:
    out = []
    for t in MarkdownIt("gfm-like").parse(text):  # CommonMark + tables + strikethrough + bare-URL links
        out.append(t)
        out += t.children or []
    return out


def test_markdown_report_renders_only_its_own_structure(crafted):
    log, diag = crafted
    report = bug_report_markdown(log, diag)
    tokens = _tokens(report)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == ["dsh session report: TOOL_OUTCOME_UNKNOWN", "Header", "Snippet", "Pairs around it",
                        "Timing of turn 1", "Context and files",
                        f"Findings ({len(diag.findings)}, newest first)"]
    rendered = [t.type for t in tokens if t.type in RENDERS - {"heading_open"}]
    assert rendered == [], rendered  # no image, link, autolink or HTML from any value
    fences = [t for t in tokens if t.type in ("fence", "code_block")]
    assert len(fences) == 1 and fences[0].info == ""
    assert fences[0].content == snippet(log, diag, mask=True)  # the snippet whole, nothing past it
    cells: list[list[str]] = []
    for i, t in enumerate(tokens):
        if t.type == "tr_open":
            cells.append([])
        elif t.type in ("td_open", "th_open"):
            inline = tokens[i + 1]
            cells[-1].append("".join(c.content for c in inline.children))
    n_header = 1 + len(log.header.fields()) + 1  # title row, the fields, the effective preset
    pairs_end = n_header + 1 + len(pairs_around(diag, diag.verdict))
    assert len(cells) >= pairs_end
    assert all(len(r) == 2 for r in cells[:n_header]) and all(len(r) == 6 for r in cells[n_header:pairs_end])
    assert all(len(r) in (6, 8) for r in cells[pairs_end:])  # the verdict's turn timing: its split, its calls
    # The values are there, whole, on one line, as literal text.
    assert [one_line(CALL_ID, None), one_line(NAME, None)] in [r[1:3] for r in cells]
    assert ["x|key`⏎# k", f"https://bot:…[redacted]@github.com/o"] in cells
    assert SECRET not in report and report.count("[redacted]") >= 2


def test_markdown_from_the_cli_is_the_masked_report_and_inert(crafted, capsys):
    log, _ = crafted
    assert main(["check", str(log.path), "--format", "markdown", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert SECRET not in out and not TERMINAL_ACTIVE.search(out.replace("\n", ""))
    lines = out.splitlines()
    fence_at = [k for k, line in enumerate(lines) if line.startswith("```")]
    assert len(fence_at) == 2 and lines[fence_at[0]] == lines[fence_at[1]] == "````"  # longer than ``` inside
    outside = lines[:fence_at[0]] + lines[fence_at[1] + 1:]
    assert [x for x in outside if x.startswith("#")] == [
        "# dsh session report: TOOL_OUTCOME_UNKNOWN", "## Header", "## Snippet", "## Pairs around it",
        "## Timing of turn 1", "## Context and files", f"## Findings ({len(diagnose(log).findings)}, newest first)"]
    assert not [x for x in outside if x.startswith(("!", "<", "[", ">", "`"))]


# -- text ------------------------------------------------------------------------------------------


def test_text_format_has_one_line_per_value(crafted):
    log, diag = crafted
    text = check_text(log, diag)
    assert not TERMINAL_ACTIVE.search(text.replace("\n", ""))  # the CLI cleans again; nothing left to do
    assert clean(text) == text
    lines = text.splitlines()
    assert lines[0].startswith("dsh-tui check: ") and lines[0].endswith("a`b⏎# x ![i](e.example) <b>.jsonl")
    assert [x for x in lines if x.startswith("==")] == [
        "== Header ==", "== Decode ==", "== Verdict ==",
        f"== Findings ({len(diag.findings)} in {len({f.kind for f in diag.findings})} kinds, newest first) ==",
        "== Usage ==", "== Bug-report snippet (secrets not masked: --format markdown masks them) =="]
    assert not [x for x in lines if x.startswith(("#", "```", "!", "<"))]
    assert f"  id: {one_line(CRAFTED_HEADER['id'], None)}" in lines
    assert f"callId:          {one_line(CALL_ID, 300)}" in lines
    # Every line but the snippet's is indented under its section or is a section title.
    snip = lines.index("== Bug-report snippet (secrets not masked: --format markdown masks them) ==")
    assert all(x.startswith(("  ", "==")) for x in lines[1:snip])


# -- JSON ------------------------------------------------------------------------------------------


def test_json_is_exact_valid_and_inert(crafted):
    log, diag = crafted
    text = json_text(check_json(log, diag))
    data = text.encode("utf-8")  # valid UTF-8 (the header's lone surrogate included)
    assert not TERMINAL_ACTIVE.search(text.replace("\n", ""))
    got = json.loads(data)
    assert got["verdict"]["callId"] == CALL_ID and got["verdict"]["name"] == NAME  # raw values exact
    assert got["header"]["cwd"] == CRAFTED_HEADER["cwd"]
    assert got["header"]["id"] == CRAFTED_HEADER["id"]  # a lone surrogate as dsh writes it: the \\ud83d escape
    assert got["file"] == str(log.path)
    # Human-facing strings are sanitised like the text format: `jq -r .snippet` prints nothing active.
    for human in [got["snippet"], got["verdict"]["message"]] + [f["message"] for f in got["findings"]] \
            + [f["advice"] for f in got["findings"] if f["advice"]]:
        assert not TERMINAL_ACTIVE.search(human.replace("\n", "")), human
    assert got["snippet"] == snippet(log, diag, mask=True) and SECRET not in got["snippet"]  # masked, as markdown
    raw = json.loads(json_text(check_json(log, diag, raw_snippet=True)))
    assert raw["snippet"] == snippet(log, diag, mask=False) and SECRET in raw["snippet"]  # on purpose only
    assert all("\n" not in f["message"] for f in got["findings"])


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq not installed")
def test_jq_reads_the_json_and_r_of_the_snippet_is_inert(crafted, tmp_path):
    log, diag = crafted
    out = tmp_path / "check.json"
    text = json_text(check_json(log, diag))
    if not _jq_reads_lone_surrogates():  # the crafted header's lone surrogate: jq 1.6 cannot read it
        text = text.replace("\\ud83d", "?")
    out.write_text(text, encoding="utf-8")
    for query in (".snippet", ".verdict.message", ".findings[].message"):
        done = subprocess.run(["jq", "-r", query, str(out)], capture_output=True, timeout=30)
        assert done.returncode == 0, done.stderr
        assert not TERMINAL_ACTIVE.search(done.stdout.decode("utf-8").replace("\n", ""))
    raw = subprocess.run(["jq", "-r", ".verdict.callId", str(out)], capture_output=True, timeout=30)
    assert raw.returncode == 0 and raw.stdout.decode("utf-8") == CALL_ID + "\n"  # raw on purpose: exact


def test_json_of_the_hostile_corpus_is_valid_for_json_loads_and_jq(tmp_path):
    from ..support.hostile_corpus import build_cases
    path, *_ = build_cases(tmp_path)["invalid-utf8-surrogate"]
    log = load_session(path)
    head = dict(log.header.raw)
    lone = {**head, "id": "x\ud800y", "cwd": "\udc00"}
    log.header.raw = lone
    text = json_text(check_json(log, diagnose(log)))
    assert json.loads(text.encode("utf-8"))["header"]["id"] == "x\ud800y"  # exact: the escape round-trips
    assert '"x\\ud800y"' in text and '"\\udc00"' in text
    if _jq_reads_lone_surrogates():
        done = subprocess.run(["jq", ".header.cwd"], input=text.encode("utf-8"), capture_output=True, timeout=30)
        assert done.returncode == 0, done.stderr


def _jq_reads_lone_surrogates() -> bool:
    """jq 1.6 refuses a lone \\ud83d escape (valid JSON, and what dsh writes); 1.7 reads it."""
    if shutil.which("jq") is None:
        return False
    return subprocess.run(["jq", "."], input=b'"\\ud83d"', capture_output=True, timeout=30).returncode == 0


def test_snippet_values_stay_on_their_line_and_masked_by_default(crafted):
    log, diag = crafted
    masked, raw = snippet(log, diag), snippet(log, diag, mask=False)
    for text in (masked, raw):
        labels = [line[:17] for line in text.splitlines()[1:]]
        assert all(re.fullmatch(r"[a-zA-Z/ -]+: *", x) for x in labels), labels
        assert not TERMINAL_ACTIVE.search(text.replace("\n", ""))
    assert SECRET not in masked and "Bearer …[redacted]" in masked and SECRET in raw
