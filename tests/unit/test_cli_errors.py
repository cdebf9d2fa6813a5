"""The command line's own errors: sizes that are no size, and exceptions that escape a command,
end as one line and a documented exit code (2 usage, 3 rejected input, 4 internal), never a
traceback or an exit 1 that scripts would read as findings."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dsh_tui import cli
from dsh_tui.cli import main
from dsh_tui.cliargs import size as _size

from ..support.hostile_listings import chain_root


@pytest.mark.parametrize("text", ["inf", "1e400", "-inf", "nan", "infinity", "1e400k", "-5", "0", "0.0001",
                                  "garbage", "", "k", "1e19"])
def test_a_size_that_is_no_finite_positive_size_is_a_usage_error(tmp_path, capsys, text):
    log = tmp_path / "session.jsonl"
    log.write_text("{}\n")
    for argv in (["check", str(log)], [str(log)]):
        assert main([*argv, f"--max-plain-size={text}"]) == 2
        err = capsys.readouterr().err
        assert "--max-plain-size" in err and "Traceback" not in err, err


@pytest.mark.parametrize("text,value", [("512M", 512 << 20), ("4G", 4 << 30), ("4GiB", 4 << 30), ("1.5k", 1536),
                                        ("100", 100), (" 2 mb ", 2 << 20), ("1e3", 1000), ("8t", 8 << 40)])
def test_sizes(text, value):
    assert _size(text) == value


def _raising(exc: BaseException):
    def run(_argv):
        raise exc
    return run


def test_an_internal_error_is_one_line_and_exit_4(monkeypatch, capsys):
    monkeypatch.setattr(cli, "run_check", _raising(KeyError("x\x1b[2J\nsecond line")))
    assert main(["check", "whatever"]) == cli.EXIT_INTERNAL == 4
    err = capsys.readouterr().err
    assert err.startswith("dsh-tui: internal error: KeyError: ") and err.count("\n") == 1, err
    assert "bug" in err and "report" in err and "\x1b" not in err


@pytest.mark.parametrize("exc,words", [(RecursionError("maximum recursion depth exceeded"), "nests too deeply"),
                                       (MemoryError(), "out of memory")])
def test_input_too_deep_or_too_big_for_the_reader_is_exit_3(monkeypatch, capsys, exc, words):
    import dsh_tui.sessions.ls
    for command, target in (("check", (cli, "run_check")), ("ls", (dsh_tui.sessions.ls, "main_ls"))):
        monkeypatch.setattr(*target, _raising(exc))
        assert main([command, "x"]) == 3
        err = capsys.readouterr().err
        assert err.startswith("dsh-tui: ") and words in err and err.count("\n") == 1, err


def test_a_reader_that_goes_away_ends_the_listing_quietly(tmp_path):
    """`dsh-tui ls | head`: the pipe closes before the listing is written (more than a pipe holds)."""
    root = tmp_path / "sessions"
    chain_root(root, 1000)
    proc = subprocess.Popen([sys.executable, "-m", "dsh_tui", "ls", str(root), "--no-status"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == "", err


def test_check_json_on_the_command_line_is_inert_and_exact(write_jsonl, capsys):
    """`check --format json` prints through the one JSON writer: 8-bit CSI and bidi controls in a log
    are escapes, not bytes a terminal acts on, and the value they stand for is unchanged."""
    import json

    from ..support.logs import ev
    text = "a\u009b31m\u202eb"
    path = write_jsonl([ev("turn/start", 0, {"turn": 1}), ev("feedback/record", 1, {"text": text})])
    assert main(["check", str(path), "--format", "json", "--no-cache"]) == 1  # the open turn
    out = capsys.readouterr().out
    assert "\u009b" not in out and "\u202e" not in out
    assert json.loads(out)["file"] == str(path)


def test_check_of_a_truncated_export_zip_says_so(tmp_path, capsys):
    import zipfile
    good = tmp_path / "dsh-session-x.zip"
    with zipfile.ZipFile(good, "w") as zf:
        zf.writestr("session.jsonl", b'{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0}\n')
    cut = tmp_path / "cut.zip"
    cut.write_bytes(good.read_bytes()[:40])
    assert main(["check", str(cut), "--no-cache"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable ZIP archive" in err, err


def test_check_says_once_why_the_index_cache_is_off(write_jsonl, tmp_path, monkeypatch, capsys):
    """A cache directory others may write is not used; check says so on stderr and its verdict and exit
    code are those of a fresh read."""
    from dsh_tui.model.opening import cache

    from ..support.logs import crash_records
    cache_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.delenv("DSH_TUI_NO_CACHE", raising=False)
    path = write_jsonl(crash_records())
    cache.entry_path(path).parent.mkdir(parents=True)
    cache.entry_path(path).write_bytes(b"planted")  # an entry to look at, in a directory others may write
    (cache_home / "dsh-tui").chmod(0o777)
    cache._refused.clear()
    assert main(["check", str(path), "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "index cache off" in err and "writable" in err, err
