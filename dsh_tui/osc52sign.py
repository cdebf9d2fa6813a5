"""Whether the terminal gives a sign that it takes OSC 52 (the clipboard escape a copy sends).

A terminal never acknowledges OSC 52, so a copy can only say "sent". Advice on making it work is
noise when the copy went through, so it is shown only when nothing says the terminal takes it:

- in tmux, its ``set-clipboard`` option is ``on`` (the default, ``external``, drops what apps send);
- elsewhere, the terminal names itself as one that takes OSC 52 by default (kitty, WezTerm, iTerm2,
  foot, Alacritty, Ghostty, Windows Terminal, VS Code), in TERM, TERM_PROGRAM or its own variable.

No Textual import. ``sign`` runs ``tmux show-options`` (at most 1 s): call it from a worker thread.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

TERM_PREFIXES = ("xterm-kitty", "wezterm", "foot", "alacritty", "xterm-ghostty", "ghostty")
TERM_PROGRAMS = frozenset({"iTerm.app", "WezTerm", "ghostty", "vscode", "kitty", "Alacritty"})
OWN_VARIABLES = ("KITTY_WINDOW_ID", "WEZTERM_PANE", "WT_SESSION", "ALACRITTY_WINDOW_ID", "GHOSTTY_RESOURCES_DIR")

# One line each (a notice); the copy window gives tmux's in full (clipboard.TMUX_HINT).
TMUX_ADVICE = "in tmux the clipboard needs `set -s set-clipboard on`"
TERMINAL_ADVICE = "if the clipboard stays empty, your terminal may not take OSC 52 (the clipboard escape)"


def tmux_clipboard(timeout: float = 1.0) -> str | None:
    """tmux's ``set-clipboard`` value, or None when it cannot be asked."""
    try:
        done = subprocess.run(["tmux", "show-options", "-s", "-v", "set-clipboard"], capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def sign(env: Mapping[str, str] | None = None, *, ask_tmux=tmux_clipboard) -> bool:
    """True when the terminal (or tmux) says it takes OSC 52."""
    env = os.environ if env is None else env
    if env.get("TMUX"):
        return ask_tmux() == "on"
    term = env.get("TERM", "")
    return (term.startswith(TERM_PREFIXES) or env.get("TERM_PROGRAM", "") in TERM_PROGRAMS
            or any(env.get(v) for v in OWN_VARIABLES))


def advice(env: Mapping[str, str] | None = None, *, ask_tmux=tmux_clipboard) -> str | None:
    """One line on making OSC 52 work, or None when the terminal gives a sign it does."""
    env = os.environ if env is None else env
    if sign(env, ask_tmux=ask_tmux):
        return None
    return TMUX_ADVICE if env.get("TMUX") else TERMINAL_ADVICE
