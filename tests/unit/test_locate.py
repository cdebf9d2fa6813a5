"""Command-line targets: permalinks found under the sessions root, `--at` values, session directories, and
a $DSH_HOME that names the sessions folder or a project folder instead of dsh's home."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_tui.sessions.locate import (LocateError, Permalink, find_session, parse_at, parse_permalink,
                                     resolve_permalink, session_dir_log, sessions_root)

from ..support.session_roots import APP, OTHER, T0, header, write_session


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "dsh"))
    root = tmp_path / "dsh" / "sessions"
    logs = {sid: write_session(root, header(sid, T0, cwd)) for sid, cwd in
            [("sess-a", APP), ("sess/b", OTHER), ("..", APP)]}
    return root, logs


def test_a_permalink_is_an_id_and_a_seq():
    assert parse_permalink("sess-a@42") == Permalink("sess-a", 42)
    assert str(Permalink("sess-a", 42)) == "sess-a@42"
    for text in ("sess-a", "@42", "sess-a@", "sess-a@4x", "a b@3", "sess-a@" + "9" * 19):
        assert parse_permalink(text) is None, text


def test_at_takes_a_seq_or_a_permalink():
    assert parse_at("17") == (None, 17)
    assert parse_at(" sess-a@17 ") == ("sess-a", 17)
    with pytest.raises(ValueError, match="SEQ or SESSION-ID@SEQ"):
        parse_at("-3")
    with pytest.raises(ValueError) as err:
        parse_at("x\x1b]0;pwn\x07")
    assert "\x1b" not in str(err.value) and "\x07" not in str(err.value)


def test_a_permalink_finds_its_session_under_dsh_home(home):
    root, logs = home
    assert sessions_root() == (root, None)
    assert resolve_permalink(Permalink("sess-a", 3)) == logs["sess-a"]
    assert resolve_permalink(Permalink("sess/b", 3)) == logs["sess/b"]  # encoded as dsh encodes it
    assert resolve_permalink(Permalink("..", 0)) == logs[".."]  # never the parent folder


def test_an_unknown_or_escaping_id_is_a_one_line_error(home):
    root, _ = home
    for sid in ("nope", "../sessions", "/etc/passwd", "sess-a/../sess-a"):
        with pytest.raises(LocateError) as err:
            resolve_permalink(Permalink(sid, 1))
        assert "no session" in str(err.value) and "\n" not in str(err.value)


def test_a_session_in_two_projects_is_named_not_guessed(tmp_path):
    root = tmp_path / "sessions"
    write_session(root, header("twice", T0, APP))
    write_session(root, header("twice", T0, OTHER))
    assert len(find_session(root, "twice")) == 2
    with pytest.raises(LocateError, match="in 2 projects"):
        resolve_permalink(Permalink("twice", 1), root)


def test_a_session_directory_holds_its_log(home):
    _, logs = home
    assert session_dir_log(logs["sess-a"].parent) == logs["sess-a"]
    assert session_dir_log(logs["sess-a"].parent.parent) is None


def test_dsh_home_naming_the_sessions_folder_is_understood_with_a_hint(home, monkeypatch):
    root, logs = home
    monkeypatch.setenv("DSH_HOME", str(root))
    got, note = sessions_root()
    assert got == root and "did you mean DSH_HOME=" + str(root.parent) in note
    assert resolve_permalink(Permalink("sess-a", 1)) == logs["sess-a"]


def test_dsh_home_naming_a_project_folder_is_understood_with_a_hint(home, monkeypatch):
    root, logs = home
    project = logs["sess-a"].parent.parent
    monkeypatch.setenv("DSH_HOME", str(project))
    got, note = sessions_root()
    assert got == project and "project folder" in note and f"DSH_HOME={root.parent}" in note
    assert resolve_permalink(Permalink("sess-a", 1)) == logs["sess-a"]


def test_a_dsh_home_that_is_neither_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("DSH_HOME", str(tmp_path))
    assert sessions_root() == (tmp_path / "sessions", None)


# -- the command line -------------------------------------------------------------------------------


def run_check(*argv, capsys):
    from dsh_tui.cli import main
    code = main(["check", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_reads_a_session_directory_as_its_log(home, capsys):
    _, logs = home
    code, out, err = run_check(str(logs["sess-a"].parent), "--format", "json", "--no-cache", capsys=capsys)
    assert code in (0, 1) and '"id":"sess-a"' in out.replace(" ", "") and not err


def test_check_on_a_root_or_project_names_ls(home, capsys):
    root, logs = home
    for where in (root, logs["sess-a"].parent.parent):
        code, out, err = run_check(str(where), capsys=capsys)
        assert code == 2 and not out
        assert "sessions: `dsh-tui ls" in err and err.count("\n") == 1


def test_check_on_an_empty_directory_says_so(tmp_path, capsys):
    code, _, err = run_check(str(tmp_path), capsys=capsys)
    assert code == 3 and "no session log" in err


def test_check_takes_a_permalink(home, capsys):
    code, out, _ = run_check("sess/b@2", "--format", "json", "--no-cache", capsys=capsys)
    assert code in (0, 1) and '"id":"sess/b"' in out.replace(" ", "")
    code, out, err = run_check("nobody@2", capsys=capsys)
    assert code == 3 and "no session nobody under" in err and not out


def test_check_with_dsh_home_on_the_sessions_folder_notes_it(home, monkeypatch, capsys):
    root, _ = home
    monkeypatch.setenv("DSH_HOME", str(root))
    code, _, err = run_check("sess-a@1", "--no-cache", capsys=capsys)
    assert code in (0, 1) and f"did you mean DSH_HOME={root.parent}?" in err


def test_the_explorer_opens_a_permalink_at_its_event(home):
    from dsh_tui.cli import ui_target
    _, logs = home
    assert ui_target("sess-a@7", False) == ("explore", logs["sess-a"], None, 7)
    assert ui_target(None, False, "sess-a@9") == ("explore", logs["sess-a"], None, 9)
    assert ui_target(str(logs["sess-a"]), False, "12") == ("explore", logs["sess-a"], None, 12)
    assert ui_target(str(logs["sess-a"]), False, "sess-a@12")[3] == 12
    with pytest.raises(LocateError):
        ui_target("ghost@1", False)
    with pytest.raises(ValueError):
        ui_target(None, False, "twelve")


def test_a_file_named_like_a_permalink_is_a_file(tmp_path, monkeypatch, home):
    _, logs = home
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sess-a@7").write_bytes(logs["sess-a"].read_bytes())
    from dsh_tui.cli import ui_target
    assert ui_target("sess-a@7", False) == ("explore", Path("sess-a@7"), None, None)


def test_a_bad_at_is_a_usage_error(capsys, monkeypatch):
    from dsh_tui.cli import main
    assert main(["--at", "x@y", "--demo"]) == 2
    assert "--at takes SEQ or SESSION-ID@SEQ" in capsys.readouterr().err
