"""Keys as data: the bindings are the one table. Every key bound is documented (help, palette), every
key documented is bound, the tables the widgets use are the documented ones, and the README's key table
is the generated one."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from dsh_tui.ui import keys
from dsh_tui.ui.actions import ACTIONS, COMMANDS, handler, help_rows, palette_actions
from dsh_tui.ui.keydocs import TABLES, all_bindings, explorer_help, key_table_markdown, key_text, row_keys
from dsh_tui.ui.screens.browser import BrowserScreen
from dsh_tui.ui.screens.explorer import ExplorerScreen
from dsh_tui.ui.screens.help import HelpScreen
from dsh_tui.ui.screens.timing import TimingScreen
from dsh_tui.ui.screens.error import ErrorScreen
from dsh_tui.ui.screens.fleet import FleetScreen
from dsh_tui.ui.screens.header import HeaderScreen
from dsh_tui.ui.screens.report import ReportModal
from dsh_tui.ui.widgets.cmdline import CommandLine
from dsh_tui.ui.widgets.detail import DetailView
from dsh_tui.ui.widgets.event_list import EventList
from dsh_tui.ui.widgets.vlist import VirtualList

from ..support.app import make_app, ready

README = Path(__file__).resolve().parents[2] / "README.md"
ROWS = help_rows("explorer") + help_rows("browser") + help_rows("fleet")
# The keys of the explorer and the browser: each must be in a help row. The prompt's and the copy
# window's Close/Cancel keys are named in their own windows (and the copy window's m is in the help).
OWN = (keys.BINDINGS + keys.COUNT_BINDINGS + keys.BROWSER_BINDINGS + keys.LIST_BINDINGS + keys.FLEET_BINDINGS
       + keys.TIMING_BINDINGS)
WINDOW_KEYS = {"prompt-cancel", "report-close"}


def _pairs(bindings) -> list[tuple[str, str]]:
    return [(b.key, b.action) for b in bindings]


def test_the_widgets_use_the_tables_the_help_is_built_from():
    assert ExplorerScreen.BINDINGS is keys.BINDINGS
    assert EventList.BINDINGS is keys.COUNT_BINDINGS
    assert CommandLine.BINDINGS is keys.PROMPT_BINDINGS
    assert ReportModal.BINDINGS is keys.REPORT_BINDINGS
    assert BrowserScreen.BINDINGS is keys.BROWSER_BINDINGS
    assert FleetScreen.BINDINGS is keys.FLEET_BINDINGS
    assert ErrorScreen.BINDINGS is keys.ERROR_BINDINGS
    assert HeaderScreen.BINDINGS is keys.HEADER_SCREEN_BINDINGS
    assert TimingScreen.BINDINGS is keys.TIMING_BINDINGS
    assert HelpScreen.BINDINGS is keys.HELP_BINDINGS
    # The lists' keys and Textual's own are documented from copies with ids: they must say the same.
    assert VirtualList.BINDINGS is keys.LIST_BINDINGS  # the lists take the documented table itself
    assert DetailView.BINDINGS is keys.LIST_BINDINGS  # and so does the detail pane
    focus = _pairs(b for b in keys.TEXTUAL_BINDINGS if b.id.startswith("focus-"))
    assert set(focus) <= set(_pairs(Screen.BINDINGS))
    assert App.COMMAND_PALETTE_BINDING == next(b.key for b in keys.TEXTUAL_BINDINGS if b.id == "command-palette")


def _classes(package) -> list[type]:
    found = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        found += [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
    return found


def test_every_binding_of_every_screen_and_widget_comes_from_the_registry():
    """Each ``BINDINGS`` in dsh_tui/ui (screens, widgets, the apps) holds only bindings with an id, each
    the registry's binding of that id: no key is bound outside ui/actions.py."""
    import dsh_tui.ui
    registry = {b.id: b for table in TABLES for b in table}
    assert set(registry) == set(ACTIONS)  # every scope's table is one keydocs knows
    seen = 0
    for cls in _classes(dsh_tui.ui):
        for b in vars(cls).get("BINDINGS", ()):
            assert isinstance(b, Binding) and b.id in registry, (cls, b)
            assert b == registry[b.id], (cls, b)
            seen += 1
    assert seen > 100


def test_every_binding_has_a_unique_id():
    ids = [b.id for table in TABLES for b in table]
    assert all(ids) and len(ids) == len(set(ids))


def test_every_key_bound_is_documented():
    documented = {i for row in ROWS + help_rows("timing") for i in row.ids}
    missing = [b.id for b in OWN if b.id not in documented]
    assert not missing, f"bound but not in the help: {missing}"
    unexplained = [a.id for a in palette_actions() if not a.tooltip]
    assert not unexplained, f"in the palette without a help text: {unexplained}"


def test_every_key_documented_is_bound():
    table = all_bindings()
    named = {i for row in ROWS for i in row.ids} | {c.keys_of for c in COMMANDS.values()}
    unbound = sorted(named - set(table) - WINDOW_KEYS)
    assert not unbound, f"documented but bound nowhere: {unbound}"
    for row in ROWS:
        if not row.ids:
            assert row.group == "Rows" and row.label, row  # a legend (the browser's marks), no key


async def test_every_explorer_action_names_a_handler(demo):
    """The registry's handlers resolve on the explorer (a controller's method, or its own): a key that
    named nothing would fail only when pressed."""
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        entries = [a for a in ACTIONS.values() if a.scope == "explorer" and not a.run.startswith("app.")]
        for entry in entries + list(COMMANDS.values()):
            method, _ = handler(app.explorer, entry.run)
            assert callable(method), entry


def test_a_row_label_says_the_keys_of_its_bindings():
    """A label is how the default keys read (``↑ ↓  k j``): each of its keys is one of the row's, and a
    key of the row it leaves out is named in the row's text (PgUp PgDn: also space, ctrl+b, ctrl+f)."""
    table = all_bindings()
    for row in ROWS:
        if row.label is None or not row.ids or row.label == "123G":  # 123G: the digits, then G
            continue
        shown = {key_text(k): k for i in row.ids for k in table[i].key.split(",")}
        tokens = row.label.split()
        assert set(tokens) <= set(shown), row
        for text, key in shown.items():
            assert text in tokens or key in row.text, (row, key)


def test_a_remapped_key_shows_in_the_help_row():
    row = next(r for r in help_rows("explorer") if r.ids == ("cursor-up", "cursor-down"))
    assert row_keys(row, {}) == "↑ ↓  k j"
    assert row_keys(row, {"cursor-up": "ctrl+k"}) == "ctrl+k ↓ j"
    groups = dict(explorer_help({"search": "ctrl+f,question_mark"}))
    assert ("ctrl+f ?", "search type, tool, callId and text in the whole log") in groups["Find"]


def test_the_readme_key_table_is_the_generated_one():
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^\| group \| keys \| action \|\n(?:\|.*\|\n)+", text, re.MULTILINE)
    assert found is not None, "README.md has no key table"
    assert found.group(0) == key_table_markdown()
