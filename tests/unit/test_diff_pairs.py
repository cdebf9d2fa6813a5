"""`dsh-tui diff` on pairs written by dsh's own writer (tests/parity/write_diff_pairs.mjs; its output is
committed in tests/parity/diff-cases/, and written afresh here where npm reaches its registry).

Each re-run pair differs in one planted place, turn 2's second call (c4a / c4b): the first divergence
reported must be exactly that call, of the planted kind, and swapping A and B swaps the sides. The
expected seqs are read from the logs themselves (the tool/call carrying the planted callId)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from dsh_tui.cli import main
from dsh_tui.model.reading.session import load_session

from ..support.logs import HEADER, PARITY, ev, lines_of, no_children, result
from ..support.reference import install_reference

CASES = PARITY / "diff-cases" / "--home-user-parity--"
PLANTED = {"args": "arguments", "tool": "tool", "result": "result", "retry": "retry"}


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path, monkeypatch):
    for var in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "DSH_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))


def log_of(name: str) -> Path:
    return CASES / name / "session.jsonl.zstd"


def call_seq(path: Path, call_id: str) -> int:
    """The seq of the tool/call carrying ``call_id``, read from the log."""
    log = load_session(path)
    for i in range(len(log)):
        e = log.event(i)
        if e.type == "tool/call" and e.event["data"]["callId"] == call_id:
            return e.seq
    raise AssertionError(f"no tool/call {call_id} in {path}")


def diff_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["diff", *argv, "--format", "json", "--no-cache"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("pair", sorted(PLANTED))
def test_the_first_divergence_is_the_planted_one(pair, capsys):
    a, b = log_of(f"{pair}-a"), log_of(f"{pair}-b")
    code, out = diff_json(capsys, str(a), str(b))
    assert code == 1
    assert out["schema"] == "dsh-tui/diff/1"
    first = out["first_divergence"]
    assert first["kind"] == PLANTED[pair]
    assert (first["left_seq"], first["right_seq"]) == (call_seq(a, "c4a"), call_seq(b, "c4b"))
    assert (first["left_turn"], first["right_turn"]) == (2, 2)
    assert [c["callId"] for c in out["calls"]["changed"]] == ["c4a"]
    assert not out["calls"]["only_left"] and not out["calls"]["only_right"]
    # The first call's arguments differ only in key order and spacing: the same call.
    assert "c1a" in [c["callId"] for c in out["calls"]["same"]]


@pytest.mark.parametrize("pair", sorted(PLANTED))
def test_swapping_a_and_b_swaps_the_sides(pair, capsys):
    a, b = log_of(f"{pair}-a"), log_of(f"{pair}-b")
    _, ab = diff_json(capsys, str(a), str(b))
    _, ba = diff_json(capsys, str(b), str(a))
    f, g = ab["first_divergence"], ba["first_divergence"]
    assert (g["left_seq"], g["right_seq"], g["kind"]) == (f["right_seq"], f["left_seq"], f["kind"])
    assert [c["callId"] for c in ba["calls"]["changed"]] == ["c4b"]
    assert ba["summary"]["left"] == ab["summary"]["right"] and ba["summary"]["right"] == ab["summary"]["left"]
    assert ba["verdicts"] == {"left": ab["verdicts"]["right"], "right": ab["verdicts"]["left"]}


def test_a_log_against_itself_and_a_copy_is_the_same(tmp_path, capsys):
    a = log_of("args-a")
    copy = tmp_path / "copy.jsonl.zstd"
    shutil.copy(a, copy)
    for other in (a, copy):
        code, out = diff_json(capsys, str(a), str(other))
        assert code == 0
        assert out["first_divergence"] is None and out["same"] is True
        assert not out["calls"]["changed"] and not out["calls"]["only_left"] and not out["calls"]["only_right"]
        assert len(out["calls"]["same"]) == out["summary"]["left"]["tool_calls"] == 5


def test_a_fork_is_aligned_from_its_seed(capsys):
    src, fork = log_of("fork-src"), log_of("fork-child")
    code, out = diff_json(capsys, str(src), str(fork))
    assert code == 1
    first = out["first_divergence"]
    assert first["kind"] == "arguments"
    assert (first["left_seq"], first["right_seq"]) == (call_seq(src, "c3s"), call_seq(fork, "c3f"))
    shared = [c["callId"] for c in out["calls"]["same"] if c.get("shared")]
    assert shared == ["c1s", "c2s"]  # turn 1, inherited: shown once, as shared
    assert out["summary"]["turns_shared"] == 1
    _, back = diff_json(capsys, str(fork), str(src))
    g = back["first_divergence"]
    assert (g["left_seq"], g["right_seq"]) == (first["right_seq"], first["left_seq"])
    assert [c["callId"] for c in back["calls"]["same"] if c.get("shared")] == ["c1s", "c2s"]


def test_a_resumed_sessions_runs(capsys):
    log = log_of("resumed")
    code = main(["diff", str(log), "--runs", "--format", "json", "--no-cache"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    first = out["first_divergence"]
    assert first["kind"] == "stopped"  # run 1 crashed in c4 (dsh's repair closed it); run 2 completed it
    assert (first["left_seq"], first["right_seq"]) == (call_seq(log, "c4r"), call_seq(log, "c4r2"))
    assert out["left"]["end_index"] == out["right"]["first_index"]
    assert [c["callId"] for c in out["calls"]["same"]] == ["c3r"]
    assert [c["callId"] for c in out["calls"]["only_right"]] == ["c5r2"]


def test_usage_and_rejection_exit_codes(tmp_path, capsys):
    a = log_of("args-a")
    assert main(["diff", str(a)]) == 2  # one side only, without --runs
    assert main(["diff", str(a), "--runs", "--format", "json"]) == 2  # one run only
    assert main(["diff", str(a), str(a), "--runs"]) == 2
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"not a log\n")
    assert main(["diff", str(a), str(junk), "--format", "text"]) == 3
    assert main(["diff", str(tmp_path / "missing.jsonl"), str(a), "--format", "text"]) == 3
    no_depth = dict(HEADER)
    del no_depth["delegationDepth"]  # dsh refuses it
    refused = tmp_path / "refused.jsonl"
    refused.write_bytes(b"\n".join(lines_of([no_depth, ev("turn/start", 0, {"turn": 1})])) + b"\n")
    assert main(["diff", str(refused), str(a), "--format", "json"]) == 3
    assert "--lenient" in capsys.readouterr().err


def test_a_session_id_names_its_log_under_dsh_home(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    shutil.copytree(PARITY / "diff-cases", home / "sessions")
    monkeypatch.setenv("DSH_HOME", str(home))
    code, out = diff_json(capsys, "args-a", "args-b@12")
    assert code == 1 and out["first_divergence"]["kind"] == "arguments"
    assert out["right"]["session_id"] == "args-b"


def _crafted(tmp_path, name: str, args: str, prompt: str) -> Path:
    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": args}
    records = [
        ev("turn/start", 0, {"turn": 1}),
        ev("user/message", 1, {"id": "u1", "role": "user", "content": [{"type": "text", "text": prompt}],
                               "source": {"kind": "user"}}, surfaceOp="append"),
        ev("step/start", 2, {"turn": 1, "step": 1}),
        ev("assistant/message", 3, {"turn": 1, "step": 1, "message": {
            "id": "m1", "role": "assistant", "content": [call],
            "source": {"kind": "model", "provider": "p", "model": "m"}}}, surfaceOp="append"),
        ev("tool/call", 4, {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": args}),
        result(5, "c1"),
    ]
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines_of([HEADER, *records])) + b"\n")
    return path


def test_text_is_sanitised_and_markdown_masked(tmp_path, capsys):
    secret = "sk-" + "a1B2c3D4" * 5
    a = _crafted(tmp_path, "a.jsonl", '{"command":"ls"}', "deploy \x1b]52;c;aGk=\x07 now")
    b = _crafted(tmp_path, "b.jsonl", '{"command":"curl -H \'Authorization: Bearer ' + secret + '\'"}',
                 "deploy \x1b]52;c;aGk=\x07 now")
    assert main(["diff", str(a), str(b), "--format", "text", "--no-cache"]) == 1
    text = capsys.readouterr().out
    assert "\x1b" not in text and "\x07" not in text
    assert secret[:12] in text  # the text report is the user's own terminal: unmasked, but inert
    assert main(["diff", str(a), str(b), "--format", "markdown", "--no-cache"]) == 1
    md = capsys.readouterr().out
    assert secret[:12] not in md and "\x1b" not in md
    assert "arguments" in md
    assert main(["diff", str(a), str(b), "--format", "json", "--no-cache"]) == 1
    raw = capsys.readouterr().out
    assert "\x1b" not in raw and "\\u001b" not in raw  # (prompts are not in the JSON; no control is raw)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    if shutil.which("npm") is None:
        pytest.skip("npm not installed")
    tmp = tmp_path_factory.mktemp("diffref")
    ref = install_reference(tmp, PARITY / "write_diff_pairs.mjs")
    if ref is None:
        pytest.skip("dsh's reference packages cannot be installed here (no ../shared/dsh-reference, npm or registry)")
    out = tmp / "out"
    done = subprocess.run([str(ref / "node_modules" / ".bin" / "node"), "write_diff_pairs.mjs", str(out)], cwd=ref,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return out / "--home-user-parity--"


def test_the_pairs_written_afresh_diverge_where_the_committed_ones_do(fresh, capsys):
    for pair, kind in PLANTED.items():
        a, b = fresh / f"{pair}-a" / "session.jsonl.zstd", fresh / f"{pair}-b" / "session.jsonl.zstd"
        _, out = diff_json(capsys, str(a), str(b))
        assert out["first_divergence"]["kind"] == kind
        assert out["first_divergence"]["left_seq"] == call_seq(a, "c4a")


def test_a_side_read_in_a_forked_child_gives_the_same_answer(tmp_path, monkeypatch, capsys):
    """Big logs are read at once, B in a forked child (diffcmd.FORK_AT): the same report, and a
    refusal in the child is still exit 3."""
    from dsh_tui import diffcmd
    a, b = log_of("args-a"), log_of("args-b")
    _, here = diff_json(capsys, str(a), str(b))
    monkeypatch.setattr(diffcmd, "FORK_AT", 0)
    opened_here: list[str] = []
    real = diffcmd.open_side
    monkeypatch.setattr(diffcmd, "open_side", lambda path, *rest: opened_here.append(path) or real(path, *rest))
    _, forked = diff_json(capsys, str(a), str(b))
    assert forked == here
    assert opened_here == [str(a)]  # B was read in the child (a copy of this process: its calls not seen here)
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"not a log\n")
    assert main(["diff", str(a), str(junk), "--format", "json", "--no-cache"]) == 3
    assert main(["diff", str(junk), str(b), "--format", "json", "--no-cache"]) == 3
    assert no_children(wait=10)  # B's reader was stopped and reaped when A was refused


def _one_call_log(tmp_path, name: str, *, model: str = "m", writes: dict | None = None) -> Path:
    """A turn with one write call whose result meta lists ``writes`` (path -> new text), as dsh-tool-fs does."""
    args = '{"file_path":"a.txt"}'
    call = {"type": "tool-call", "id": "c1", "name": "write", "arguments": args}
    meta = {"diffs": [{"path": p, "oldText": None, "newText": t} for p, t in (writes or {}).items()]}
    records = [
        ev("turn/start", 0, {"turn": 1}),
        ev("step/start", 1, {"turn": 1, "step": 1}),
        ev("user/message", 2, {"id": "u1", "role": "user", "content": [{"type": "text", "text": "write it"}],
                               "source": {"kind": "user"}}, surfaceOp="append"),
        ev("request/header", 3, {"header": {"config": {"provider": "p", "model": model},
                                            "tools": [{"name": "write", "description": "", "parameters": {}}]},
                                 "reason": "initial"}),
        ev("assistant/message", 4, {"turn": 1, "step": 1, "message": {
            "id": "m1", "role": "assistant", "content": [call],
            "source": {"kind": "model", "provider": "p", "model": model}}}, surfaceOp="append"),
        ev("tool/call", 5, {"turn": 1, "step": 1, "callId": "c1", "name": "write", "arguments": args}),
        result(6, "c1", meta=meta),
        ev("step/end", 7, {"turn": 1, "step": 1}),
        ev("turn/end", 8, {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines_of([HEADER, *records])) + b"\n")
    return path


def test_another_model_is_a_divergence_of_its_own(tmp_path, capsys):
    a = _one_call_log(tmp_path, "a.jsonl", model="deepseek-v4-flash")
    b = _one_call_log(tmp_path, "b.jsonl", model="deepseek-v4-pro")
    code, out = diff_json(capsys, str(a), str(b))
    assert code == 1
    assert out["first_divergence"]["kind"] == "model"
    assert (out["first_divergence"]["left_seq"], out["first_divergence"]["right_seq"]) == (0, 0)  # the turn's start


def test_files_touched_added_dropped_changed(tmp_path, capsys):
    a = _one_call_log(tmp_path, "a.jsonl", writes={"a.txt": "one", "gone.txt": "x"})
    b = _one_call_log(tmp_path, "b.jsonl", writes={"a.txt": "two", "new.txt": "y"})
    _, out = diff_json(capsys, str(a), str(b))
    assert out["summary"]["files"] == {"added": ["new.txt"], "dropped": ["gone.txt"], "changed": ["a.txt"]}
    same = _one_call_log(tmp_path, "c.jsonl", writes={"a.txt": "one", "gone.txt": "x"})
    _, out = diff_json(capsys, str(a), str(same))
    assert out["summary"]["files"] == {"added": [], "dropped": [], "changed": []}


def test_session_directories_name_their_logs(capsys):
    code, out = diff_json(capsys, str(CASES / "args-a"), str(CASES / "args-b"))
    assert code == 1 and out["first_divergence"]["kind"] == "arguments"


def test_a_side_the_divergence_is_missing_from_reads_nothing_not_none(capsys):
    """A turn on one side only: the text says where on the other side there is nothing, in words."""
    for a, b in ((log_of("fork-src"), log_of("resumed")), (log_of("resumed"), log_of("fork-src"))):
        for fmt in ("text", "markdown"):
            main(["diff", str(a), str(b), "--format", fmt, "--no-cache"])
            out = capsys.readouterr().out
            assert "First divergence" in out
            assert "None" not in out, out
