"""A settings file that is no file, nests too deeply, or takes every quit key away: one problem and the
defaults, never a hang, never an error the explorer blames on the log."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dsh_tui.settings import MAX_BYTES, Settings, load_settings

IDS = {"search", "copy-report", "help", "quit"}


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "xdg" / "dsh-tui" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def _only_problem(settings: Settings, words: str) -> None:
    assert settings.keymap == {} and settings.theme is None and settings.filters == ()
    assert len(settings.problems) == 1 and words in settings.problems[0], settings.problems


@pytest.mark.parametrize("nest", ["a = " + "[" * 20_000, "a = " + "{b = " * 20_000], ids=["arrays", "tables"])
def test_a_config_nested_too_deeply_is_one_problem_and_the_defaults(config, nest):
    config.write_text(nest + "\n")
    _only_problem(load_settings(known_ids=IDS), "nests too deeply")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_config_that_is_a_fifo_is_not_waited_on(config):
    os.mkfifo(config)
    # A subprocess with a generous bound: reading a FIFO nobody writes would block forever.
    code = ("from dsh_tui.settings import load_settings; s = load_settings(known_ids={'help'}); "
            "print(s.problems)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "XDG_CONFIG_HOME": str(config.parent.parent)})
    assert out.returncode == 0 and "not a regular file" in out.stdout, out.stderr


def test_a_config_that_is_a_directory_or_a_device_is_not_read(config, tmp_path):
    config.mkdir()
    _only_problem(load_settings(known_ids=IDS), "not a regular file")
    if os.path.exists("/dev/zero"):
        _only_problem(load_settings(_link(tmp_path, "/dev/zero"), known_ids=IDS), "not a regular file")


def _link(tmp_path, target):
    link = tmp_path / "device.toml"
    link.symlink_to(target)
    return link


def test_a_config_too_large_is_not_read(config):
    config.write_text("# " + "x" * MAX_BYTES + "\n")
    _only_problem(load_settings(known_ids=IDS), "larger than")


def test_a_good_config_through_a_symlink_is_still_read(config, tmp_path):
    real = tmp_path / "dotfiles.toml"
    real.write_text('theme = "textual-light"\n')
    config.symlink_to(real)  # dotfile managers link it: a settings file is the user's own choice
    assert load_settings(known_ids=IDS).theme == "textual-light"
