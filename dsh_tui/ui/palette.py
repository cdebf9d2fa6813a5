"""The command palette's explorer commands (ctrl+p), generated from the bindings: every app key (its
footer label, or a longer title from ``PALETTE_TITLES``), with its help (the binding's tooltip) and the
keys in effect after the keymap; plus the actions bound only in a widget or a window (``PALETTE_EXTRA``)."""

from __future__ import annotations

from functools import partial
from typing import Iterator

from textual.app import SystemCommand

from .keydocs import Keymap, all_bindings, key_text, keys_in_effect
from .keys import BINDINGS, PALETTE_EXTRA, PALETTE_SKIP, PALETTE_TITLES


def palette_entries(keymap: Keymap | None = None) -> list[tuple[str, str, str]]:
    """(title, help, action) of every explorer command, in the palette's order."""
    keymap = keymap or {}
    table = all_bindings()

    def keys(binding_id: str) -> str:
        return ", ".join(key_text(k) for k in keys_in_effect(table[binding_id], keymap))

    out = [(PALETTE_TITLES.get(b.id, b.description), f"{b.tooltip} ({keys(b.id)})", b.action)
           for b in BINDINGS if b.id not in PALETTE_SKIP]
    out += [(title, f"{text} ({keys(binding_id)})", action) for binding_id, title, action, text in PALETTE_EXTRA]
    return out


def explorer_commands(app, keymap: Keymap | None = None) -> Iterator[SystemCommand]:
    for title, help_text, action in palette_entries(keymap):
        yield SystemCommand(title, help_text, partial(app.run_action, action))


def diff_palette_entries(keymap: Keymap | None = None) -> list[tuple[str, str, str]]:
    """(title, help, action) of the diff view's commands (ui/keys.py's DIFF_BINDINGS)."""
    from .keys import DIFF_BINDINGS
    keymap = keymap or {}
    # The actions are the diff screen's: the palette runs them through the app, hence "screen.".
    return [(b.description, f"{b.tooltip} ({', '.join(key_text(k) for k in keys_in_effect(b, keymap))})",
             f"screen.{b.action}") for b in DIFF_BINDINGS if b.id != "diff-quit"]


def diff_commands(app, keymap: Keymap | None = None) -> Iterator[SystemCommand]:
    for title, help_text, action in diff_palette_entries(keymap):
        yield SystemCommand(title, help_text, partial(app.run_action, action))
