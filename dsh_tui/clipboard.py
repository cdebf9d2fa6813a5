"""Layered "copy this text" for a terminal app that is often used over SSH.

Order (see TEXTUAL-NOTES §3.4): always write a 0600 file first (the only path that
is guaranteed to work), then OSC 52 through the app's ``copy_to_clipboard``
(payload capped), then pyperclip, but only when a local clipboard is plausible.

What leaves is prepared once, the same for the file and both clipboards: secrets
masked (``model.redact``; only a key that says "unmasked" passes ``mask=False``)
and sanitised (``safety.clean``: no raw ESC, C1 or bidi control reaches a file or
an OSC 52 payload, so pasting it into a terminal runs nothing).

No textual import here; pyperclip (≈80 ms to import) is imported lazily.
Nothing in this module raises to the caller.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from msgspec import Struct, field

from .safety import clean

__all__ = [
    "prepare",
    "OSC52_MAX_BYTES",
    "TMUX_HINT",
    "CopyResult",
    "copy_layered",
    "copy_native",
    "local_clipboard_plausible",
    "report_dir",
    "write_report_file",
]

#: Largest UTF-8 payload handed to OSC 52. tmux 3.3a took 700 KB and silently
#: dropped 1 MB; many terminals cap far lower, but then they just ignore it.
OSC52_MAX_BYTES = 512 * 1024

TMUX_HINT = (
    "In tmux, OSC 52 copying needs `set -s set-clipboard on` in ~/.tmux.conf "
    "(and, so tmux forwards it to your terminal, "
    "`set -as terminal-features ',xterm-256color:clipboard'`)."
)

_SSH_VARS = ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT")


class CopyResult(Struct):
    """What :func:`copy_layered` managed to do.

    ``path``: the report file, or None if it could not be written.
    ``osc52``: True if the *full* text was handed to the OSC 52 callback without
    error (the terminal gives no acknowledgement, so this is "sent", not "landed";
    False when only the too-large stub was sent).
    ``native``: name of the local mechanism that succeeded (``"pyperclip"``) or None.
    ``notes``: human-readable lines for the UI.
    ``text``: what was copied and saved (masked unless ``masked`` is False, always sanitised).
    """

    path: Path | None
    osc52: bool
    native: str | None
    notes: list[str] = field(default_factory=list)
    text: str = ""
    masked: bool = True


def report_dir() -> Path:
    """``$XDG_STATE_HOME/dsh-tui/reports`` (default ``~/.local/state/dsh-tui/reports``).

    A relative ``XDG_STATE_HOME`` is ignored, as the XDG spec requires.
    """
    from .privatefiles import state_home
    return state_home() / "reports"


def write_report_file(
    text: str, *, stem: str = "bug-report", directory: Path | None = None, suffix: str = ".txt"
) -> Path:
    """Write *text* to ``<dir>/<stem>-YYYYmmdd-HHMMSS[-n]<suffix>`` (mode 0600) and return the path.

    The folder is checked as the index cache's is (privatefiles.py: this user's, not group- or
    world-writable, never through a symlink; raises ``privatefiles.Refused`` otherwise). Never
    overwrites or follows an existing file (``O_EXCL|O_NOFOLLOW``); on a name clash ``-1``, ``-2``,
    ... is appended. Lone surrogates in *text* are written as ``\\udXXX`` escapes instead of failing.
    Raises ``OSError`` on I/O failure.
    """
    from .privatefiles import create_new, safe_name
    default = directory is None
    directory = Path(directory) if directory is not None else report_dir()
    safe_stem = safe_name(stem, "bug-report", 200)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    names = (f"{safe_stem}-{stamp}{'' if n == 0 else f'-{n}'}{suffix}" for n in range(10_001))
    # the default folder's parent (dsh-tui) is ours too; a folder the caller names, only itself
    return create_new(directory, names, text.encode("utf-8", errors="backslashreplace"), levels=2 if default else 1)


def _is_wsl(env: Mapping[str, str], platform: str | None) -> bool:
    if platform == "wsl" or env.get("WSL_DISTRO_NAME") or env.get("WSL_INTEROP"):
        return True
    if platform is None and sys.platform.startswith("linux"):
        try:
            with open("/proc/sys/kernel/osrelease", encoding="ascii", errors="replace") as f:
                return "microsoft" in f.read().lower()
        except OSError:
            return False
    return False


def local_clipboard_plausible(
    env: Mapping[str, str] | None = None, platform: str | None = None
) -> bool:
    """Could a local clipboard tool reach the *user's* clipboard?

    False over SSH (``SSH_CONNECTION``/``SSH_TTY``/``SSH_CLIENT`` set: the
    clipboard there belongs to the remote machine). Otherwise True on macOS,
    Windows/Cygwin and WSL, or when ``WAYLAND_DISPLAY`` or ``DISPLAY`` is set;
    else False. *env*/*platform* default to ``os.environ``/``sys.platform``;
    *platform* may also be ``"wsl"``.
    """
    if env is None:
        env = os.environ
    if any(env.get(name) for name in _SSH_VARS):
        return False
    plat = sys.platform if platform is None else platform
    if plat == "darwin" or plat.startswith("win") or plat in ("cygwin", "msys"):
        return True
    if _is_wsl(env, platform):
        return True
    return bool(env.get("WAYLAND_DISPLAY") or env.get("DISPLAY"))


def _can_connect(family: int, address: object, timeout: float) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(address)  # type: ignore[arg-type]
        return True
    except (OSError, ValueError):
        return False


def _x11_reachable(display: str, timeout: float) -> bool:
    """Can we open a socket to the X server named by *display*? Unknown forms -> True."""
    host, sep, rest = display.rpartition(":")
    number = rest.split(".", 1)[0]
    if not sep or not number.isdigit() or host.startswith("/"):
        return True  # unusual form (e.g. XQuartz launchd path): let the backend decide
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        if sys.platform.startswith("linux") and _can_connect(socket.AF_UNIX, "\0" + path, timeout):
            return True
        return _can_connect(socket.AF_UNIX, path, timeout)
    return _can_connect(socket.AF_INET6 if ":" in host else socket.AF_INET,
                        (host.strip("[]"), 6000 + int(number)), timeout)


def _wayland_reachable(name: str, timeout: float) -> bool:
    if os.path.isabs(name):
        path = name
    else:
        runtime = os.environ.get("XDG_RUNTIME_DIR", "")
        if not runtime:
            return False
        path = os.path.join(runtime, name)
    return _can_connect(socket.AF_UNIX, path, timeout)


def _display_preflight(timeout: float) -> str | None:
    """On plain Linux/BSD, refuse to run a backend whose display is unreachable.

    pyperclip's xclip/xsel/wl-copy backends inherit fd 2; with a stale DISPLAY
    xclip "succeeds", copies nothing and prints "Can't open display" straight
    onto the TUI (TEXTUAL-NOTES §3.3). A socket probe avoids starting it at all.
    Returns None when it is fine to go ahead, else the reason.
    """
    plat = sys.platform
    if plat == "darwin" or plat.startswith("win") or plat in ("cygwin", "msys") or _is_wsl(os.environ, None):
        return None
    import shutil

    wayland = os.environ.get("WAYLAND_DISPLAY", "")
    display = os.environ.get("DISPLAY", "")
    # Mirror pyperclip's choice: wl-copy when WAYLAND_DISPLAY is set and installed.
    if wayland and shutil.which("wl-copy"):
        if _wayland_reachable(wayland, timeout):
            return None
        return f"Wayland display {wayland!r} is not reachable"
    if display:
        if _x11_reachable(display, timeout):
            return None
        return f"X display {display!r} is not reachable (stale ssh -X session?)"
    return "no display"


def _copy_native_detail(text: str, timeout: float) -> tuple[str | None, str]:
    """Like :func:`copy_native` but also returns a human-readable note."""
    try:
        if not local_clipboard_plausible():
            return None, "No local clipboard here (SSH session or no display): skipped pyperclip."
        reason = _display_preflight(min(timeout, 0.5))
        if reason is not None:
            return None, f"Skipped pyperclip: {reason}."

        outcome: dict[str, BaseException | bool] = {}

        def run() -> None:
            try:
                import pyperclip  # lazy: ~80 ms

                try:
                    pyperclip.copy(text)
                    outcome["ok"] = True
                except pyperclip.PyperclipException as exc:
                    outcome["error"] = exc
            except BaseException as exc:  # noqa: BLE001 - worker thread must not leak anything
                outcome["error"] = exc

        worker = threading.Thread(target=run, name="dsh-tui-clipboard", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            return None, f"pyperclip did not finish within {timeout:g} s; gave up on it."
        if outcome.get("ok") is True:
            return "pyperclip", "Copied to the local clipboard with pyperclip."
        error = outcome.get("error")
        detail = f"{type(error).__name__}: {error}" if error is not None else "unknown error"
        return None, f"pyperclip failed ({_first_line(detail)})."
    except Exception as exc:  # noqa: BLE001 - never raise to the UI
        return None, f"Local clipboard failed ({_first_line(f'{type(exc).__name__}: {exc}')})."


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= limit else line[: limit - 1] + "…"


def copy_native(text: str, *, timeout: float = 2.0) -> str | None:
    """Copy with pyperclip if a local clipboard is plausible; return ``"pyperclip"`` or None.

    Runs in a daemon thread joined with *timeout* (a hung backend is abandoned),
    catches ``pyperclip.PyperclipException`` and every other exception, and
    probes the X11/Wayland socket first so a stale ``DISPLAY`` never lets xclip
    print onto the terminal. Never raises.
    """
    return _copy_native_detail(text, timeout)[0]


def _utf8_safe(text: str) -> str:
    """*text* unchanged if it encodes as UTF-8, else with lone surrogates backslash-escaped."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def prepare(text: str, *, mask: bool = True) -> str:
    """*text* as it may leave the app: secrets masked (unless *mask* is False), then sanitised."""
    if mask:
        from .model.presenting.redact import redact  # lazy: the regexes load with the first copy
        text = redact(text)
    return _utf8_safe(clean(text))


def copy_layered(
    text: str,
    *,
    osc52: Callable[[str], None] | None,
    stem: str = "bug-report",
    directory: Path | None = None,
    use_native: bool = True,
    mask: bool = True,
    suffix: str = ".txt",
    save: bool = True,
) -> CopyResult:
    """File first, then OSC 52 via *osc52* (e.g. ``app.copy_to_clipboard``), then pyperclip.

    All three get :func:`prepare`'s text: masked unless *mask* is False (a key that copies a raw
    value on purpose, and says "unmasked"), always sanitised. A payload over
    :data:`OSC52_MAX_BYTES` UTF-8 bytes is not sent; *osc52* gets a one-line stub naming the
    file instead. The native step can block for up to 2 s, so call this from a thread worker.
    *save* False: no file unless the text is too large for OSC 52 (a one-line copy needs none).
    Never raises.
    """
    result = CopyResult(path=None, osc52=False, native=None, notes=[], masked=mask)
    notes = result.notes
    try:
        payload = result.text = prepare(text, mask=mask)
        # no file asked for: written only when the clipboard cannot take it all
        needed = save or osc52 is None or len(payload.encode("utf-8")) > OSC52_MAX_BYTES
        try:
            if needed:
                result.path = write_report_file(payload, stem=stem, directory=directory, suffix=suffix)
                notes.append(f"Saved to {result.path}")
        except OSError as exc:  # a refused folder (privatefiles.Refused) says why in one line
            notes.append(f"Could not write the report file: {exc.strerror or exc}.")
        except Exception as exc:  # noqa: BLE001
            notes.append(f"Could not write the report file ({type(exc).__name__}: {exc}).")

        if osc52 is not None:
            size = len(payload.encode("utf-8"))
            try:
                if size <= OSC52_MAX_BYTES:
                    osc52(payload)
                    result.osc52 = True
                    notes.append(
                        f"Sent {size:,} bytes to the clipboard via OSC 52 "
                        "(works only if your terminal allows it)."
                    )
                else:
                    where = str(result.path) if result.path else "(the report file could not be written)"
                    osc52(f"dsh-tui: text too large for the clipboard ({size:,} bytes); saved to {where}")
                    notes.append(
                        f"Too large for OSC 52 ({size:,} bytes > {OSC52_MAX_BYTES:,}); "
                        "the clipboard only got a note naming the file."
                    )
            except Exception as exc:  # noqa: BLE001
                notes.append(f"OSC 52 copy failed ({type(exc).__name__}: {exc}).")
            notes.append(TMUX_HINT)

        if use_native:
            result.native, note = _copy_native_detail(payload, 2.0)
            notes.append(note)
    except Exception as exc:  # noqa: BLE001 - last resort
        notes.append(f"Copy failed ({type(exc).__name__}: {exc}).")
    return result
