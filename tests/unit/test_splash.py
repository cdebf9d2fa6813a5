"""The plain first frame drawn while Textual is imported: the probe's verdict, sanitised, and
no stray alternate screen whatever happens."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest

from dsh_tui.demo import write_demo
from dsh_tui.model.reading.forked import ForkedCall
from dsh_tui.model.reading.tail import TailVerdict, tail_verdict
from dsh_tui.splash import ENTER, LEAVE, import_ui_with_splash, splash_lines

from ..support.logs import no_children

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    """Write an importable module whose import takes ``delay`` s (then fails if ``fail``)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TERM", "xterm-256color")

    def make(name: str, delay: float, fail: bool = False) -> str:
        body = f"import time\ntime.sleep({delay})\n" + ("raise ImportError('no ui here')\n" if fail else "")
        (tmp_path / f"{name}.py").write_text(body)
        return name
    return make


@pytest.fixture
def crash_log(tmp_path):
    log = write_demo(tmp_path / "demo.jsonl.zstd")
    verdict = tail_verdict(log)
    assert verdict is not None  # the demo ends inside a step: the probe has an answer
    return log, verdict


def test_lines_are_sanitised_and_never_wrap():
    tv = TailVerdict("TOOL_OUTCOME_UNKNOWN", "call\x1b[2J\x1b]52;c;AAAA\x07", "ba[red]sh\ud800", 7, "4\n4", 3, 4096)
    for width in (20, 80):
        lines = splash_lines(Path("/x/s\x1b[31m.zstd"), tv, width)
        assert all(len(line) <= width - 1 for line in lines)
        assert not any(ch in line for line in lines for ch in "\x1b\x07\n\ud800")
    assert "TOOL_OUTCOME_UNKNOWN" in splash_lines(Path("s"), tv, 80)[1]


def test_the_verdict_is_drawn_while_the_ui_imports_and_kept_for_the_explorer(crash_log, slow_module):
    log, verdict = crash_log
    probe = ForkedCall(tail_verdict, log)
    out = Tty()
    assert import_ui_with_splash(log, probe, out, module=slow_module("slow_ui_a", 1.0)) is True
    text = out.getvalue()
    assert text.startswith(ENTER) and verdict.kind in text and verdict.call_id in text and LEAVE not in text
    assert probe.collect() == verdict and no_children()  # the explorer gets the same answer, no second child


def test_no_frame_when_the_ui_is_ready_first_or_there_is_no_terminal(crash_log, slow_module):
    log, _ = crash_log
    stuck = ForkedCall(time.sleep, 3600)
    out = Tty()
    assert import_ui_with_splash(log, stuck, out, module=slow_module("slow_ui_b", 0.2)) is False
    assert out.getvalue() == ""
    stuck.close()
    probe = ForkedCall(tail_verdict, log)
    plain = io.StringIO()  # not a terminal
    assert import_ui_with_splash(log, probe, plain, module=slow_module("slow_ui_c", 0.5)) is False
    assert plain.getvalue() == ""
    probe.close()
    assert no_children()


def test_a_failed_import_leaves_the_alternate_screen(crash_log, slow_module):
    log, verdict = crash_log
    probe = ForkedCall(tail_verdict, log)
    out = Tty()
    with pytest.raises(ImportError, match="no ui here"):
        import_ui_with_splash(log, probe, out, module=slow_module("slow_ui_d", 1.0, fail=True))
    text = out.getvalue()
    assert verdict.call_id in text and text.endswith(LEAVE)
    assert no_children()


def _pty_or_skip():
    pty = pytest.importorskip("pty")
    return pty.openpty()


def test_keys_typed_before_the_explorer_starts_are_not_echoed_but_reach_it():
    import select
    import termios
    import tty

    from dsh_tui.splash import quiet_input
    master, slave = _pty_or_skip()
    try:
        before = termios.tcgetattr(slave)
        assert before[3] & termios.ECHO and before[3] & termios.ICANON
        with quiet_input(slave):
            lflag = termios.tcgetattr(slave)[3]
            assert not lflag & (termios.ECHO | termios.ICANON) and lflag & termios.ISIG  # Ctrl-C still works
            os.write(master, b"q")  # typed while the frame is up
            assert not select.select([master], [], [], 0.2)[0]  # nothing echoed onto the screen
            tty.setraw(slave, termios.TCSANOW)  # the explorer takes the terminal as Textual's driver does
            assert select.select([slave], [], [], 2)[0] and os.read(slave, 10) == b"q"  # and reads the key
        assert termios.tcgetattr(slave) == before  # the shell gets back what it had, not the raw mode
        with pytest.raises(KeyboardInterrupt), quiet_input(slave):
            raise KeyboardInterrupt
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_quiet_input_is_a_no_op_off_a_terminal(tmp_path):
    from dsh_tui.splash import quiet_input
    with open(tmp_path / "f", "w") as fh, quiet_input(fh.fileno()):
        pass
