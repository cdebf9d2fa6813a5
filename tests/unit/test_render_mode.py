"""The render mode (ui/compat/mode.py): fast only on a Textual the overrides were tested for, and not when turned off."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dsh_tui.ui.compat.mode import ENV, TESTED, decide, release, textual_version


@pytest.mark.parametrize("version, fast", [
    ("8.2.0", True), ("8.2.8", True), ("8.2.10rc1", True),
    ("8.1.1", False), ("7.5.0", False), ("8.3.0", False), ("9.0.0", False), ("10.1", False), ("dev", False), ("", False)])
def test_fast_only_inside_the_tested_range(version, fast):
    assert decide(version, {})[0] is fast
    if not fast:
        assert decide(version, {})[1] == f"stock render: Textual {version} is not 8.2.x, which the fast render was tested on"


@pytest.mark.parametrize("value, fast", [("1", False), ("yes", False), ("0", True), ("", True)])
def test_the_environment_turns_the_fast_render_off(value, fast):
    assert decide("8.2.8", {ENV: value}) == ((True, "fast render (Textual 8.2.8)") if fast
                                             else (False, f"stock render: {ENV} is set"))


def test_zero_tries_the_fast_render_on_an_untested_textual():
    assert decide("9.1.0", {ENV: "0"}) == (True, f"fast render on an untested Textual 9.1.0: {ENV}=0")
    assert decide("9.1.0", {})[0] is False


def test_the_installed_version_is_read_as_importlib_metadata_reads_it():
    from importlib.metadata import version

    assert textual_version() == version("textual")
    assert release("8.2.8") == (8, 2) and release("x") is None and TESTED[0] < TESTED[1]


def _mode_in_child(env: dict) -> str:
    code = ("import sys; from dsh_tui.ui import compat; from dsh_tui.ui.screens.explorer import ExplorerScreen; "
            "from dsh_tui.ui.widgets.footer import StableFooter; from dsh_tui.ui.widgets.event_list import EventList; "
            "print(compat.FAST, "
            "next(c.__name__ for c in ExplorerScreen.__mro__ if c.__name__ in ('FastScreen', 'Screen')), "
            "StableFooter.__mro__[1].__name__, "
            "next(c.__name__ for c in EventList.__mro__ if c.__name__ in ('FastPane', 'StockPane')), "
            "'dsh_tui.ui.compat.compositor' in sys.modules)")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=env).stdout.split()


def test_the_stock_render_takes_textuals_classes_and_leaves_the_overrides_unimported():
    import os

    env = {k: v for k, v in os.environ.items() if k != ENV}
    assert _mode_in_child(env) == ["True", "FastScreen", "QuietFooter", "FastPane", "True"]
    assert _mode_in_child({**env, ENV: "1"}) == ["False", "Screen", "StockFooter", "StockPane", "False"]
