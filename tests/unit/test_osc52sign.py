"""When the copy shows advice on OSC 52: only when nothing says the terminal takes it."""

from __future__ import annotations

import pytest

from dsh_tui.osc52sign import TERMINAL_ADVICE, TMUX_ADVICE, advice, sign


@pytest.mark.parametrize("env", [{"TERM": "xterm-kitty"}, {"TERM": "foot"}, {"TERM": "alacritty"},
                                 {"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"},
                                 {"TERM": "xterm-256color", "WT_SESSION": "1"}])
def test_a_terminal_known_to_take_osc52_gets_no_advice(env):
    assert sign(env) and advice(env) is None


def test_an_unknown_terminal_gets_one_line():
    assert advice({"TERM": "xterm-256color"}) == TERMINAL_ADVICE and "\n" not in TERMINAL_ADVICE


@pytest.mark.parametrize("value, expected", [("on", None), ("external", TMUX_ADVICE), ("off", TMUX_ADVICE),
                                             (None, TMUX_ADVICE)])
def test_in_tmux_its_set_clipboard_decides(value, expected):
    env = {"TMUX": "/tmp/tmux-0/default,1,0", "TERM": "xterm-kitty"}  # tmux stands between: the outer TERM is not seen
    assert advice(env, ask_tmux=lambda: value) == expected
