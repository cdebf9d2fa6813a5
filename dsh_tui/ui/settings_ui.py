"""Applying the user's settings (dsh_tui/settings.py) to the explorer: keymap, theme, the default filter."""

from __future__ import annotations

from dataclasses import replace

from ..safety import one_line
from ..settings import Settings, load_settings
from .keydocs import all_bindings, binding_ids, keys_in_effect
from .keys import BINDINGS, BROWSER_BINDINGS, COUNT_BINDINGS, ERROR_BINDINGS, LIST_BINDINGS, TEXTUAL_BINDINGS
from .views import filter_specs


# Each quit binding and the bindings that share its screen or are checked before it (the focused list's):
# a key any of them holds would reach them first.
QUIT_SCOPES = {
    "quit": (BINDINGS, COUNT_BINDINGS, LIST_BINDINGS, TEXTUAL_BINDINGS),
    "browser-quit": (BROWSER_BINDINGS, LIST_BINDINGS, TEXTUAL_BINDINGS),
    "error-quit": (ERROR_BINDINGS, TEXTUAL_BINDINGS),
}


def read_settings() -> Settings:
    """The user's settings file, checked against the explorer's binding ids; a keymap keeps a quit key."""
    settings = load_settings(known_ids=binding_ids())
    keymap, problems = keep_a_quit_key(settings.keymap)
    if not problems:
        return settings
    return replace(settings, keymap=keymap, problems=settings.problems + tuple(problems))


def keep_a_quit_key(keymap: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """``keymap`` with every quit binding left at least one key no other binding of its screen takes: where
    the keymap leaves none, the remapping of that quit binding and those that took its default keys are
    dropped (the defaults apply), with one problem each."""
    table = all_bindings()
    keymap, problems = dict(keymap), []
    for quit_id, tables in QUIT_SCOPES.items():
        peers = [b for t in tables for b in t if b.id and b.id != quit_id]
        taken = {k for b in peers for k in keys_in_effect(b, keymap)}
        if set(keys_in_effect(table[quit_id], keymap)) - taken:
            continue
        defaults = set(keys_in_effect(table[quit_id], {}))
        keymap.pop(quit_id, None)
        for b in peers:
            if b.id in keymap and defaults & set(keys_in_effect(b, keymap)):
                del keymap[b.id]
        problems.append(f"keymap: {quit_id}: would leave no key that quits ({', '.join(sorted(defaults))} kept)")
    return keymap, problems


def apply_settings(app, settings: Settings) -> None:
    """Keymap (``App.set_keymap``) and theme; one notice naming what the file got wrong (the rest applies)."""
    problems = list(settings.problems)
    if settings.keymap:
        app.set_keymap(settings.keymap)
    if settings.theme is not None:
        if settings.theme in app.available_themes:
            app.theme = settings.theme
        else:
            problems.append(f"theme: no theme {settings.theme!r}")
    if problems:
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        app.notify(one_line(f"{settings.path}: {'; '.join(problems[:3])}{more}; the defaults are used for these",
                            400), severity="warning", markup=False, timeout=10)


def default_filter(settings: Settings, log, diag) -> tuple[str, str] | None:
    """(key, label) of the first of the settings' filters this log offers, or None (all events)."""
    if not settings.filters:
        return None
    specs = filter_specs(log, diag)
    for name in settings.filters:
        if name == "all":
            return None
        if name.startswith("type:"):
            label = f"type {one_line(name[5:], 60)}"
            spec = next((s for s in specs if s.key.startswith("type:") and s.label == label), None)
        else:
            spec = next((s for s in specs if s.key == name), None)
        if spec is not None:
            return spec.key, spec.label
    return None
