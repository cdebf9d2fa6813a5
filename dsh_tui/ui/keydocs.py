"""Keys as documentation, generated from the registry (ui/actions.py): the help screens' rows and the README's
key tables, with the keys in effect after the user's keymap (binding id -> keys)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding
from textual.keys import key_to_character

from . import keys
from .actions import HelpRow, help_rows, scope_actions

Keymap = Mapping[str, str]
HelpGroups = list[tuple[str, list[tuple[str, str]]]]

KEY_TEXT = {"up": "↑", "down": "↓", "left": "←", "right": "→", "pageup": "PgUp", "pagedown": "PgDn",
            "home": "Home", "end": "End", "escape": "esc", "slash": "/",
            "backslash": "\\", "plus": "+", "minus": "-"}
TABLES = (keys.BINDINGS, keys.COUNT_BINDINGS, keys.PROMPT_BINDINGS, keys.REPORT_BINDINGS, keys.LIST_BINDINGS,
          keys.TEXTUAL_BINDINGS, keys.BROWSER_BINDINGS, keys.BROWSER_BAR_BINDINGS, keys.HEADER_SCREEN_BINDINGS,
          keys.ERROR_BINDINGS, keys.OUTPUT_BINDINGS, keys.FLEET_BINDINGS, keys.DIFF_BINDINGS, keys.PICK_BINDINGS,
          *keys.INSIGHT_TABLES, *keys.WINDOW_TABLES)


def all_bindings() -> dict[str, Binding]:
    """Every binding the help, the palette or a keymap can name, by id (every action of the registry)."""
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
    return help_groups(help_rows("explorer"), keymap)


def browser_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(help_rows("browser"), keymap)


def fleet_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(help_rows("fleet"), keymap)


def key_table_markdown(keymap: Keymap | None = None) -> str:
    """The README's key table (| group | keys | action |), from the explorer's help rows."""
    lines = ["| group | keys | action |", "|---|---|---|"]
    for group, rows in explorer_help(keymap):
        # A | in a cell (the pipe key) is escaped: even in a code span it would end the cell.
        lines += [f"| {group} | `{keys.replace('|', chr(92) + '|')}` | {text.replace('|', chr(92) + '|')} |"
                  for keys, text in rows]
    return "\n".join(lines) + "\n"


def diff_help(keymap: Keymap | None = None) -> HelpGroups:
    return help_groups(help_rows("diff"), keymap)


def diff_key_table_markdown(keymap: Keymap | None = None) -> str:
    """The README's table of the diff view's keys, from its help rows."""
    lines = ["| group | keys | action (`dsh-tui diff`) |", "|---|---|---|"]
    for group, rows in diff_help(keymap):
        lines += [f"| {group} | `{keys}` | {text} |" for keys, text in rows]
    return "\n".join(lines) + "\n"


def key_strip(screen: str, keymap: Keymap | None = None) -> list:
    """A window's line of its keys (``enter`` jump  ``s S`` sort column ...), from its help rows: the parts
    of a `Content.assemble`."""
    parts: list = []
    for _group, rows in help_groups(help_rows(screen), keymap):
        for keys_shown, text in rows:
            parts += ["  "] if parts else []
            parts += [(keys_shown, "bold"), f" {text}"]
    return parts


def scope_strip(scopes: tuple[str, ...], keymap: Keymap | None = None) -> list:
    """A view's line of its keys (``enter`` jump  ``esc`` close ...), from its scopes' actions: the first
    key each is bound to (as remapped) and its label; the parts of a `Content.assemble`."""
    parts: list = []
    for scope in scopes:
        for a in scope_actions(scope):
            keys = keys_in_effect(a.binding(), keymap or {})
            if keys:
                parts += ["  "] if parts else []
                parts += [(key_text(keys[0]), "bold"), f" {a.description[:1].lower()}{a.description[1:]}"]
    return parts
