"""Applying the user's settings (dsh_tui/settings.py) to the explorer: keymap, theme, the default filter."""

from __future__ import annotations

from ..safety import one_line
from ..settings import Settings, load_settings
from .keydocs import binding_ids
from .views import filter_specs


def read_settings() -> Settings:
    """The user's settings file, checked against the explorer's binding ids."""
    return load_settings(known_ids=binding_ids())


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
