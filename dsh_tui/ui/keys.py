"""The binding tables of the screens and widgets, made from the one registry (ui/actions.py): each is the
``BINDINGS`` of its screen or widget (a test checks they take these very lists), and each binding has its
action's id (keymaps, the footer, the help and the palette name it). Nothing here is written by hand."""

from __future__ import annotations

from .actions import bindings

BINDINGS = bindings("explorer")  # the explorer's own keys
COUNT_BINDINGS = bindings("count")  # the events list's count (widgets/event_list.py): 123G, esc clears
PROMPT_BINDINGS = bindings("prompt")  # the docked prompt (widgets/cmdline.py)
LIST_BINDINGS = bindings("list")  # every list (widgets/vlist.py) and the detail pane (widgets/detail.py)
TEXTUAL_BINDINGS = bindings("textual")  # Textual's own keys the help names: focus, the command palette
PICK_BINDINGS = bindings("pick")  # the pickers (widgets/picklist.py)
HEADER_SCREEN_BINDINGS = bindings("header")  # the full header (screens/header.py)
JSON_TREE_BINDINGS = bindings("tree")  # the JSON tree (screens/jsontree.py) ...
JSON_TREE_LIST_BINDINGS = bindings("tree-list")  # ... and its list's keys (jless's)
CONTEXT_BINDINGS = bindings("context")  # the context view (screens/context.py) ...
CHART_BINDINGS = bindings("chart")  # ... and its token chart
REQUESTS_BINDINGS = bindings("requests")  # screens/requests.py
FILES_BINDINGS = bindings("files")  # screens/files.py
INSIGHT_TABLES = (JSON_TREE_BINDINGS, JSON_TREE_LIST_BINDINGS, CONTEXT_BINDINGS, CHART_BINDINGS, REQUESTS_BINDINGS,
                  FILES_BINDINGS)
ERROR_BINDINGS = bindings("error")  # screens/error.py
REPORT_BINDINGS = bindings("report")  # the copy window (screens/report.py)
OUTPUT_BINDINGS = bindings("output")  # a piped command's output (screens/output.py)
TIMING_BINDINGS = bindings("timing")  # screens/timing.py
HELP_BINDINGS = bindings("help")  # screens/help.py
ANOMALY_KIND_BINDINGS = bindings("anomaly-kind")  # screens/anomaly_kind.py
FILTER_BINDINGS = bindings("filter")  # screens/filter.py
CHECKLIST_BINDINGS = bindings("checklist")  # screens/checklist.py
CHIPS_BINDINGS = bindings("chips")  # screens/chips.py
CHILDREN_BINDINGS = bindings("children")  # screens/family.py's children picker ...
CONFIRM_BINDINGS = bindings("confirm")  # ... and its question
WINDOW_TABLES = (TIMING_BINDINGS, HELP_BINDINGS, ANOMALY_KIND_BINDINGS, FILTER_BINDINGS, CHECKLIST_BINDINGS,
                 CHIPS_BINDINGS, CHILDREN_BINDINGS, CONFIRM_BINDINGS)
BROWSER_BINDINGS = bindings("browser")  # the session browser (screens/browser.py) ...
BROWSER_BAR_BINDINGS = bindings("browser-bar")  # ... and its filter line
FLEET_BINDINGS = bindings("fleet")  # the fleet view (screens/fleet.py)
DIFF_BINDINGS = bindings("diff")  # the diff explorer (screens/diff.py, ui/diffapp.py)
