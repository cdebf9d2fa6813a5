"""`dsh-tui ls`: text and JSON listings, exit codes, terminal safety."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile

import pytest

from dsh_tui.sessions import ls as ls_mod
from dsh_tui.demo import DEMO_SESSION_ID, demo_batches
from dsh_tui.gen.storage import encode_log
from dsh_tui.sessions.ls import SCHEMA, main_ls
from dsh_tui.model.sessions.layout import project_key

from ..support.session_roots import APP, OTHER, T0, build_root, header, write_session


@pytest.fixture
def built(tmp_path):
    return build_root(tmp_path / "sessions")


def run(capsys, *argv):
    code = main_ls(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_listing(built, capsys):
    code, out, err = run(capsys, str(built.root))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("10 sessions in 3 projects under ")  # flat file and .tmp are not sessions
    header_line = next(line for line in lines if "CREATED" in line)
    assert re.findall(r"[A-Z]+", header_line) == ["CREATED", "ID", "STATUS", "EVENTS", "SIZE", "PRESET", "DEPTH", "CWD"]
    assert f"{APP}  [--home-user-projects-demo-app--]" in lines
    assert "(no cwd)  [_no-cwd]" in lines
    demo = next(i for i, line in enumerate(lines) if DEMO_SESSION_ID in line)
    assert re.search(r"2026-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+demo-7f3c\S+\s+open-turn\s+320\s+\S+ KiB\s+standard\s+0\s+"
                     + re.escape(APP), lines[demo])
    child = next(i for i, line in enumerate(lines) if built.ids["child"] in line)
    grand = next(i for i, line in enumerate(lines) if built.ids["grandchild"] in line)
    assert demo < child < grand  # nested under the parent, though in another project directory
    assert "  ↳ " + built.ids["child"] in lines[child] and "    ↳ " + built.ids["grandchild"] in lines[grand]
    assert re.search(r"\scompleted\s+13\s.*\s1\s+" + re.escape(OTHER), lines[child])
    assert "verdict: TOOL_OUTCOME_UNKNOWN [call_05_deploy]" in lines[demo + 1]
    rej = next(i for i, line in enumerate(lines) if built.ids["rejected"] in line)
    assert " rejected " in lines[rej] and "! header: header lacks delegationDepth" in lines[rej + 1]
    assert any("note: parent session 99999999-dead-4000-8000-000000000000 not found" in line for line in lines)
    torn = next(line for line in lines if built.ids["torn"] in line)
    assert " torn " in torn
    tail = out[out.index("legacy flat files"):]
    assert all(str(p) in tail for p in built.flat)
    assert all(str(p) in tail for p in built.tmp) and "ignored temp files" in tail
    assert "problems:" in tail


def test_no_status_reads_headers_only(built, capsys, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("fill_status must not run with --no-status")
    monkeypatch.setattr(ls_mod, "fill_status", boom)
    code, out, _ = run(capsys, str(built.root), "--no-status")
    assert code == 0 and "(headers only: --no-status)" in out
    demo = next(line for line in out.splitlines() if DEMO_SESSION_ID in line)
    assert re.search(r"\sunknown\s+-\s+\S+ KiB\s+standard\s+0\s", demo)
    rej = next(line for line in out.splitlines() if built.ids["rejected"] in line)
    assert " rejected " in rej  # known from the header alone


def test_json_listing(built, capsys):
    code, out, _ = run(capsys, str(built.root), "--format", "json")
    assert code == 0 and out.isascii()
    doc = json.loads(out)
    assert doc["schema"] == SCHEMA == "dsh-tui/ls/1" and doc["root"] == str(built.root)
    assert doc["legacy_flat"] == [str(p) for p in built.flat]
    assert doc["ignored_tmp"] == [str(p) for p in built.tmp]
    sessions = {s["id"]: s for s in doc["sessions"]}
    assert len(doc["sessions"]) == len(sessions) == 10
    demo = sessions[DEMO_SESSION_ID]
    assert demo["status"] == "open-turn" and demo["events"] == 320 and demo["verdict_kind"] == "TOOL_OUTCOME_UNKNOWN"
    assert demo["children"] == [built.ids["child"]] and demo["tree_level"] == 0
    assert demo["created"].endswith("Z") and demo["encoding"] == "zstd" and demo["agentPreset"] == "standard"
    child = sessions[built.ids["child"]]
    assert (child["parentSession"], child["origin"], child["delegationDepth"], child["tree_level"]) == \
        (DEMO_SESSION_ID, "subagent", 1, 1)
    assert child["project"] == OTHER and child["project_dir"] == project_key(OTHER)
    order = [s["id"] for s in doc["sessions"]]
    assert order.index(DEMO_SESSION_ID) + 1 == order.index(built.ids["child"])  # pre-order
    assert sessions[built.ids["rejected"]]["status"] == "rejected"
    assert sessions[built.ids["orphan"]]["orphan"] is True


def test_exit_codes(tmp_path, capsys):
    code, out, err = run(capsys, str(tmp_path / "missing"))
    assert code == 3 and out == "" and err.startswith("dsh-tui: ") and "no such directory" in err
    assert err.count("\n") == 1
    (tmp_path / "f.txt").write_text("x")
    code, _, err = run(capsys, str(tmp_path / "f.txt"))
    assert code == 3 and "not a directory" in err
    assert run(capsys, str(tmp_path), "--format", "xml")[0] == 2
    assert run(capsys, "--bogus")[0] == 2
    assert run(capsys, "a", "b")[0] == 2
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "dsh-tui ls" in out


def test_empty_root(tmp_path, capsys):
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0 and out.startswith("0 sessions in 0 projects") and "no sessions found" in out


def test_default_root_from_dsh_home(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DSH_HOME", str(tmp_path))
    write_session(tmp_path / "sessions", header("bbbbbbbb-0000-4000-8000-000000000001", T0))
    code, out, _ = run(capsys, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["root"] == str(tmp_path / "sessions")
    assert [s["id"] for s in doc["sessions"]] == ["bbbbbbbb-0000-4000-8000-000000000001"]
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "nowhere"))
    assert run(capsys)[0] == 3


def test_hostile_strings_are_cleaned(tmp_path, capsys):
    evil_cwd = "/tmp/\x1b]52;c;ZXZpbA==\x07x\u202ey\x9b"
    evil_id = "cccccccc-\x1b[2J-\u2028"
    write_session(tmp_path, header(evil_id, T0, evil_cwd, agentPreset="\x1b[31mred"))
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\u2028]", out)
    assert "␛]52;c;ZXZpbA==␇" in out and "⟨U+202E⟩" in out
    code, out, _ = run(capsys, str(tmp_path), "--format", "json")
    assert out.isascii() and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out)
    (s,) = json.loads(out)["sessions"]
    assert s["cwd"] == evil_cwd and s["id"] == evil_id  # the data itself is kept exactly


def test_export_zip_as_dir(tmp_path, capsys):
    h, b = demo_batches()
    child_h = header("dddddddd-0000-4000-8000-000000000001", T0, "/srv", parentSession=DEMO_SESSION_ID,
                     origin="subagent", delegationDepth=1)
    path = tmp_path / "dsh-session-demo.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("session.jsonl", encode_log(h, b, encoding="jsonl"))
        zf.writestr(f"subagents/{child_h['id']}/session.jsonl", encode_log(child_h, [], encoding="jsonl"))
    code, out, _ = run(capsys, str(path))
    assert code == 0
    lines = out.splitlines()
    demo = next(i for i, line in enumerate(lines) if DEMO_SESSION_ID in line)
    assert " open-turn " in lines[demo] and "member: session.jsonl" in lines[demo + 2]
    child = next(i for i, line in enumerate(lines) if "↳ dddddddd" in line)
    assert child > demo and " empty " in lines[child]


def test_new_modules_import_no_textual_or_rich():
    mods = ["dsh_tui.sessions.ls", "dsh_tui.model.sessions.discovery", "dsh_tui.model.reading.exportzip", "dsh_tui.model.presenting.redact",
            "dsh_tui.model.sessions.entry", "dsh_tui.model.sessions.layout"]
    code = ("import sys, importlib\n"
            f"for m in {mods!r}: importlib.import_module(m)\n"
            "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_fifo_named_like_a_log_does_not_hang(tmp_path, capsys):
    import os

    from dsh_tui.sessions.ls import main_ls
    session = tmp_path / "--proj--" / "abc"
    session.mkdir(parents=True)
    os.mkfifo(session / "session.jsonl")
    assert main_ls([str(tmp_path), "--format", "json"]) == 0
    assert '"unreadable"' in capsys.readouterr().out
