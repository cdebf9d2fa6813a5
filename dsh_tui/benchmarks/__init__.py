"""Pieces of the benchmark harness (`python -m dsh_tui.bench`).

``proc``: child processes timed with ``os.wait4`` (wall time and peak RSS);
``core``: the floor, ``check``, re-open, jq and growth measurements;
``tui``: the explorer in a headless ``run_test`` (run in a fresh interpreter);
``tmuxrun``: dsh-tui and lnav in a real tmux pane; ``report``: targets and the table.
Textual is imported only inside the TUI child process.
"""
