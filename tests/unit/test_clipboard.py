"""Tests for dsh_tui.clipboard: report file, OSC 52 layering, native guard."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from dsh_tui import clipboard
from dsh_tui.clipboard import (OSC52_MAX_BYTES, TMUX_HINT, CopyResult, copy_layered, copy_native,
                               local_clipboard_plausible, report_dir, write_report_file)

_NAME = re.compile(r"^bug-report-\d{8}-\d{6}(-\d+)?\.txt$")
_DISPLAY_VARS = ("DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT",
                 "WSL_DISTRO_NAME", "WSL_INTEROP")


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


@pytest.fixture
def headless(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine has no display; make sure the test does not depend on the caller's env."""
    for name in _DISPLAY_VARS:
        monkeypatch.delenv(name, raising=False)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --------------------------------------------------------------------------- report file


def test_report_dir_uses_xdg_state_home(state_home: Path) -> None:
    assert report_dir() == state_home / "dsh-tui" / "reports"


def test_report_dir_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert report_dir() == tmp_path / ".local" / "state" / "dsh-tui" / "reports"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/dir")  # ignored per XDG spec
    assert report_dir() == tmp_path / ".local" / "state" / "dsh-tui" / "reports"


def test_write_report_file_mode_0600_in_private_dir(state_home: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_report_file("hello ✓\nline 2\n")
    finally:
        os.umask(old)
    assert path.parent == state_home / "dsh-tui" / "reports"
    assert _NAME.match(path.name), path.name
    assert path.read_text(encoding="utf-8") == "hello ✓\nline 2\n"
    assert _mode(path) == 0o600
    for d in (state_home, state_home / "dsh-tui", path.parent):
        assert _mode(d) == 0o700, d


def test_write_report_file_never_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class FrozenDatetime(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return cls(2025, 1, 2, 3, 4, 5)

    monkeypatch.setattr(clipboard, "datetime", FrozenDatetime)
    paths = [write_report_file(f"report {i}", directory=tmp_path, stem="snap") for i in range(3)]
    assert [p.name for p in paths] == [
        "snap-20250102-030405.txt",
        "snap-20250102-030405-1.txt",
        "snap-20250102-030405-2.txt",
    ]
    assert [p.read_text() for p in paths] == ["report 0", "report 1", "report 2"]


def test_write_report_file_does_not_follow_symlink(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class FrozenDatetime(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return cls(2025, 1, 2, 3, 4, 5)

    monkeypatch.setattr(clipboard, "datetime", FrozenDatetime)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (tmp_path / "bug-report-20250102-030405.txt").symlink_to(victim)
    path = write_report_file("new", directory=tmp_path)
    assert path.name == "bug-report-20250102-030405-1.txt"
    assert victim.read_text() == "keep me"


def test_write_report_file_sanitises_stem_and_surrogates(tmp_path: Path) -> None:
    path = write_report_file("bad \ud800 surrogate", directory=tmp_path, stem="../../etc/x y")
    assert path.parent == tmp_path
    assert re.match(r"^etc_x_y-\d{8}-\d{6}\.txt$", path.name), path.name
    assert path.read_text(encoding="utf-8") == "bad \\ud800 surrogate"


# --------------------------------------------------------------------------- copy_layered


def test_copy_layered_file_then_osc52(state_home: Path, headless: None) -> None:
    sent: list[str] = []
    text = "bug report ✓\n" * 10
    result = copy_layered(text, osc52=sent.append, use_native=False)
    assert isinstance(result, CopyResult)
    assert sent == [text]
    assert result.osc52 is True
    assert result.native is None
    assert result.path is not None and result.path.read_text(encoding="utf-8") == text
    assert _mode(result.path) == 0o600
    assert result.path.parent == state_home / "dsh-tui" / "reports"
    assert TMUX_HINT in result.notes
    assert any(str(result.path) in n for n in result.notes)


def test_tmux_hint_text() -> None:
    assert "set -s set-clipboard on" in TMUX_HINT
    assert "set -as terminal-features ',xterm-256color:clipboard'" in TMUX_HINT


def test_copy_layered_osc52_limit_is_in_utf8_bytes(tmp_path: Path) -> None:
    sent: list[str] = []
    exact = "a" * OSC52_MAX_BYTES
    result = copy_layered(exact, osc52=sent.append, directory=tmp_path, use_native=False)
    assert sent == [exact] and result.osc52

    sent.clear()
    wide = "é" * (OSC52_MAX_BYTES // 2 + 1)  # fewer chars than the cap, more bytes
    result = copy_layered(wide, osc52=sent.append, directory=tmp_path, use_native=False)
    assert len(sent) == 1 and sent[0] != wide
    assert result.osc52 is False


def test_copy_layered_large_text_sends_stub_naming_path(tmp_path: Path) -> None:
    sent: list[str] = []
    text = "x" * (OSC52_MAX_BYTES + 1)
    result = copy_layered(text, osc52=sent.append, directory=tmp_path, use_native=False)
    assert result.path is not None
    assert result.path.read_text() == text  # the file still has everything
    assert len(sent) == 1
    stub = sent[0]
    assert str(result.path) in stub
    assert len(stub) < 1000
    assert result.osc52 is False
    assert any("Too large for OSC 52" in n for n in result.notes)
    assert TMUX_HINT in result.notes


def test_copy_layered_surrogates_do_not_break_osc52(tmp_path: Path) -> None:
    sent: list[str] = []
    result = copy_layered("a \ud83d b", osc52=sent.append, directory=tmp_path, use_native=False)
    assert sent == ["a \u27e8U+D83D\u27e9 b"]  # shown as the sanitiser shows it everywhere
    sent[0].encode("utf-8")
    assert result.osc52 is True and result.path is not None
    assert result.path.read_text(encoding="utf-8") == sent[0] == result.text


# A log's text as a copy key hands it over: terminal controls, a line that retitles the terminal
# and writes the clipboard when pasted, and secrets of several shapes.
HOSTILE = ("callId call_x\x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 \x9b31m \u202egnp.exe \u2028 \x7f\r\n"
           "Authorization: Bearer Zq8xK2mN7vB4cR9tY1wE5uJ3\n"
           "key sk-proj-Zq8xK2mN7vB4cR9tY1wE5uJ3 and ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
TERMINAL_ACTIVE = ("\x1b", "\x07", "\x9b", "\u202e", "\u2028", "\x7f", "\r")


def test_copy_layered_masks_and_sanitises_file_and_both_clipboards(tmp_path: Path, monkeypatch) -> None:
    """One prepared text goes to the report file, OSC 52 and pyperclip: masked, no raw control."""
    native: list[str] = []
    monkeypatch.setattr(clipboard, "_copy_native_detail", lambda text, timeout: (native.append(text), ("x", "ok"))[1])
    sent: list[str] = []
    result = copy_layered(HOSTILE, osc52=sent.append, directory=tmp_path)
    saved = result.path.read_text(encoding="utf-8")
    for out in (sent[0], saved, native[0], result.text):
        assert out == result.text
        assert not any(c in out for c in TERMINAL_ACTIVE), repr(out)
        assert "Zq8xK2mN7vB4cR9tY1wE5uJ3" not in out and "abcdefghijklmnop" not in out
        assert out.count("[redacted]") == 3 and "␛]52;c;ZXZpbA==␇" in out and "⟨U+202E⟩" in out
    assert result.masked is True


def test_copy_layered_unmasked_on_purpose_is_still_sanitised(tmp_path: Path) -> None:
    sent: list[str] = []
    result = copy_layered(HOSTILE, osc52=sent.append, directory=tmp_path, use_native=False, mask=False)
    assert "Bearer Zq8xK2mN7vB4cR9tY1wE5uJ3" in sent[0] and "[redacted]" not in sent[0]
    assert not any(c in sent[0] for c in TERMINAL_ACTIVE)
    assert result.path.read_text(encoding="utf-8") == sent[0] and result.masked is False


def test_copy_layered_never_raises(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")

    def boom(_text: str) -> None:
        raise RuntimeError("terminal went away")

    result = copy_layered("text", osc52=boom, directory=not_a_dir / "sub", use_native=False)
    assert result.path is None
    assert result.osc52 is False
    assert any("Could not write the report file" in n for n in result.notes)
    assert any("terminal went away" in n for n in result.notes)


def test_copy_layered_stub_when_file_failed(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    sent: list[str] = []
    result = copy_layered("y" * (OSC52_MAX_BYTES + 10), osc52=sent.append, directory=not_a_dir)
    assert result.path is None
    assert len(sent) == 1 and "could not be written" in sent[0]


def test_copy_layered_without_osc52(tmp_path: Path) -> None:
    result = copy_layered("t", osc52=None, directory=tmp_path, use_native=False)
    assert result.osc52 is False
    assert result.path is not None and result.path.exists()


# --------------------------------------------------------------------------- plausibility


@pytest.mark.parametrize(
    "env,platform,expected",
    [
        ({}, "linux", False),
        ({"DISPLAY": ":0"}, "linux", True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
        ({"DISPLAY": ""}, "linux", False),
        ({"DISPLAY": ":0", "SSH_CONNECTION": "1.2.3.4 5 6.7.8.9 22"}, "linux", False),
        ({"DISPLAY": "localhost:10.0", "SSH_CLIENT": "1.2.3.4 5 22"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0", "SSH_TTY": "/dev/pts/3"}, "linux", False),
        ({}, "darwin", True),
        ({"SSH_CONNECTION": "1.2.3.4 5 6.7.8.9 22"}, "darwin", False),
        ({}, "win32", True),
        ({}, "cygwin", True),
        ({"SSH_TTY": "/dev/pts/0"}, "win32", False),
        ({"WSL_DISTRO_NAME": "Ubuntu"}, "linux", True),
        ({}, "wsl", True),
        ({"WSL_DISTRO_NAME": "Ubuntu", "SSH_CONNECTION": "x"}, "linux", False),
        ({}, "freebsd14", False),
        ({"DISPLAY": ":0"}, "freebsd14", True),
    ],
)
def test_local_clipboard_plausible(env: dict[str, str], platform: str, expected: bool) -> None:
    assert local_clipboard_plausible(env, platform) is expected


def test_local_clipboard_plausible_defaults_to_process_env(headless: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # This (Linux, non-WSL, headless) machine: no display means no local clipboard.
    assert local_clipboard_plausible() is False
    monkeypatch.setenv("DISPLAY", ":0")
    assert local_clipboard_plausible() is True
    monkeypatch.setenv("SSH_CONNECTION", "1.2.3.4 5 6.7.8.9 22")
    assert local_clipboard_plausible() is False


# --------------------------------------------------------------------------- native (real pyperclip)


def test_headless_copy_layered_with_native(state_home: Path, headless: None, capfd: pytest.CaptureFixture[str]) -> None:
    """Real guard, real pyperclip (not mocked): no raise, native None, file written."""
    sent: list[str] = []
    result = copy_layered("report body", osc52=sent.append, use_native=True)
    assert result.native is None
    assert result.path is not None and result.path.read_text() == "report body"
    assert sent == ["report body"]
    assert any("skipped pyperclip" in n.lower() for n in result.notes)
    assert copy_native("report body") is None
    assert capfd.readouterr().err == ""


def test_stale_display_is_not_handed_to_xclip(headless: None, monkeypatch: pytest.MonkeyPatch,
                                              capfd: pytest.CaptureFixture[str]) -> None:
    """DISPLAY points at no X server: skipped before any backend can write to fd 2."""
    if not sys.platform.startswith("linux") or clipboard._is_wsl(os.environ, None):
        pytest.fail("this test expects the Linux CI machine")
    monkeypatch.setenv("DISPLAY", ":987")
    assert local_clipboard_plausible() is True
    name, note = clipboard._copy_native_detail("x", 2.0)
    assert name is None
    assert "not reachable" in note
    assert copy_native("x") is None
    assert capfd.readouterr().err == ""


def test_real_pyperclip_exception_is_caught(headless: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claim WSL so the guard lets pyperclip run; on this Linux box it finds no
    mechanism and raises PyperclipException inside the worker thread."""
    monkeypatch.setenv("WSL_DISTRO_NAME", "Fake")
    name, note = clipboard._copy_native_detail("x", 5.0)
    assert name is None
    assert "pyperclip failed" in note and "PyperclipException" in note


def test_pyperclip_is_imported_lazily() -> None:
    code = (
        "import sys, dsh_tui.clipboard; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pyperclip', 'textual')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- native (patched backend)


@pytest.fixture
def fake_local(headless: None, monkeypatch: pytest.MonkeyPatch):
    """Pretend to be on WSL so copy_native goes past the guard to pyperclip.copy."""
    import pyperclip

    monkeypatch.setenv("WSL_DISTRO_NAME", "Fake")
    return pyperclip


def test_copy_native_success(fake_local, monkeypatch: pytest.MonkeyPatch) -> None:
    got: list[str] = []
    monkeypatch.setattr(fake_local, "copy", got.append)
    assert copy_native("hello") == "pyperclip"
    assert got == ["hello"]


def test_copy_native_other_exception(fake_local, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_text: str) -> None:
        raise OSError("clip.exe exploded")

    monkeypatch.setattr(fake_local, "copy", broken)
    assert copy_native("hello") is None
    name, note = clipboard._copy_native_detail("hello", 1.0)
    assert name is None and "clip.exe exploded" in note


def test_copy_native_times_out(fake_local, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    monkeypatch.setattr(fake_local, "copy", lambda _text: release.wait(10))
    try:
        t0 = time.monotonic()
        assert copy_native("hello", timeout=0.2) is None
        assert time.monotonic() - t0 < 2.0
    finally:
        release.set()


def test_copy_layered_reports_native_success(fake_local, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    got: list[str] = []
    monkeypatch.setattr(fake_local, "copy", got.append)
    result = copy_layered("body", osc52=None, directory=tmp_path)
    assert result.native == "pyperclip"
    assert got == ["body"]
    assert any("pyperclip" in n for n in result.notes)
