"""$DSH_HOME read one way by `ls`, the browser and permalinks (sessions/locate.py: sessions_root), and every
filesystem error on it exit 3 with one line, never exit 4 ("internal error")."""

from __future__ import annotations

import os
import sys

import pytest

from dsh_tui.cli import main, ui_target
from dsh_tui.sessions.locate import LocateError, Permalink, resolve_permalink, sessions_root

from ..support.session_roots import APP, T0, header, write_session

COMMANDS = (["check", "sess-a@1", "--no-cache"], ["sess-a@1"], [], ["ls", "--no-status"])


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))


def _run(argv, capsys):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_dsh_home_with_a_name_too_long_is_exit_3(tmp_path, monkeypatch, capsys, xdg, argv):
    monkeypatch.setenv("DSH_HOME", str(tmp_path / ("x" * 300)))
    code, out, err = _run(argv, capsys)
    assert code == 3 and not out, err
    assert "internal error" not in err and err.count("\n") == 1 and "too long" in err


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_dsh_home_through_a_file_is_exit_3(tmp_path, monkeypatch, capsys, xdg, argv):
    (tmp_path / "afile").write_text("")
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "afile" / "home"))
    code, out, err = _run(argv, capsys)
    assert code == 3 and not out and "internal error" not in err and err.count("\n") == 1, err


def _as_another_user(argv) -> tuple[int, str]:
    """``main(argv)`` run in a forked child as uid/gid 65534 (root bypasses permissions): (exit code, stderr)."""
    import dsh_tui.model.sessions.discovery  # noqa: F401 - imported before the fork: the child may not read the source
    import dsh_tui.sessions.ls  # noqa: F401
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            os.dup2(w, 2)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            sys.stderr = os.fdopen(2, "w", closefd=False)
            code = main(list(argv))
            sys.stderr.flush()
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        err = fh.read().decode("utf-8", "replace")
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), err


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_dsh_home_the_user_cannot_read_is_exit_3(tmp_path, monkeypatch, capsys, xdg, argv):
    home = tmp_path / "locked" / "dsh"
    write_session(home / "sessions", header("sess-a", T0, APP))
    monkeypatch.setenv("DSH_HOME", str(home))
    os.chmod(tmp_path / "locked", 0o700)
    if os.geteuid() == 0:
        if not hasattr(os, "fork") or not hasattr(os, "setuid"):
            pytest.skip("needs fork and setuid to read as another user")
        monkeypatch.setenv("XDG_CACHE_HOME", "/nonexistent-cache")
        monkeypatch.setenv("XDG_STATE_HOME", "/nonexistent-state")
        code, err = _as_another_user(argv)
    else:
        os.chmod(tmp_path / "locked", 0)
        try:
            code, _out, err = _run(argv, capsys)
        finally:
            os.chmod(tmp_path / "locked", 0o700)
    assert code == 3, err
    assert "internal error" not in err and err.count("\n") == 1 and "ermission denied" in err, err


# -- one resolver -----------------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "dsh" / "sessions"
    write_session(root, header("sess-a", T0, APP))
    return root


def test_ls_reads_dsh_home_naming_the_sessions_folder_as_the_browser_does(root, monkeypatch, capsys, xdg):
    monkeypatch.setenv("DSH_HOME", str(root))
    assert ui_target(None, False)[:2] == ("browse", root)
    code, out, err = _run(["ls", "--no-status"], capsys)
    assert code == 0 and "1 session" in out and str(root) in out
    assert f"did you mean DSH_HOME={root.parent}?" in err and err.count("\n") == 1


def test_a_suggestion_names_only_a_home_whose_sessions_folder_exists(tmp_path, monkeypatch, capsys, xdg):
    store = tmp_path / "data" / "store"  # a sessions folder under another name: no DSH_HOME finds it
    log = write_session(store, header("sess-a", T0, APP))
    for given in (store, log.parent.parent):
        monkeypatch.setenv("DSH_HOME", str(given))
        got, note = sessions_root()
        assert got == given and "did you mean" not in note
        assert resolve_permalink(Permalink("sess-a", 1)) == log
        code, out, err = _run(["ls", "--no-status"], capsys)
        assert code == 0 and "did you mean" not in err


def test_every_suggestion_made_exists(root, monkeypatch):
    project = next(root.iterdir())
    for given in (root, project):
        monkeypatch.setenv("DSH_HOME", str(given))
        note = sessions_root()[1]
        suggested = note.split("did you mean DSH_HOME=")[1].rstrip("?")
        assert (os.path.isdir(suggested) and os.path.samefile(os.path.join(suggested, "sessions"), root)), note


# -- permalinks stay inside the root ----------------------------------------------------------------------


def test_a_permalink_does_not_follow_a_session_folder_linked_out_of_the_root(root, tmp_path, monkeypatch, capsys, xdg):
    outside = write_session(tmp_path / "elsewhere", header("sess-out", T0, APP))
    project = next(root.iterdir())
    (project / "sess-out").symlink_to(outside.parent, target_is_directory=True)
    monkeypatch.setenv("DSH_HOME", str(root.parent))
    with pytest.raises(LocateError, match="link out of the sessions root"):
        ui_target("sess-out@1", False)
    code, out, err = _run(["check", "sess-out@1", "--no-cache"], capsys)
    assert code == 3 and not out and "link out of the sessions root" in err and err.count("\n") == 1
    assert main(["check", str(outside), "--no-cache"]) in (0, 1)  # named by its path, it opens


def test_a_permalink_does_not_follow_a_log_linked_out_of_the_root(root, tmp_path, monkeypatch, xdg):
    outside = write_session(tmp_path / "elsewhere", header("sess-b", T0, APP))
    folder = next(root.iterdir()) / "sess-b"
    folder.mkdir()
    (folder / outside.name).symlink_to(outside)
    monkeypatch.setenv("DSH_HOME", str(root.parent))
    with pytest.raises(LocateError, match="link out of the sessions root"):
        resolve_permalink(Permalink("sess-b", 0))
    assert resolve_permalink(Permalink("sess-a", 0)).parent.name == "sess-a"  # the rest still opens


# -- a permalink's seq past the log's end -----------------------------------------------------------------


def test_check_of_a_permalink_past_the_end_is_a_usage_error_with_the_range(root, monkeypatch, capsys, xdg):
    monkeypatch.setenv("DSH_HOME", str(root.parent))
    code, out, err = _run(["check", "sess-a@999", "--no-cache"], capsys)
    assert code == 2 and not out and err.count("\n") == 1
    assert "sess-a@999: no event has seq 999 (after the last; seqs run 0–" in err
    code, out, _ = _run(["check", "sess-a@3", "--no-cache"], capsys)
    assert code in (0, 1) and out  # a seq the log has: the report


def test_the_explorer_says_a_permalink_seq_is_past_the_end(root):
    from dsh_tui.model.reading.session import load_session
    from dsh_tui.sessions.locate import missing_seq
    log = load_session(next(root.rglob("session.jsonl*")))
    last = log.seq_of(len(log) - 1)
    assert missing_seq(log, 0) is None and missing_seq(log, last) is None
    assert missing_seq(log, 999) == f"no event has seq 999 (after the last; seqs run 0–{last})"
