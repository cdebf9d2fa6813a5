"""The command palette's explorer commands (ctrl+p), generated from the registry (ui/actions.py): every
explorer action (its palette title, else its footer label), with its help (the tooltip) and the keys in
effect after the keymap; plus the registry's palette-only commands (keys of another binding)."""

from __future__ import annotations

from functools import partial
from typing import Iterator

from textual.app import SystemCommand

from .actions import Action, palette_actions
from .keydocs import Keymap, all_bindings, key_text, keys_in_effect


def palette_entries(keymap: Keymap | None = None) -> list[tuple[str, str, str]]:
    """(title, help, action id) of every explorer command, in the registry's order."""
    keymap = keymap or {}
    table = all_bindings()

    def keys(binding_id: str) -> str:
        return ", ".join(key_text(k) for k in keys_in_effect(table[binding_id], keymap))

    return [(a.title or a.description, f"{a.tooltip} ({keys(a.id)})", a.id) if isinstance(a, Action)
            else (a.title, f"{a.tooltip} ({keys(a.keys_of)})", a.id) for a in palette_actions()]


def explorer_commands(run, keymap: Keymap | None = None) -> Iterator[SystemCommand]:
    """The palette's explorer commands; ``run(action_id)`` runs one (the explorer's dispatch)."""
    for title, help_text, action_id in palette_entries(keymap):
        yield SystemCommand(title, help_text, partial(run, action_id))


def diff_palette_entries(keymap: Keymap | None = None) -> list[tuple[str, str, str]]:
    """(title, help, action) of the diff view's commands (the registry's "diff" scope)."""
    from .keys import DIFF_BINDINGS
    keymap = keymap or {}
    # The actions are the diff screen's: the palette runs them through the app, hence "screen.".
    return [(b.description, f"{b.tooltip} ({', '.join(key_text(k) for k in keys_in_effect(b, keymap))})",
             f"screen.{b.action}") for b in DIFF_BINDINGS if b.id != "diff-quit"]


def diff_commands(app, keymap: Keymap | None = None) -> Iterator[SystemCommand]:
    for title, help_text, action in diff_palette_entries(keymap):
        yield SystemCommand(title, help_text, partial(app.run_action, action))
