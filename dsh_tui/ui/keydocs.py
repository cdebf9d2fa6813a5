"""Keys as documentation, generated from the bindings (ui/keys.py): the help screens' rows and the README's
key table, with the keys in effect after the user's keymap (binding id -> keys)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding
from textual.keys import key_to_character

from .keys import (BINDINGS, BROWSER_BINDINGS, BROWSER_HELP, COUNT_BINDINGS, DIFF_BINDINGS, DIFF_HELP, ERROR_BINDINGS,
                   FLEET_BINDINGS, FLEET_HELP, HEADER_SCREEN_BINDINGS, HELP, INSIGHT_TABLES, LIST_BINDINGS,
                   OUTPUT_BINDINGS, PICK_BINDINGS, PROMPT_BINDINGS, REPORT_BINDINGS, SCREEN_BINDINGS, TEXTUAL_BINDINGS,
                   HelpRow)

Keymap = Mapping[str, str]
HelpGroups = list[tuple[str, list[tuple[str, str]]]]

KEY_TEXT = {"up": "↑", "down": "↓", "left": "←", "right": "→", "pageup": "PgUp", "pagedown": "PgDn",
            "home": "Home", "end": "End", "escape": "esc", "slash": "/",
            "backslash": "\\", "plus": "+", "minus": "-"}
TABLES = (BINDINGS, SCREEN_BINDINGS, COUNT_BINDINGS, PROMPT_BINDINGS, REPORT_BINDINGS, LIST_BINDINGS,
          TEXTUAL_BINDINGS, BROWSER_BINDINGS, HEADER_SCREEN_BINDINGS, ERROR_BINDINGS, OUTPUT_BINDINGS,
          FLEET_BINDINGS, DIFF_BINDINGS, PICK_BINDINGS, *INSIGHT_TABLES)


def all_bindings() -> dict[str, Binding]:
    """Every binding the help, the palette or a keymap can name, by id."""
    return {b.id: b for table in TABLES for b in table if b.id}


def binding_ids() -> frozenset[str]:
    return frozenset(all_bindings())


def key_text(key: str) -> str:
    """How a key reads in the help: ``↑``, ``PgUp``, ``?``, ``F1``, ``esc``, ``ctrl+p``."""
    key = key.strip()
    if key in KEY_TEXT:
        return KEY_TEXT[key]
    if len(key) in (2, 3) and key[0] == "f" and key[1:].isdigit():
        return key.upper()
    char = key_to_character(key) if len(key) > 1 else key
    return char if char and char.isprintable() and not char.isspace() else key


def keys_in_effect(binding: Binding, keymap: Keymap) -> list[str]:
    return [k.strip() for k in (keymap.get(binding.id) or binding.key).split(",") if k.strip()]


def row_keys(row: HelpRow, keymap: Keymap, table: Mapping[str, Binding] | None = None) -> str:
    """The keys of a help row as it reads: its label while its bindings keep their default keys."""
    if row.label is not None and not any(i in keymap for i in row.ids):
        return row.label
    table = all_bindings() if table is None else table
    shown: list[str] = []
    for binding_id in row.ids:
        for key in keys_in_effect(table[binding_id], keymap):
            text = key_text(key)
            if text not in shown:
                shown.append(text)
    return " ".join(shown)


def help_groups(rows: list[HelpRow], keymap: Keymap | None = None) -> HelpGroups:
    keymap = keymap or {}
    table = all_bindings()
    groups: HelpGroups = []
    for row in rows:
        if not groups or groups[-1][0] != row.group:
            groups.append((row.group, []))
        groups[-1][1].append((row_keys(row, keymap, table), row.text))
    return groups


def explorer_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(HELP, keymap)


def browser_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(BROWSER_HELP, keymap)


def fleet_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(FLEET_HELP, keymap)


def key_table_markdown(keymap: Keymap | None = None) -> str:
    """The README's key table (| group | keys | action |), from the explorer's help rows."""
    lines = ["| group | keys | action |", "|---|---|---|"]
    for group, rows in explorer_help(keymap):
        # A | in a cell (the pipe key) is escaped: even in a code span it would end the cell.
        lines += [f"| {group} | `{keys.replace('|', chr(92) + '|')}` | {text.replace('|', chr(92) + '|')} |"
                  for keys, text in rows]
    return "\n".join(lines) + "\n"


def diff_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(DIFF_HELP, keymap)


def diff_key_table_markdown(keymap: Keymap | None = None) -> str:
    """The README's table of the diff view's keys, from its help rows."""
    lines = ["| group | keys | action (`dsh-tui diff`) |", "|---|---|---|"]
    for group, rows in diff_help(keymap):
        lines += [f"| {group} | `{keys}` | {text} |" for keys, text in rows]
    return "\n".join(lines) + "\n"
