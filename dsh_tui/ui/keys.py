"""The explorer's keys, as data: the bindings (ids for keymaps, footer labels, palette help in ``tooltip``)
and, keyed by binding id, the help rows. The help screen, the command palette and the README's key table
are generated from these (ui/keydocs.py); a test checks every documented id is bound and every binding
documented.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

B = Binding

BINDINGS = [
    B("question_mark,f1", "help", "Help", id="help", tooltip="Every key"),
    B("slash", "search", "Search", id="search", tooltip="Type, tool name, callId or text in the whole log"),
    B("y", "copy_report", "Copy report", id="copy-report",
      tooltip="Snippet for the finding under the cursor, else the verdict, secrets masked"),
    B("t", "checklist", "10-min pass", id="checklist", tooltip="The checklist"),
    B("q", "quit", "Quit", id="quit", tooltip="Quit the app"),
    B("n", "next_hit(1)", "Next hit", show=False, id="next-hit", tooltip="The next search hit, else finding"),
    B("N", "next_hit(-1)", "Previous hit", show=False, id="previous-hit",
      tooltip="The previous search hit, else finding"),
    B("right_square_bracket", "finding(1)", "Next finding", show=False, id="next-finding",
      tooltip="The next finding below the cursor"),
    B("left_square_bracket", "finding(-1)", "Previous finding", show=False, id="previous-finding",
      tooltip="The previous finding above the cursor"),
    B("colon", "goto", "Go to seq / time", show=False, id="goto",
      tooltip="Jump to a seq (or 123G in the events list), a time (12:03:04, ISO) or +5m from the start"),
    B("v", "verdict", "Verdict", show=False, id="verdict", tooltip="The primary finding"),
    B("p", "partner", "Call ⇄ result", show=False, id="partner", tooltip="Jump between a call and its result"),
    B("f", "filter", "Filter", show=False, id="filter", tooltip="Findings, problems, pairs, no chunks, one type"),
    B("F", "clear_filter", "Clear filter", show=False, id="clear-filter", tooltip="Show every event"),
    B("Y", "copy_call_id", "Copy callId", show=False, id="copy-call-id", tooltip="Just the callId"),
    B("R", "copy_raw", "Copy raw record (unmasked)", show=False, id="copy-raw-unmasked",
      tooltip="The event's record exactly as written: secrets NOT masked"),
    B("s", "save_event", "Save event", show=False, id="save-event",
      tooltip="Write the full event to a file, not masked"),
    B("P", "toggle_pairs", "Pairs pane", show=False, id="toggle-pairs", tooltip="Show or hide the call/result pairs"),
    B("z", "zoom", "Zoom pane", show=False, id="zoom", tooltip="Maximize or restore the focused pane"),
    B("enter", "enter", "Open", show=False, id="enter", tooltip="Events → detail; pairs or detail → events"),
    B("b", "back", "Back", id="back",  # hidden when there is nothing to go back to; esc never leaves a session
      tooltip="The previous session, else the session browser"),
    B("u", "parent", "Parent session", show=False, id="parent", tooltip="Of a delegated child"),
    B("c", "children", "Children", show=False, id="children", tooltip="Delegated children of this session"),
    B("w", "toggle_follow", "Follow / pause", show=False, id="toggle-follow", tooltip="Re-read the file as it grows"),
    B("l", "permalink", "Copy permalink", show=False, id="permalink",
      tooltip="<session-id>@<seq> of the event under the cursor"),
    # Anomalies and timing (controllers/anomalies.py, screens/timing.py).
    B("e", "anomaly(1)", "Next anomaly", show=False, id="next-anomaly",
      tooltip="The next anomaly of the kind picked with a (any kind by default)"),
    B("E", "anomaly(-1)", "Previous anomaly", show=False, id="previous-anomaly",
      tooltip="The previous anomaly of the kind picked with a"),
    B("a", "anomaly_kind", "Anomaly kind", show=False, id="anomaly-kind",
      tooltip="Which anomalies e and E step through: errors, retries, stalls, ..."),
    B("T", "timing", "Timing", show=False, id="timing",
      tooltip="Where the time went: calls slowest first, any column sorted, a turn's waterfall"),
    # Search, marks, filter chips and the list's look (controllers/search.py, marks.py, chips.py).
    B("backslash", "search_reverse", "Search the other way", show=False, id="search-reverse",
      tooltip="Search in the direction / does not: down on a crash log, else up"),
    B("r", "toggle_raw", "Pretty / raw", show=False, id="toggle-raw",
      tooltip="Rows show each event's raw record, or its summary"),
    B("m", "toggle_mark", "Mark", show=False, id="toggle-mark", tooltip="Mark or unmark the event under the cursor"),
    B("apostrophe", "mark(1)", "Next mark", show=False, id="next-mark", tooltip="The next marked event (wraps)"),
    B("quotation_mark", "mark(-1)", "Previous mark", show=False, id="previous-mark",
      tooltip="The previous marked event (wraps)"),
    B("M", "copy_marks", "Copy marked", show=False, id="copy-marks",
      tooltip="The raw records of every marked event, secrets masked"),
    B("ctrl+x", "clear_marks", "Clear marks", show=False, id="clear-marks", tooltip="Unmark every event"),
    B("plus", "add_chip(True)", "Show only", show=False, id="chip-include",
      tooltip="Add a filter chip: only events with this text, type:GLOB or tool:GLOB"),
    B("minus", "add_chip(False)", "Hide", show=False, id="chip-exclude",
      tooltip="Add a filter chip: hide events with this text, type:GLOB or tool:GLOB"),
    B("x", "pick_chips", "Filters", show=False, id="pick-chips", tooltip="The filter chips: space turns one on or off, del removes"),
    # The full header and the detail pane's word wrap (screens/header.py, widgets/detail.py).
    B("H", "full_header", "Full header", show=False, id="full-header",
      tooltip="Every header field (the cwd whole), what the session is, the raw header line"),
    B("W", "toggle_wrap", "Word / char wrap", show=False, id="toggle-wrap",
      tooltip="The detail pane's long lines wrap at spaces (the default), or are cut at the width"),
    # The lnav / less habits (ui/lnav.py): scroll the rows' text, the view out, the family's timeline.
    B("less_than_sign,left", "shift_rows(-1)", "Scroll text left", show=False, id="shift-left",
      tooltip="Scroll the event rows' text back to the left (the columns stay)"),
    B("greater_than_sign,right", "shift_rows(1)", "Scroll text right", show=False, id="shift-right",
      tooltip="Scroll the event rows' text to the right, for long summaries (the columns stay)"),
    B("o", "write_view", "Write view", show=False, id="write-view",
      tooltip="The shown (filtered) events' raw records as JSONL to a new file, not masked"),
    B("vertical_line", "pipe_view", "Pipe view", show=False, id="pipe-view",
      tooltip="The shown (filtered) events' raw records on a shell command's stdin; its output in a window"),
    B("C", "merged_timeline", "Merged timeline", show=False, id="merged-timeline",
      tooltip="This session and its subagent children, one list interleaved by time; enter opens a child there"),
    # What the model saw and what the run touched (screens/context.py, requests.py, files.py, jsontree.py).
    B("X", "context", "Context", show=False, id="context",
      tooltip="What the model saw at the cursor, and input tokens per request with compactions marked"),
    B("I", "requests", "Request headers", show=False, id="requests",
      tooltip="Each request header, what changed from the one before, the one in force at the cursor"),
    B("D", "files", "Files touched", show=False, id="files",
      tooltip="Every file the run read, wrote, edited or deleted, with its diffs in order"),
    B("J", "json_tree", "JSON tree", show=False, id="json-tree",
      tooltip="The event as a foldable tree: copy a value, its JSONPath or a jq path"),
]

# The events list's count (widgets/event_list.py), as in vim: digits then G go to that seq.
# Escape clears a pending count; with none it only closes what is open (never Back: b leaves the session).
COUNT_BINDINGS = [
    *(B(str(d), f"count({d})", f"Count digit {d}", show=False, id=f"count-{d}") for d in range(10)),
    B("escape", "clear_count", "Clear the count", show=False, id="clear-count"),
]

# The explorer's screen (screens/main.py), under the app's keys in the chain: with nowhere to go
# back to, Back is disabled (and hidden from the footer), so b comes here and says so.
SCREEN_BINDINGS = [B("b", "try_back", "Back", show=False, id="try-back")]

# The docked prompt (widgets/cmdline.py).
PROMPT_BINDINGS = [B("escape", "cancel", "Cancel", show=False, id="prompt-cancel"),
                   B("up", "history(-1)", "Previous value", show=False, id="prompt-previous"),
                   B("down", "history(1)", "Next value", show=False, id="prompt-next"),
                   B("ctrl+r", "toggle", "Regex / literal", show=False, id="prompt-regex")]

# The full header window (screens/header.py); its own keys, named in its bottom rule.
HEADER_SCREEN_BINDINGS = [B("escape,q,H", "close", "Close", show=False, id="header-close"),
                          B("y", "copy_header", "Copy the raw header line", show=False, id="header-copy")]

# The JSON tree (screens/jsontree.py): the window's keys, then its list's (jless's).
JSON_TREE_BINDINGS = [B("escape,q", "close", "Close", show=False, id="tree-close"),
                      B("slash", "search", "Search", show=False, id="tree-search"),
                      B("n", "next_hit", "Next hit", show=False, id="tree-next-hit"),
                      B("c", "copy_value", "Copy value", show=False, id="tree-copy-value"),
                      B("p", "copy_path", "Copy JSONPath", show=False, id="tree-copy-path"),
                      B("P", "copy_jq", "Copy jq path", show=False, id="tree-copy-jq"),
                      B("r", "copy_raw", "Copy raw string", show=False, id="tree-copy-raw")]
JSON_TREE_LIST_BINDINGS = [B("l,right", "unfold", "Unfold", show=False, id="tree-unfold"),
                           B("h,left", "fold", "Fold", show=False, id="tree-fold"),
                           B("L", "unfold_all", "Unfold all", show=False, id="tree-unfold-all"),
                           B("H", "fold_all", "Fold all", show=False, id="tree-fold-all")]

# The context, request and files views (screens/context.py, requests.py, files.py).
CONTEXT_BINDINGS = [B("escape,q,C", "close", "Close", show=False, id="context-close"),
                    B("enter", "jump", "Jump", show=False, id="context-jump")]
CHART_BINDINGS = [B("left,h", "bar(-1)", "Previous bar", show=False, id="chart-previous"),
                  B("right,l", "bar(1)", "Next bar", show=False, id="chart-next"),
                  B("enter", "jump_bar", "Jump to the request", show=False, id="chart-jump")]
REQUESTS_BINDINGS = [B("escape,q,I", "close", "Close", show=False, id="requests-close"),
                     B("enter", "open", "The header in full", show=False, id="requests-open"),
                     B("g", "jump", "Go to the header", show=False, id="requests-jump")]
FILES_BINDINGS = [B("escape,q,D", "close", "Close", show=False, id="files-close"),
                  B("enter", "enter", "Open / jump", show=False, id="files-enter")]
INSIGHT_TABLES = (JSON_TREE_BINDINGS, JSON_TREE_LIST_BINDINGS, CONTEXT_BINDINGS, CHART_BINDINGS, REQUESTS_BINDINGS,
                  FILES_BINDINGS)

# The error screen (screens/error.py): the keys it lists under its reason.
ERROR_BINDINGS = [B("q", "leave", "Quit", id="error-quit", tooltip="Exit with code 3"),
                  B("escape,enter", "back_or_leave", "Back / quit", show=False, id="error-back-or-quit",
                    tooltip="Back to the previous session or the browser, else quit"),
                  B("b", "back", "Back", id="error-back", tooltip="The previous session or the browser"),
                  B("L", "lenient", "Open --lenient", id="error-lenient",
                    tooltip="Open the refused log anyway, everything marked UNVERIFIED")]

# The copy window (screens/report.py).
REPORT_BINDINGS = [B("escape,q,enter", "dismiss", "Close", show=False, id="report-close"),
                   B("m", "switch", "Markdown report / plain snippet", show=False, id="report-switch")]

# The output of a command the view was piped to (screens/output.py).
OUTPUT_BINDINGS = [B("escape,q,enter", "dismiss", "Close", show=False, id="output-close")]

# Every list's keys (widgets/vlist.py) and the detail pane's (widgets/detail.py, the same table), with the
# ids a keymap names. A test checks the lists' own table says the same keys and actions.
LIST_BINDINGS = [
    B("up,k", "move(-1)", "Up", show=False, id="cursor-up"),
    B("down,j", "move(1)", "Down", show=False, id="cursor-down"),
    B("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="page-up"),
    B("pagedown,ctrl+f,space", "page(1)", "Page down", show=False, id="page-down"),
    B("home,g", "first", "First", show=False, id="first-row"),
    B("end,G", "last", "Last", show=False, id="last-row"),
]

# Textual's own keys the help names: focus (Screen.BINDINGS) and the command palette (App).
TEXTUAL_BINDINGS = [
    B("tab", "app.focus_next", "Focus Next", show=False, id="focus-next"),
    B("shift+tab", "app.focus_previous", "Focus Previous", show=False, id="focus-previous"),
    B("ctrl+p", "command_palette", "Command palette", show=False, id="command-palette"),
]

# The pickers (widgets/picklist.py: anomaly kind, filter, checklist, chips, children): j / k as in the lists.
PICK_BINDINGS = [B("j", "cursor_down", "Down", show=False, id="pick-down"),
                 B("k", "cursor_up", "Up", show=False, id="pick-up")]

# The session browser (screens/browser.py).
BROWSER_BINDINGS = [
    B("enter", "open", "Open", id="browser-open"),
    B("slash", "filter", "Filter", id="browser-filter"),
    B("escape", "clear_filter", "Clear filter", show=False, id="browser-clear-filter"),
    B("r", "rescan", "Re-list", id="browser-rescan"),
    B("question_mark,f1", "help", "Help", id="browser-help"),
    B("q", "app.quit", "Quit", id="browser-quit"),
]

# The fleet view (screens/fleet.py): a scan's sessions by verdict kind and failing tool.
FLEET_BINDINGS = [
    B("enter", "select_cursor", "Open", id="fleet-open", show=False),
    B("tab", "switch", "Groups / sessions", id="fleet-switch"),
    B("r", "reload", "Reload", id="fleet-reload"),
    B("question_mark,f1", "help", "Help", id="fleet-help"),
    B("q", "app.quit", "Quit", id="fleet-quit"),
]


@dataclass(frozen=True)
class HelpRow:
    """One help line: the keys of the bindings ``ids`` (as in effect after the keymap) and what they do.

    ``label`` is how the keys read while every one of ``ids`` has its default keys (``↑ ↓  k j``);
    remapped, the row lists the keys in effect. A row without ids is a legend (the browser's marks).
    """

    group: str
    ids: tuple[str, ...]
    text: str
    label: str | None = None


def R(group: str, ids: str, text: str, label: str | None = None) -> HelpRow:
    return HelpRow(group, tuple(ids.split()), text, label)


HELP = [
    R("Move", "cursor-up cursor-down", "previous / next row, or line in the detail pane", "↑ ↓  k j"),
    R("Move", "page-up page-down", "page up / down (also space, ctrl+b, ctrl+f)", "PgUp PgDn"),
    R("Move", "first-row last-row", "first / last row", "Home g  End G"),
    R("Move", "focus-next focus-previous", "next / previous pane: events, pairs, detail"),
    R("Move", "enter", "events → detail; pairs or detail → events"),
    R("Move", "zoom", "zoom the focused pane (z again restores)"),
    R("Move", "pick-down pick-up", "next / previous entry in a picker (a f t x c)", "j k"),
    R("Jump", "goto", "go to a seq, a time (12:03:04, ISO) or +5m from the start"),
    R("Jump", " ".join(f"count-{d}" for d in range(10)) + " clear-count",
      "go to seq 123 (events list; esc clears the digits)", "123G"),
    R("Jump", "verdict", "the verdict (the primary finding)"),
    R("Jump", "next-finding previous-finding", "next / previous finding"),
    R("Jump", "partner", "call ⇄ result (also run ⇄ done, asked ⇄ decided)"),
    R("Jump", "next-anomaly previous-anomaly", "next / previous anomaly of the kind a picks"),
    R("Jump", "anomaly-kind", "pick the anomaly kind: error, retry, stall, …"),
    R("Jump", "timing", "timing view: slowest calls, a turn's waterfall"),
    R("Find", "search", "search type, tool, callId and text in the whole log"),
    R("Find", "prompt-previous prompt-next", "in the / and : prompts: the earlier searches / seqs"),
    R("Find", "prompt-regex", "in the / prompt: regex (smart case) / literal"),
    R("Find", "next-hit previous-hit", "next / previous hit (finding, when no search)"),
    R("Find", "search-reverse", "search the other way (/ searches up from the cursor on a crash log; n goes on, N back)"),
    R("Find", "filter", "filter: findings, problems, pairs, no chunks, a type"),
    R("Find", "clear-filter", "clear the filter"),
    R("Find", "chip-include", "filter chip: show only events with text, type:GLOB or tool:GLOB"),
    R("Find", "chip-exclude", "filter chip: hide events with text, type:GLOB or tool:GLOB"),
    R("Find", "pick-chips", "the filter chips: space on / off, del removes (they narrow f's filter)"),
    R("Marks", "toggle-mark", "mark / unmark the event (● in the gutter; marks, chips and position are kept per log)"),
    R("Marks", "next-mark previous-mark", "next / previous mark"),
    R("Marks", "copy-marks", "copy the marked events' raw records, secrets masked"),
    R("Marks", "clear-marks", "clear every mark"),
    R("Report", "copy-report", "copy the masked bug report (finding at the cursor, else verdict)"),
    R("Report", "copy-call-id", "copy just the callId"),
    R("Report", "copy-raw-unmasked", "copy the event's raw record, UNMASKED (secrets included)"),
    R("Report", "save-event", "save the full event JSON to a file (not masked)"),
    R("Report", "checklist", "the ten-minute pass checklist"),
    R("Report", "permalink", "copy the permalink <session-id>@<seq> of the event"),
    R("Report", "report-switch", "(in the copy window) the markdown bug report, secrets masked"),
    R("Report", "write-view", "write the shown events as JSONL to a new file (raw, unmasked)"),
    R("Report", "pipe-view", "pipe the shown events' raw records to a shell command"),
    R("Report", "output-close", "(in the pipe's output window) close it"),
    R("Sessions", "back try-back", "back: the previous session, else the session browser (if any)", "b"),
    R("Sessions", "parent", "open the parent session (delegated children)"),
    R("Sessions", "children", "delegated children: pick one to open"),
    R("Sessions", "enter", "on NOT_IN_TOOL_SET: open the child that calls the tool"),
    R("Sessions", "toggle-follow", "follow the file live / pause (shown in the header)"),
    R("Sessions", "merged-timeline", "merged timeline of the session and its children by time"),
    R("Screen", "full-header", "the full header: every field, the whole cwd, the raw header line"),
    R("Screen", "header-copy", "(in the full header) copy the raw header line"),
    R("Screen", "error-lenient", "(on a refused log's error screen) open it anyway, marked UNVERIFIED"),
    R("Screen", "shift-left shift-right", "scroll the event rows' text left / right (long summaries)",
      "< >  ← →"),
    R("Screen", "toggle-wrap", "wrap the detail at the width / at words (the default)"),
    R("Screen", "toggle-pairs", "show / hide the pairs pane"),
    R("Screen", "toggle-raw", "events list: raw records / summaries (the title says raw)"),
    R("Context", "context", "what the model saw at the cursor; tokens per request, compactions marked (▲)"),
    R("Context", "chart-previous chart-next chart-jump", "(in the chart) pick a bar; enter jumps to that request"),
    R("Context", "context-jump", "(in the context list) jump to the node's event"),
    R("Context", "context-close", "close the context view"),
    R("Context", "requests", "request headers: what changed, the one in force at the cursor"),
    R("Context", "requests-open requests-jump", "(in the headers) the header in full as a tree; g goes to it"),
    R("Context", "requests-close", "close the request headers"),
    R("Context", "files", "files touched: counts per file, enter opens its diffs or jumps to the event"),
    R("Context", "files-enter", "(in the files) open a file, or jump to an operation's event"),
    R("Context", "files-close", "close the files view"),
    R("Context", "json-tree", "the event as a JSON tree"),
    R("Context", "tree-fold tree-unfold", "(in the tree) fold / unfold (also left, right)", "h l"),
    R("Context", "tree-fold-all tree-unfold-all", "(in the tree) fold all / unfold all under the cursor", "H L"),
    R("Context", "tree-next-hit tree-search", "(in the tree) next hit; search keys and values, folded ones too", "n /"),
    R("Context", "tree-copy-value tree-copy-path tree-copy-jq", "(in the tree) copy the value, its JSONPath, a jq path", "c p P"),
    R("Context", "tree-copy-raw", "(in the tree) copy a parsed JSON string's raw text, byte for byte"),
    R("Context", "tree-close", "close the tree (or the search box)"),
    R("Screen", "help", "this help"),
    R("Screen", "command-palette", "command palette: every action"),
    R("Screen", "quit", "quit"),
]

BROWSER_HELP = [
    R("Sessions", "cursor-up cursor-down", "previous / next row", "↑ ↓  k j"),
    R("Sessions", "page-up page-down", "page up / down (also space, ctrl+b, ctrl+f)", "PgUp PgDn"),
    R("Sessions", "first-row last-row", "first / last row", "Home g  End G"),
    R("Sessions", "browser-open", "open the session in the explorer (b comes back here)"),
    R("Sessions", "browser-filter", "filter: id, cwd, project, preset, status (every word must match)"),
    R("Sessions", "browser-clear-filter", "clear the filter"),
    R("Sessions", "browser-rescan", "list the root again and re-read every status"),
    R("Rows", "", "failed: verdict, open turn (crash or still running), torn, corrupt, rejected", "✗"),
    R("Rows", "", "aborted / interrupted, or a note (orphan child, id/cwd mismatch)", "!"),
    R("Rows", "", "a subagent or fork child, under its parent", "↳"),
    R("Screen", "browser-help", "this help"),
    R("Screen", "browser-quit", "quit"),
]

FLEET_HELP = [
    R("Fleet", "cursor-up cursor-down", "previous / next group or session", "↑ ↓  k j"),
    R("Fleet", "fleet-open", "on a group: its sessions; on a session: open it in the explorer at its verdict"),
    R("Fleet", "fleet-switch", "between the groups and their sessions"),
    R("Fleet", "fleet-reload", "read the scan again (after `dsh-tui scan` ran)"),
    R("Sessions", "back try-back", "(in the explorer) back to the fleet view", "b"),
    R("Screen", "fleet-help", "this help"),
    R("Screen", "fleet-quit", "quit"),
]

# The command palette: the app's keys (Textual adds Quit itself), under these titles where the footer's
# label is too short, plus actions bound only in a widget or a window: (binding id, title, action).
PALETTE_TITLES = {
    "verdict": "Jump to the verdict", "next-hit": "Next search hit", "previous-hit": "Previous search hit",
    "filter": "Filter events", "clear-filter": "Clear the filter", "copy-report": "Copy bug report",
    "save-event": "Save event JSON", "checklist": "Ten-minute pass", "toggle-pairs": "Toggle pairs pane",
    "full-header": "Show the full header", "toggle-wrap": "Word / character wrap in the detail pane",
    "parent": "Open the parent session", "children": "Open a child session",
    "chip-include": "Filter chip: show only", "chip-exclude": "Filter chip: hide", "pick-chips": "Filter chips",
    "toggle-raw": "Raw records / summaries in the list", "toggle-mark": "Mark / unmark the event", "copy-marks": "Copy the marked events",
    "next-anomaly": "Next anomaly", "previous-anomaly": "Previous anomaly", "anomaly-kind": "Pick the anomaly kind",
    "timing": "Timing view",
    "shift-left": "Scroll the rows' text left", "shift-right": "Scroll the rows' text right",
    "write-view": "Write the view as JSONL", "pipe-view": "Pipe the view to a command",
    "merged-timeline": "Merged timeline of the session and its children",
    "context": "Context: what the model saw", "requests": "Request headers", "files": "Files touched",
    "json-tree": "JSON tree of the event",
}
PALETTE_SKIP = frozenset({"quit", "enter", "back"})  # Textual's Quit; Enter depends on the focus; Back: below
PALETTE_EXTRA = [
    ("first-row", "First event", "first_event", "The first event of the list"),
    ("last-row", "Last event", "last_event", "The last event of the list"),
    ("report-switch", "Copy markdown bug report", "copy_report_markdown",
     "Masked markdown report for the finding under the cursor"),
    ("try-back", "Back", "try_back", "The previous session, else the session browser"),
]

# The diff explorer (`dsh-tui diff A B`: screens/diff.py, ui/diffapp.py). Its two lists take LIST_BINDINGS;
# the other list's cursor follows. Help rows, palette entries and a keymap come from these, as above.
DIFF_BINDINGS = [
    B("n,right_square_bracket", "difference(1)", "Next difference", id="diff-next",
      tooltip="The next row that differs: another tool, arguments or result, a retry, a call on one side only"),
    B("N,left_square_bracket", "difference(-1)", "Previous difference", id="diff-previous",
      tooltip="The previous row that differs"),
    B("v", "first_divergence", "First divergence", id="diff-first", tooltip="Where the two runs first differ"),
    B("y", "copy_diff", "Copy report", id="diff-copy",
      tooltip="The markdown diff report (what changed), secrets masked"),
    B("question_mark,f1", "help", "Help", id="diff-help", tooltip="Every key of the diff view"),
    B("q", "quit", "Quit", id="diff-quit", tooltip="Quit"),
]

DIFF_HELP = [
    R("Move", "cursor-up cursor-down", "previous / next row: both lists move together", "↑ ↓  k j"),
    R("Move", "page-up page-down", "page up / down (also space, ctrl+b, ctrl+f)", "PgUp PgDn"),
    R("Move", "first-row last-row", "first / last row", "Home g  End G"),
    R("Move", "focus-next focus-previous", "next / previous pane: left, right, detail"),
    R("Diff", "diff-next diff-previous", "next / previous difference"),
    R("Diff", "diff-first", "the first divergence (where the cursor starts)"),
    R("Diff", "diff-copy", "copy the markdown diff report, secrets masked"),
    R("Rows", "", "changed on both sides (the detail shows the two as a diff)", "~"),
    R("Rows", "", "on the left / right side only (a gap on the other)", "< >"),
    R("Rows", "", "inherited through a fork seed: shown once, the same on both sides", "="),
    R("Screen", "diff-help", "this help"),
    R("Screen", "command-palette", "command palette: every action"),
    R("Screen", "diff-quit", "quit"),
]
