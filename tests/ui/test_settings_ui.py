"""The settings file in the explorer: the keymap moves keys (the footer, the help and the key itself
follow), the theme applies, the default filter opens the log filtered, and a bad file is one notice."""

from __future__ import annotations

import pytest

from dsh_tui.settings import Settings
from dsh_tui.ui.screens.help import HelpScreen
from dsh_tui.ui.settings_ui import read_settings
from dsh_tui.ui.widgets.cmdline import CommandLine

from ..support.app import make_app, notices, ready
from ..support.logs import until

pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def test_a_keymap_moves_the_key_in_the_footer_the_help_and_the_app(demo):
    app = make_app(demo, settings=Settings(keymap={"search": "ctrl+o", "checklist": "T"}))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        bound = app.screen.active_bindings
        assert "ctrl+o" in bound and "slash" not in bound and "T" in bound and "t" not in bound
        footer = " ".join(w.render().plain for w in app.screen.query("FooterKey"))
        assert "^o Search" in footer and "T 10-min pass" in footer and "/ Search" not in footer
        await pilot.press("slash")  # no longer search
        await pilot.pause()
        assert not app.query_one(CommandLine).is_open
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.query_one(CommandLine).is_open and app.query_one(CommandLine).kind == "search"
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-text").render().plain
        assert "ctrl+o" in text and "  T " in text and "  / " not in text


async def test_the_default_filter_and_the_theme(demo):
    app = make_app(demo, settings=Settings(filters=("nope", "findings"), theme="textual-light"))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        assert app.theme == "textual-light"
        assert app.events.source.key == "findings"
        assert app.current_index == app.diag.verdict.index  # still on the verdict, now in the filtered view


async def test_a_bad_settings_file_is_one_notice_and_the_defaults(demo, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "dsh-tui" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('theme = "no-such-theme"\n[keymap]\nno-such-id = "x"\nsearch = "ctrl+"\nhelp = "H"\n')
    settings = read_settings()
    assert settings.keymap == {"help": "H"}
    app = make_app(demo, settings=settings)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await ready(app, pilot)
        said = [n for n in notices(app) if "config.toml" in n]
        assert len(said) == 1
        assert "no-such-id" in said[0] and "ctrl+" in said[0] and "no-such-theme" in said[0]
        assert app.theme != "no-such-theme" and "slash" in app.screen.active_bindings  # search kept its key
        await pilot.press("H")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("keymap, kept", [('quit = "j"', {}),  # j moves the list's cursor first
                                          ('search = "q"', {}),  # q searches, nothing quits
                                          ('search = "q"\nquit = "Q"', {"search": "q", "quit": "Q"})],
                         ids=["quit-on-j", "q-taken", "quit-moved"])
async def test_a_keymap_may_not_take_every_quit_key_away(demo, tmp_path, monkeypatch, keymap, kept):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "dsh-tui" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f"[keymap]\n{keymap}\n")
    settings = read_settings()
    assert settings.keymap == kept
    assert bool(settings.problems) == (not kept) and all("quit" in p for p in settings.problems)
    app = make_app(demo, settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.press(kept.get("quit", "q"))
        await until(app, pilot, lambda: not app.is_running, "the quit key to quit", timeout=20)
