"""Keys as data: the bindings are the one table. Every key bound is documented (help, palette), every
key documented is bound, the tables the widgets use are the documented ones, and the README's key table
is the generated one."""

from __future__ import annotations

import re
from pathlib import Path

from textual.app import App
from textual.screen import Screen

from dsh_tui.ui import keys
from dsh_tui.ui.app import ExplorerApp
from dsh_tui.ui.keydocs import all_bindings, explorer_help, key_table_markdown, key_text, row_keys
from dsh_tui.ui.palette import palette_entries
from dsh_tui.ui.screens.browser import BrowserScreen
from dsh_tui.ui.screens.main import MainScreen
from dsh_tui.ui.screens.error import ErrorScreen
from dsh_tui.ui.screens.fleet import FleetScreen
from dsh_tui.ui.screens.header import HeaderScreen
from dsh_tui.ui.screens.report import ReportModal
from dsh_tui.ui.widgets.cmdline import CommandLine
from dsh_tui.ui.widgets.detail import DetailView
from dsh_tui.ui.widgets.event_list import EventList
from dsh_tui.ui.widgets.vlist import VirtualList

README = Path(__file__).resolve().parents[2] / "README.md"
ROWS = keys.HELP + keys.BROWSER_HELP + keys.FLEET_HELP
# The keys of the explorer and the browser: each must be in a help row. The prompt's and the copy
# window's Close/Cancel keys are named in their own windows (and the copy window's m is in the help).
OWN = (keys.BINDINGS + keys.SCREEN_BINDINGS + keys.COUNT_BINDINGS + keys.BROWSER_BINDINGS + keys.LIST_BINDINGS
       + keys.FLEET_BINDINGS)
WINDOW_KEYS = {"prompt-cancel", "report-close"}


def _pairs(bindings) -> list[tuple[str, str]]:
    return [(b.key, b.action) for b in bindings]


def test_the_widgets_use_the_tables_the_help_is_built_from():
    assert ExplorerApp.BINDINGS is keys.BINDINGS
    assert MainScreen.BINDINGS is keys.SCREEN_BINDINGS
    assert EventList.BINDINGS is keys.COUNT_BINDINGS
    assert CommandLine.BINDINGS is keys.PROMPT_BINDINGS
    assert ReportModal.BINDINGS is keys.REPORT_BINDINGS
    assert BrowserScreen.BINDINGS is keys.BROWSER_BINDINGS
    assert FleetScreen.BINDINGS is keys.FLEET_BINDINGS
    assert ErrorScreen.BINDINGS is keys.ERROR_BINDINGS
    assert HeaderScreen.BINDINGS is keys.HEADER_SCREEN_BINDINGS
    # The lists' keys and Textual's own are documented from copies with ids: they must say the same.
    assert VirtualList.BINDINGS is keys.LIST_BINDINGS  # the lists take the documented table itself
    assert DetailView.BINDINGS is keys.LIST_BINDINGS  # and so does the detail pane
    focus = _pairs(b for b in keys.TEXTUAL_BINDINGS if b.id.startswith("focus-"))
    assert set(focus) <= set(_pairs(Screen.BINDINGS))
    assert App.COMMAND_PALETTE_BINDING == next(b.key for b in keys.TEXTUAL_BINDINGS if b.id == "command-palette")


def test_every_binding_has_a_unique_id():
    tables = [keys.BINDINGS, keys.SCREEN_BINDINGS, keys.COUNT_BINDINGS, keys.PROMPT_BINDINGS, keys.REPORT_BINDINGS,
              keys.LIST_BINDINGS, keys.TEXTUAL_BINDINGS, keys.BROWSER_BINDINGS, keys.FLEET_BINDINGS]
    ids = [b.id for table in tables for b in table]
    assert all(ids) and len(ids) == len(set(ids))


def test_every_key_bound_is_documented():
    documented = {i for row in ROWS for i in row.ids}
    missing = [b.id for b in OWN if b.id not in documented]
    assert not missing, f"bound but not in the help: {missing}"
    in_palette = {b.id for b in keys.BINDINGS} - keys.PALETTE_SKIP
    assert in_palette <= set(keys.PALETTE_TITLES) | {b.id for b in keys.BINDINGS if b.description}
    unexplained = [b.id for b in keys.BINDINGS if b.id not in keys.PALETTE_SKIP and not b.tooltip]
    assert not unexplained, f"in the palette without a help text: {unexplained}"


def test_every_key_documented_is_bound():
    table = all_bindings()
    named = {i for row in ROWS for i in row.ids} | set(keys.PALETTE_TITLES) | {e[0] for e in keys.PALETTE_EXTRA}
    unbound = sorted(named - set(table) - WINDOW_KEYS)
    assert not unbound, f"documented but bound nowhere: {unbound}"
    for row in ROWS:
        if not row.ids:
            assert row.group == "Rows" and row.label, row  # a legend (the browser's marks), no key
    actions = {a.split("(", 1)[0] for _, _, a in palette_entries()}
    assert all(hasattr(ExplorerApp, f"action_{a}") for a in actions), actions


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
    row = next(r for r in keys.HELP if r.ids == ("cursor-up", "cursor-down"))
    assert row_keys(row, {}) == "↑ ↓  k j"
    assert row_keys(row, {"cursor-up": "ctrl+k"}) == "ctrl+k ↓ j"
    groups = dict(explorer_help({"search": "ctrl+f,question_mark"}))
    assert ("ctrl+f ?", "search type, tool, callId and text in the whole log") in groups["Find"]


def test_the_readme_key_table_is_the_generated_one():
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^\| group \| keys \| action \|\n(?:\|.*\|\n)+", text, re.MULTILINE)
    assert found is not None, "README.md has no key table"
    assert found.group(0) == key_table_markdown()
