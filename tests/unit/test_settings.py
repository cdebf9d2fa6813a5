"""The settings file (dsh_tui/settings.py): parsed and checked without Textual; whatever is wrong in it
is a problem (said once by the app) and the default for that part, never an error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dsh_tui.settings import MAX_BYTES, Settings, config_path, load_settings, valid_keys

IDS = {"search", "copy-report", "help"}


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "dsh-tui" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def test_the_file_lives_under_xdg_config_home(config):
    assert config_path() == config
    default = "/home/u/.config/dsh-tui/config.toml"
    assert str(config_path({"HOME": "/home/u"})) == default
    assert str(config_path({"HOME": "/home/u", "XDG_CONFIG_HOME": "relative"})) == default  # ignored, as the spec says


def test_no_file_is_the_defaults(config):
    assert load_settings(known_ids=IDS) == Settings()


def test_a_good_file(config):
    config.write_text('theme = "textual-light"\nfilters = ["problems", "type:tool/call"]\n'
                      '[keymap]\nsearch = "ctrl+f,slash"\ncopy-report = ["y", "?"]\n')
    s = load_settings(known_ids=IDS)
    assert s.problems == () and s.path == config and s.theme == "textual-light"
    assert s.keymap == {"search": "ctrl+f,slash", "copy-report": "y,?"}
    assert s.filters == ("problems", "type:tool/call")


def test_what_is_wrong_is_named_and_left_at_its_default(config):
    config.write_text('theme = 3\nfilters = ["nope", "findings"]\ncolour = "red"\n'
                      '[keymap]\nsearch = "ctrl+f"\nno-such-id = "x"\nhelp = "not a key"\ncopy-report = 7\n')
    s = load_settings(known_ids=IDS)
    assert s.keymap == {"search": "ctrl+f"} and s.theme is None and s.filters == ("findings",)
    text = " | ".join(s.problems)
    for part in ("'colour'", "'no-such-id'", "'not a key'", "copy-report", "theme", "'nope'"):
        assert part in text, part
    assert len(s.problems) == 6


@pytest.mark.parametrize("data", [b"[keymap\nsearch=", b"\xff\xfe not utf-8", b"x" * (MAX_BYTES + 1),
                                  b'keymap = "not a table"\nfilters = 3'])
def test_a_hostile_file_never_raises(config, data):
    config.write_bytes(data)
    s = load_settings(known_ids=IDS)
    assert s.problems and s.keymap == {} and s.theme is None and s.filters == ()


def test_a_control_sequence_in_the_file_is_not_echoed(config):
    config.write_text('[keymap]\n"\\u001b]52;c;eA==\\u0007" = "x"\n')
    (problem,) = load_settings(known_ids=IDS).problems
    assert "\x1b" not in problem and "\x07" not in problem


def test_key_names():
    for ok in ("slash", "?", "ctrl+f", "shift+tab", "f1", "y,Y", "G", "question_mark,f1"):
        assert valid_keys(ok), ok
    for bad in ("", "not a key", "ctrl+", ",", "a,,b", "\x1b"):
        assert not valid_keys(bad), bad


def test_the_settings_module_imports_no_textual():
    code = "import sys, dsh_tui.settings; print(any(m.startswith(('textual', 'rich')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
