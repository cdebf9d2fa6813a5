"""Time-to-answer in a real terminal: a detached tmux pane (160x45) on a private server socket.

A shell is started first; the clock starts when the command is typed into it
(``send-keys``) and stops when ``capture-pane -p`` shows every needle
(polled every 20 ms). The server is killed after each run.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from pathlib import Path

from . import proc

POLL = 0.02


def available() -> bool:
    return proc.which("tmux") is not None


def _env() -> dict[str, str]:
    env = dict(os.environ)
    if env.get("TERM", "dumb") in ("", "dumb", "unknown"):
        env["TERM"] = "xterm-256color"
    return env


def time_to_screen(command: list[str], needles: list[str], *, timeout: float = 180,
                   size: tuple[int, int] = (160, 45), tag: str = "x", probe=None) -> dict:
    """Seconds from typing ``command`` into the pane until the screen holds every needle;
    ``probe(pid)`` is then called with the command's process id (its answer is kept as "probe")."""
    sock = f"bench-{os.getpid()}-{tag}"
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    env = _env()

    def t(*args: str, check: bool = True) -> str:
        return subprocess.run(tmux + list(args), env=env, check=check, capture_output=True, text=True,
                              errors="replace", timeout=30).stdout

    t("new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), "-s", "bench", "sh")
    t("set-option", "-t", "bench", "remain-on-exit", "on")  # a crashed command leaves its screen
    try:
        deadline = time.monotonic() + 10
        while not t("capture-pane", "-p", "-t", "bench").strip() and time.monotonic() < deadline:
            time.sleep(POLL)  # the shell's prompt
        screen, polls = "", 0
        t0 = time.monotonic()
        t("send-keys", "-t", "bench", "exec " + shlex.join(command), "Enter")
        deadline = t0 + timeout
        while True:
            screen = t("capture-pane", "-p", "-t", "bench", check=False)
            polls += 1
            now = time.monotonic()
            if all(n in screen for n in needles):
                got = {"ok": True, "wall": now - t0, "polls": polls}
                if probe is not None:  # the command was exec'd: the pane's process is the command's
                    pid = t("display-message", "-p", "-t", "bench", "#{pane_pid}", check=False).strip()
                    got["probe"] = probe(int(pid)) if pid.isdigit() else None
                return got
            dead = polls % 25 == 0 and t("display-message", "-p", "-t", "bench", "#{pane_dead}", check=False).strip() != "0"
            if dead or now > deadline:
                return {"ok": False, "wall": None, "why": "the command exited" if dead else f"timeout {timeout:.0f} s",
                        "screen_tail": screen[-1500:]}
            time.sleep(max(0.0, POLL - (time.monotonic() - now)))
    finally:
        t("kill-server", check=False)
        _remove_socket(sock)


def _remove_socket(sock: str) -> None:
    """kill-server leaves the socket file behind (tmux 3.3a): remove ours."""
    base = os.environ.get("TMUX_TMPDIR") or "/tmp"
    try:
        os.unlink(os.path.join(base, f"tmux-{os.getuid()}", sock))
    except OSError:
        pass


def best_of(command: list[str], needles: list[str], repeat: int, tag: str, timeout: float) -> dict:
    runs = [time_to_screen(command, needles, tag=f"{tag}{k}", timeout=timeout) for k in range(repeat)]
    ok = [r["wall"] for r in runs if r["ok"]]
    out = {"command": shlex.join(command), "needles": needles, "runs": ok, "failures": len(runs) - len(ok)}
    out["best"] = min(ok) if ok else None
    if not ok:
        out["screen_tail"] = runs[-1].get("screen_tail", "")
    return out


def lnav_vs_dsh(path: Path, workdir: Path, *, last_line_needle: str, verdict_needles: list[str],
                repeat: int, timeout: float = 180) -> dict | None:
    """lnav showing the raw last line vs dsh-tui showing the verdict (callId + kind)."""
    if not available() or not proc.which("lnav"):
        return None
    home = workdir / "lnav-home"
    home.mkdir(parents=True, exist_ok=True)
    lnav = ["env", f"HOME={home}", "lnav", str(path)]
    env = proc.child_env(workdir, no_cache=True)
    dsh = ["env", f"XDG_CACHE_HOME={env['XDG_CACHE_HOME']}", f"XDG_STATE_HOME={env['XDG_STATE_HOME']}",
           "DSH_TUI_NO_CACHE=1", *proc.dsh_tui_argv(), str(path)]
    return {"lnav": best_of(lnav, [last_line_needle], repeat, "lnav", timeout),
            "dsh_tui": best_of(dsh, verdict_needles, repeat, "dsh", timeout)}


def last_line_needle(last_line: str) -> str:
    """A short, distinctive piece of the raw last record that fits on a 160-column line."""
    import orjson
    try:
        obj = orjson.loads(last_line)
    except orjson.JSONDecodeError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("seq"), int):
        needle = f'"seq":{obj["seq"]},'
        if 0 <= last_line.find(needle) < 140:
            return needle
    return last_line[:60]
