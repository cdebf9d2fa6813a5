"""Every key of dsh-tui, as data: one registry of `Action` records (id -> keys, footer label, palette help
and title, help row, handler). The bindings of every screen and widget (ui/keys.py), the help screens, the
command palette (ui/palette.py), the footer, the keymap check (ui/settings_ui.py) and the README's key
tables (ui/keydocs.py) are derived from it; nothing else lists keys.

An action's ``scope`` names the table its binding goes in (the screen or widget that holds it) and so the
help screen that documents it (``HELP_SCREENS``). Its ``run`` says what the key does:

- in the explorer's scope, a handler on the explorer: ``"jumps.finding(1)"`` (a controller's method),
  ``"toggle_pairs"`` (the explorer's own); its binding is ``do('<id>')``, dispatched by ``dispatch``
  through this registry (no ``action_*`` method relays it). ``app.quit`` is Textual's own action.
- elsewhere, the Textual action of that screen or widget itself: ``"move(-1)"``, ``"close"``.

The help rows are the actions' own (``help``, ``group``; an action with ``joins`` shares the row of the
action it names), plus `Row` entries: a key documented on another screen's help (the lists' keys on the
browser's), a second row for one key, or a legend. Rows show in the registry's order.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from textual.binding import Binding

EXPLORER = "explorer"  # the scope whose actions dispatch through the registry
VIEW_SCOPES = ("timing", "context", "requests", "files", "tree")  # full-screen views over the explorer


@dataclass(frozen=True)
class Action:
    id: str
    scope: str
    keys: str
    description: str  # the footer's label
    run: str  # the handler (explorer) or the Textual action (other scopes)
    tooltip: str = ""  # the command palette's help for it
    show: bool = False  # in the footer
    group: str = ""  # its help row: the group ...
    help: str = ""  # ... and the text (empty: no row of its own)
    label: str | None = None  # how the row's keys read while not remapped (``↑ ↓  k j``)
    joins: str | None = None  # the id of the action whose help row lists this key too
    title: str | None = None  # the palette's title (else ``description``)
    palette: bool = True  # an explorer action in the command palette
    footer: int = 0  # the place among the footer's keys (explorer; lower first)

    def binding(self) -> Binding:
        action = self.run if self.scope != EXPLORER or self.run.startswith("app.") else f"do({self.id!r})"
        return Binding(self.keys, action, self.description, show=self.show, id=self.id, tooltip=self.tooltip)


@dataclass(frozen=True)
class Row:
    """A help row that is not an action's own: ``ids`` documented on ``screen`` (none: a legend)."""

    screen: str
    group: str
    ids: str
    help: str
    label: str | None = None


@dataclass(frozen=True)
class Command:
    """A palette command bound nowhere as such: ``run`` (an explorer handler), with the keys of ``keys_of``."""

    id: str
    keys_of: str
    title: str
    run: str
    tooltip: str


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


A = Action
E = EXPLORER

REGISTRY: list[Action | Row | Command] = [
    # -- the explorer's help, in its order ----------------------------------------------------------
    A("cursor-up", "list", "up,k", "Up", "move(-1)", group="Move",
      help="previous / next row, or line in the detail pane", label="↑ ↓  k j"),
    A("cursor-down", "list", "down,j", "Down", "move(1)", joins="cursor-up"),
    A("page-up", "list", "pageup,ctrl+b", "Page up", "page(-1)", group="Move",
      help="page up / down (also space, ctrl+b, ctrl+f)", label="PgUp PgDn"),
    A("page-down", "list", "pagedown,ctrl+f,space", "Page down", "page(1)", joins="page-up"),
    A("first-row", "list", "home,g", "First", "first", group="Move", help="first / last row",
      label="Home g  End G"),
    A("last-row", "list", "end,G", "Last", "last", joins="first-row"),
    A("focus-next", "textual", "tab", "Focus Next", "app.focus_next", group="Move",
      help="next / previous pane: events, pairs, detail"),
    A("focus-previous", "textual", "shift+tab", "Focus Previous", "app.focus_previous", joins="focus-next"),
    A("enter", E, "enter", "Open", "enter", tooltip="Events → detail; pairs or detail → events", group="Move",
      help="events → detail; pairs or detail → events", palette=False),  # what it does depends on the focus
    A("zoom", E, "z", "Zoom pane", "zoom", tooltip="Maximize or restore the focused pane", group="Move",
      help="zoom the focused pane (z again restores)"),
    A("pick-down", "pick", "j", "Down", "cursor_down", group="Move",
      help="next / previous entry in a picker (a f t x c)", label="j k"),
    A("pick-up", "pick", "k", "Up", "cursor_up", joins="pick-down"),
    A("goto", E, "colon", "Go to seq / time", "jumps.ask_goto",
      tooltip="Jump to a seq (or 123G in the events list), a time (12:03:04, ISO) or +5m from the start",
      group="Jump", help="go to a seq, a time (12:03:04, ISO) or +5m from the start"),
    A("count-0", "count", "0", "Count digit 0", "count(0)", group="Jump",
      help="go to seq 123 (events list; esc clears the digits)", label="123G"),
    *(A(f"count-{d}", "count", str(d), f"Count digit {d}", f"count({d})", joins="count-0") for d in range(1, 10)),
    A("clear-count", "count", "escape", "Clear the count", "clear_count", joins="count-0"),
    A("verdict", E, "v", "Verdict", "jumps.verdict", tooltip="The primary finding", group="Jump",
      help="the verdict (the primary finding)", title="Jump to the verdict"),
    A("next-finding", E, "right_square_bracket", "Next finding", "jumps.finding(1)",
      tooltip="The next finding below the cursor", group="Jump", help="next / previous finding"),
    A("previous-finding", E, "left_square_bracket", "Previous finding", "jumps.finding(-1)",
      tooltip="The previous finding above the cursor", joins="next-finding"),
    A("partner", E, "p", "Call ⇄ result", "jumps.partner", tooltip="Jump between a call and its result",
      group="Jump", help="call ⇄ result (also run ⇄ done, asked ⇄ decided)"),
    A("next-anomaly", E, "e", "Next anomaly", "anomalies.step(1)",
      tooltip="The next anomaly of the kind picked with a (any kind by default)", group="Jump",
      help="next / previous anomaly of the kind a picks"),
    A("previous-anomaly", E, "E", "Previous anomaly", "anomalies.step(-1)",
      tooltip="The previous anomaly of the kind picked with a", joins="next-anomaly"),
    A("anomaly-kind", E, "a", "Anomaly kind", "anomalies.pick",
      tooltip="Which anomalies e and E step through: errors, retries, stalls, ...", group="Jump",
      help="pick the anomaly kind: error, retry, stall, …", title="Pick the anomaly kind"),
    A("timing", E, "T", "Timing", "timing_view.open",
      tooltip="Where the time went: calls slowest first, any column sorted, a turn's waterfall", group="Jump",
      help="timing view: slowest calls, a turn's waterfall", title="Timing view"),
    A("search", E, "slash", "Search", "search.ask", tooltip="Type, tool name, callId or text in the whole log",
      show=True, footer=2, group="Find", help="search type, tool, callId and text in the whole log"),
    A("prompt-previous", "prompt", "up", "Previous value", "history(-1)", group="Find",
      help="in the / and : prompts: the earlier searches / seqs"),
    A("prompt-next", "prompt", "down", "Next value", "history(1)", joins="prompt-previous"),
    A("prompt-regex", "prompt", "ctrl+r", "Regex / literal", "toggle", group="Find",
      help="in the / prompt: regex (smart case) / literal"),
    A("prompt-cancel", "prompt", "escape", "Cancel", "cancel"),  # named in the prompt itself
    A("next-hit", E, "n", "Next hit", "next_hit(1)", tooltip="The next search hit, else finding", group="Find",
      help="next / previous hit (finding, when no search)", title="Next search hit"),
    A("previous-hit", E, "N", "Previous hit", "next_hit(-1)", tooltip="The previous search hit, else finding",
      joins="next-hit", title="Previous search hit"),
    A("search-reverse", E, "backslash", "Search the other way", "search.ask(True)",
      tooltip="Search in the direction / does not: down on a crash log, else up", group="Find",
      help="search the other way (/ searches up from the cursor on a crash log; n goes on, N back)"),
    A("filter", E, "f", "Filter", "filters.pick", tooltip="Findings, problems, pairs, no chunks, one type",
      group="Find", help="filter: findings, problems, pairs, no chunks, a type", title="Filter events"),
    A("clear-filter", E, "F", "Clear filter", "filters.clear", tooltip="Show every event", group="Find",
      help="clear the filter", title="Clear the filter"),
    A("chip-include", E, "plus", "Show only", "chips.ask(True)",
      tooltip="Add a filter chip: only events with this text, type:GLOB or tool:GLOB", group="Find",
      help="filter chip: show only events with text, type:GLOB or tool:GLOB", title="Filter chip: show only"),
    A("chip-exclude", E, "minus", "Hide", "chips.ask(False)",
      tooltip="Add a filter chip: hide events with this text, type:GLOB or tool:GLOB", group="Find",
      help="filter chip: hide events with text, type:GLOB or tool:GLOB", title="Filter chip: hide"),
    A("pick-chips", E, "x", "Filters", "chips.pick", tooltip="The filter chips: space turns one on or off, del removes",
      group="Find", help="the filter chips: space on / off, del removes (they narrow f's filter)",
      title="Filter chips"),
    A("toggle-mark", E, "m", "Mark", "marks.toggle", tooltip="Mark or unmark the event under the cursor",
      group="Marks", help="mark / unmark the event (● in the gutter; marks, chips and position are kept per log)",
      title="Mark / unmark the event"),
    A("next-mark", E, "apostrophe", "Next mark", "marks.step(1)", tooltip="The next marked event (wraps)",
      group="Marks", help="next / previous mark"),
    A("previous-mark", E, "quotation_mark", "Previous mark", "marks.step(-1)",
      tooltip="The previous marked event (wraps)", joins="next-mark"),
    A("copy-marks", E, "M", "Copy marked", "marks.copy",
      tooltip="The raw records of every marked event, secrets masked",
      group="Marks", help="copy the marked events' raw records, secrets masked", title="Copy the marked events"),
    A("clear-marks", E, "ctrl+x", "Clear marks", "marks.clear", tooltip="Unmark every event", group="Marks",
      help="clear every mark"),
    A("copy-report", E, "y", "Copy report", "copy.report",
      tooltip="Snippet for the finding under the cursor, else the verdict, secrets masked", show=True, footer=3,
      group="Report", help="copy the masked bug report (finding at the cursor, else verdict)",
      title="Copy bug report"),
    A("copy-call-id", E, "Y", "Copy callId", "copy.call_id", tooltip="Just the callId", group="Report",
      help="copy just the callId"),
    A("copy-raw-unmasked", E, "R", "Copy raw record (unmasked)", "copy.raw",
      tooltip="The event's record exactly as written: secrets NOT masked", group="Report",
      help="copy the event's raw record, UNMASKED (secrets included)"),
    A("save-event", E, "s", "Save event", "copy.save_event", tooltip="Write the full event to a file, not masked",
      group="Report", help="save the full event JSON to a file (not masked)", title="Save event JSON"),
    A("checklist", E, "t", "10-min pass", "checklist", tooltip="The checklist", show=True, footer=4, group="Report",
      help="the ten-minute pass checklist", title="Ten-minute pass"),
    A("permalink", E, "l", "Copy permalink", "copy.permalink",
      tooltip="<session-id>@<seq> of the event under the cursor", group="Report",
      help="copy the permalink <session-id>@<seq> of the event"),
    A("report-close", "report", "escape,q,enter", "Close", "dismiss"),  # named in the copy window
    A("report-switch", "report", "m", "Markdown report / plain snippet", "switch", group="Report",
      help="(in the copy window) the markdown bug report, secrets masked"),
    A("write-view", E, "o", "Write view", "view_out.ask_write",
      tooltip="The shown (filtered) events' raw records as JSONL to a new file, not masked", group="Report",
      help="write the shown events as JSONL to a new file (raw, unmasked)", title="Write the view as JSONL"),
    A("pipe-view", E, "vertical_line", "Pipe view", "view_out.ask_pipe",
      tooltip="The shown (filtered) events' raw records on a shell command's stdin; its output in a window",
      group="Report", help="pipe the shown events' raw records to a shell command",
      title="Pipe the view to a command"),
    A("output-close", "output", "escape,q,enter", "Close", "dismiss", group="Report",
      help="(in the pipe's output window) close it"),
    # Back, shown in the footer only when there is somewhere to go back to; with nowhere, try-back takes b
    # and says so. Esc never leaves a session.
    A("back", E, "b", "Back", "back", tooltip="The previous session, else the session browser", show=True,
      footer=6, group="Sessions", help="back: the previous session, else the session browser (if any)",
      label="b", palette=False),
    A("try-back", E, "b", "Back", "back", tooltip="The previous session, else the session browser",
      joins="back"),
    A("parent", E, "u", "Parent session", "family.parent", tooltip="Of a delegated child", group="Sessions",
      help="open the parent session (delegated children)", title="Open the parent session"),
    A("children", E, "c", "Children", "family.children", tooltip="Delegated children of this session",
      group="Sessions", help="delegated children: pick one to open", title="Open a child session"),
    Row(E, "Sessions", "enter", "on NOT_IN_TOOL_SET: open the child that calls the tool"),
    A("toggle-follow", E, "w", "Follow / pause", "follow.toggle", tooltip="Re-read the file as it grows",
      group="Sessions", help="follow the file live / pause (shown in the header)"),
    A("merged-timeline", E, "C", "Merged timeline", "timeline.toggle",
      tooltip="This session and its subagent children, one list interleaved by time; enter opens a child there",
      group="Sessions", help="merged timeline of the session and its children by time",
      title="Merged timeline of the session and its children"),
    A("full-header", E, "H", "Full header", "full_header",
      tooltip="Every header field (the cwd whole), what the session is, the raw header line", group="Screen",
      help="the full header: every field, the whole cwd, the raw header line", title="Show the full header"),
    A("header-close", "header", "escape,q,H", "Close", "close"),  # named in the window's bottom rule
    A("header-copy", "header", "y", "Copy the raw header line", "copy_header", group="Screen",
      help="(in the full header) copy the raw header line"),
    A("error-quit", "error", "q", "Quit", "leave", tooltip="Exit with code 3", show=True),
    A("error-back-or-quit", "error", "escape,enter", "Back / quit", "back_or_leave",
      tooltip="Back to the previous session or the browser, else quit"),
    A("error-back", "error", "b", "Back", "back", tooltip="The previous session or the browser", show=True),
    A("error-lenient", "error", "L", "Open --lenient", "lenient",
      tooltip="Open the refused log anyway, everything marked UNVERIFIED", show=True, group="Screen",
      help="(on a refused log's error screen) open it anyway, marked UNVERIFIED"),
    A("shift-left", E, "less_than_sign,left", "Scroll text left", "shift_rows(-1)",
      tooltip="Scroll the event rows' text back to the left (the columns stay)", group="Screen",
      help="scroll the event rows' text left / right (long summaries)", label="< >  ← →",
      title="Scroll the rows' text left"),
    A("shift-right", E, "greater_than_sign,right", "Scroll text right", "shift_rows(1)",
      tooltip="Scroll the event rows' text to the right, for long summaries (the columns stay)",
      joins="shift-left", title="Scroll the rows' text right"),
    A("toggle-wrap", E, "W", "Word / char wrap", "detail.toggle_wrap",
      tooltip="The detail pane's long lines wrap at spaces (the default), or are cut at the width", group="Screen",
      help="wrap the detail at the width / at words (the default)", title="Word / character wrap in the detail pane"),
    A("toggle-pairs", E, "P", "Pairs pane", "toggle_pairs", tooltip="Show or hide the call/result pairs",
      group="Screen", help="show / hide the pairs pane", title="Toggle pairs pane"),
    A("toggle-raw", E, "r", "Pretty / raw", "toggle_raw", tooltip="Rows show each event's raw record, or its summary",
      group="Screen", help="events list: raw records / summaries (the title says raw)",
      title="Raw records / summaries in the list"),
    A("context", E, "X", "Context", "insight.context",
      tooltip="What the model saw at the cursor, and input tokens per request with compactions marked",
      group="Context", help="what the model saw at the cursor; tokens per request, compactions marked (▲)",
      title="Context: what the model saw"),
    A("chart-previous", "chart", "left,h", "Previous bar", "bar(-1)", group="Context",
      help="(in the chart) pick a bar; enter jumps to that request"),
    A("chart-next", "chart", "right,l", "Next bar", "bar(1)", joins="chart-previous"),
    A("chart-jump", "chart", "enter", "Jump to the request", "jump_bar", joins="chart-previous"),
    A("context-jump", "context", "enter", "Jump", "jump", group="Context",
      help="(in the context list) jump to the node's event"),
    A("context-close", "context", "escape,q,C", "Close", "close", group="Context", help="close the context view"),
    A("requests", E, "I", "Request headers", "insight.requests",
      tooltip="Each request header, what changed from the one before, the one in force at the cursor",
      group="Context", help="request headers: what changed, the one in force at the cursor"),
    A("requests-open", "requests", "enter", "The header in full", "open", group="Context",
      help="(in the headers) the header in full as a tree; g goes to it"),
    A("requests-jump", "requests", "g", "Go to the header", "jump", joins="requests-open"),
    A("requests-close", "requests", "escape,q,I", "Close", "close", group="Context", help="close the request headers"),
    A("files", E, "D", "Files touched", "insight.files",
      tooltip="Every file the run read, wrote, edited or deleted, with its diffs in order", group="Context",
      help="files touched: counts per file, enter opens its diffs or jumps to the event"),
    A("files-enter", "files", "enter", "Open / jump", "enter", group="Context",
      help="(in the files) open a file, or jump to an operation's event"),
    A("files-close", "files", "escape,q,D", "Close", "close", group="Context", help="close the files view"),
    A("json-tree", E, "J", "JSON tree", "insight.json_tree",
      tooltip="The event as a foldable tree: copy a value, its JSONPath or a jq path", group="Context",
      help="the event as a JSON tree", title="JSON tree of the event"),
    A("tree-fold", "tree-list", "h,left", "Fold", "fold", group="Context",
      help="(in the tree) fold / unfold (also left, right)", label="h l"),
    A("tree-unfold", "tree-list", "l,right", "Unfold", "unfold", joins="tree-fold"),
    A("tree-fold-all", "tree-list", "H", "Fold all", "fold_all", group="Context",
      help="(in the tree) fold all / unfold all under the cursor", label="H L"),
    A("tree-unfold-all", "tree-list", "L", "Unfold all", "unfold_all", joins="tree-fold-all"),
    A("tree-next-hit", "tree", "n", "Next hit", "next_hit", group="Context",
      help="(in the tree) next hit; search keys and values, folded ones too", label="n /"),
    A("tree-search", "tree", "slash", "Search", "search", joins="tree-next-hit"),
    A("tree-copy-value", "tree", "c", "Copy value", "copy_value", group="Context",
      help="(in the tree) copy the value, its JSONPath, a jq path", label="c p P"),
    A("tree-copy-path", "tree", "p", "Copy JSONPath", "copy_path", joins="tree-copy-value"),
    A("tree-copy-jq", "tree", "P", "Copy jq path", "copy_jq", joins="tree-copy-value"),
    A("tree-copy-raw", "tree", "r", "Copy raw string", "copy_raw", group="Context",
      help="(in the tree) copy a parsed JSON string's raw text, byte for byte"),
    A("tree-close", "tree", "escape,q", "Close", "close", group="Context", help="close the tree (or the search box)"),
    A("help", E, "question_mark,f1", "Help", "help", tooltip="Every key", show=True, footer=1, group="Screen",
      help="this help (also over a view: timing, context, headers, files, the JSON tree)"),
    # The full-screen views' own `?` (screens/view.py): the explorer's keys do not reach through them.
    *(A(f"{scope}-help", scope, "question_mark,f1", "Help", "help") for scope in VIEW_SCOPES if scope != "timing"),
    A("command-palette", "textual", "ctrl+p", "Command palette", "command_palette", group="Screen",
      help="command palette: every action"),
    A("quit", E, "q", "Quit", "app.quit", tooltip="Quit the app", show=True, footer=5, group="Screen", help="quit",
      palette=False),  # Textual's palette has its own Quit
    # Palette commands without a key of their own (the keys shown are those of ``keys_of``).
    Command("first-event", "first-row", "First event", "first_event", "The first event of the list"),
    Command("last-event", "last-row", "Last event", "last_event", "The last event of the list"),
    Command("copy-report-markdown", "report-switch", "Copy markdown bug report", "copy.report_markdown",
            "Masked markdown report for the finding under the cursor"),
    # -- the explorer's windows and pickers: their keys are named in them -----------------------------
    A("timing-jump", "timing", "enter", "Jump", "jump", group="Keys", help="jump"),
    A("timing-sort-next", "timing", "s", "Next column", "sort(1)", group="Keys", help="sort column", label="s S"),
    A("timing-sort-previous", "timing", "S", "Previous column", "sort(-1)", joins="timing-sort-next"),
    A("timing-reverse", "timing", "r", "Reverse", "reverse", group="Keys", help="reverse"),
    A("timing-close", "timing", "escape,q,T", "Close", "close", group="Keys", help="close", label="esc"),
    A("timing-help", "timing", "question_mark,f1", "Help", "help", group="Keys", help="help", label="?"),
    A("help-close", "help", "escape,q,question_mark,f1,enter", "Close", "dismiss"),
    A("anomaly-kind-close", "anomaly-kind", "escape,q,a", "Close", "close"),
    A("filter-close", "filter", "escape,q,f", "Close", "close"),
    A("checklist-close", "checklist", "escape,q,t", "Close", "close"),
    A("chips-close", "chips", "escape,q,x", "Close", "close"),
    A("chips-toggle", "chips", "space", "Toggle", "toggle"),
    A("chips-remove", "chips", "delete,backspace,d", "Remove", "remove"),
    A("children-close", "children", "escape,q,c", "Close", "close"),
    A("confirm-yes", "confirm", "enter,y", "Yes", "answer(True)"),
    A("confirm-no", "confirm", "escape,n,q", "No", "answer(False)"),
    # -- the session browser (screens/browser.py) ------------------------------------------------------
    Row("browser", "Sessions", "cursor-up cursor-down", "previous / next row", "↑ ↓  k j"),
    Row("browser", "Sessions", "page-up page-down", "page up / down (also space, ctrl+b, ctrl+f)", "PgUp PgDn"),
    Row("browser", "Sessions", "first-row last-row", "first / last row", "Home g  End G"),
    A("browser-open", "browser", "enter", "Open", "open", show=True, group="Sessions",
      help="open the session in the explorer (b comes back here)"),
    A("browser-filter", "browser", "slash", "Filter", "filter", show=True, group="Sessions",
      help="filter: id, cwd, project, preset, status (every word must match)"),
    A("browser-clear-filter", "browser", "escape", "Clear filter", "clear_filter", group="Sessions",
      help="clear the filter"),
    A("browser-rescan", "browser", "r", "Re-list", "rescan", show=True, group="Sessions",
      help="list the root again and re-read every status"),
    Row("browser", "Rows", "", "failed: verdict, open turn (crash or still running), torn, corrupt, rejected", "✗"),
    Row("browser", "Rows", "", "aborted / interrupted, or a note (orphan child, id/cwd mismatch)", "!"),
    Row("browser", "Rows", "", "a subagent or fork child, under its parent", "↳"),
    A("browser-help", "browser", "question_mark,f1", "Help", "help", show=True, group="Screen", help="this help"),
    A("browser-quit", "browser", "q", "Quit", "app.quit", show=True, group="Screen", help="quit"),
    A("browser-bar-clear", "browser-bar", "escape", "Clear filter", "clear"),  # the filter line's own keys
    A("browser-bar-leave", "browser-bar", "down", "To the list", "leave"),
    # -- the fleet view (screens/fleet.py) --------------------------------------------------------------
    Row("fleet", "Fleet", "cursor-up cursor-down", "previous / next group or session", "↑ ↓  k j"),
    A("fleet-open", "fleet", "enter", "Open", "select_cursor", group="Fleet",
      help="on a group: its sessions; on a session: open it in the explorer at its verdict"),
    A("fleet-switch", "fleet", "tab", "Groups / sessions", "switch", show=True, group="Fleet",
      help="between the groups and their sessions"),
    A("fleet-reload", "fleet", "r", "Reload", "reload", show=True, group="Fleet",
      help="read the scan again (after `dsh-tui scan` ran)"),
    Row("fleet", "Sessions", "back try-back", "(in the explorer) back to the fleet view", "b"),
    A("fleet-help", "fleet", "question_mark,f1", "Help", "help", show=True, group="Screen", help="this help"),
    A("fleet-quit", "fleet", "q", "Quit", "app.quit", show=True, group="Screen", help="quit"),
    # -- the diff explorer (`dsh-tui diff A B`: screens/diff.py); its two lists take the lists' keys -------
    Row("diff", "Move", "cursor-up cursor-down", "previous / next row: both lists move together", "↑ ↓  k j"),
    Row("diff", "Move", "page-up page-down", "page up / down (also space, ctrl+b, ctrl+f)", "PgUp PgDn"),
    Row("diff", "Move", "first-row last-row", "first / last row", "Home g  End G"),
    Row("diff", "Move", "focus-next focus-previous", "next / previous pane: left, right, detail"),
    A("diff-next", "diff", "n,right_square_bracket", "Next difference", "difference(1)", show=True,
      tooltip="The next row that differs: another tool, arguments or result, a retry, a call on one side only",
      group="Diff", help="next / previous difference"),
    A("diff-previous", "diff", "N,left_square_bracket", "Previous difference", "difference(-1)", show=True,
      tooltip="The previous row that differs", joins="diff-next"),
    A("diff-first", "diff", "v", "First divergence", "first_divergence", show=True,
      tooltip="Where the two runs first differ", group="Diff", help="the first divergence (where the cursor starts)"),
    A("diff-copy", "diff", "y", "Copy report", "copy_diff", show=True,
      tooltip="The markdown diff report (what changed), secrets masked", group="Diff",
      help="copy the markdown diff report, secrets masked"),
    Row("diff", "Rows", "", "changed on both sides (the detail shows the two as a diff)", "~"),
    Row("diff", "Rows", "", "on the left / right side only (a gap on the other)", "< >"),
    Row("diff", "Rows", "", "inherited through a fork seed: shown once, the same on both sides", "="),
    A("diff-help", "diff", "question_mark,f1", "Help", "help", show=True, tooltip="Every key of the diff view",
      group="Screen", help="this help"),
    Row("diff", "Screen", "command-palette", "command palette: every action"),
    A("diff-quit", "diff", "q", "Quit", "quit", show=True, tooltip="Quit", group="Screen", help="quit"),
]

# The help screen that documents a scope's keys (the rest: the explorer's).
HELP_SCREENS = {"browser": "browser", "fleet": "fleet", "diff": "diff", "timing": "timing"}

ACTIONS: dict[str, Action] = {a.id: a for a in REGISTRY if isinstance(a, Action)}
COMMANDS: dict[str, Command] = {c.id: c for c in REGISTRY if isinstance(c, Command)}


def help_screen(scope: str) -> str:
    return HELP_SCREENS.get(scope, EXPLORER)


def scope_actions(scope: str) -> list[Action]:
    """The actions of ``scope``; the explorer's with its footer keys first, in the footer's order."""
    found = [a for a in ACTIONS.values() if a.scope == scope]
    return sorted(found, key=lambda a: (not a.show, a.footer)) if scope == EXPLORER else found


def bindings(scope: str) -> list[Binding]:
    """The Textual bindings of ``scope`` (each with its action's id, so a keymap can move it)."""
    return [a.binding() for a in scope_actions(scope)]


def help_rows(screen: str) -> list[HelpRow]:
    """The rows of a help screen (``explorer``, ``browser``, ``fleet``, ``diff``, ``timing``), in order."""
    joined: dict[str, list[str]] = {}
    for a in ACTIONS.values():
        if a.joins:
            joined.setdefault(a.joins, []).append(a.id)
    rows = []
    for entry in REGISTRY:
        if isinstance(entry, Action) and entry.help and help_screen(entry.scope) == screen:
            rows.append(HelpRow(entry.group, (entry.id, *joined.get(entry.id, ())), entry.help, entry.label))
        elif isinstance(entry, Row) and entry.screen == screen:
            rows.append(HelpRow(entry.group, tuple(entry.ids.split()), entry.help, entry.label))
    return rows


def palette_actions() -> Iterator[Action | Command]:
    """The explorer's palette commands: its actions (but those marked ``palette=False``), then the commands."""
    yield from (a for a in REGISTRY if isinstance(a, Action) and a.scope == EXPLORER and a.palette)
    yield from COMMANDS.values()


@lru_cache(maxsize=None)
def _parsed(run: str) -> tuple[tuple[str, ...], tuple]:
    """``"jumps.finding(1)"`` as (("jumps", "finding"), (1,)): parsed once, not on each key."""
    path, _, args = run.partition("(")
    return tuple(path.split(".")), ast.literal_eval(f"({args.rstrip(')')},)") if args.rstrip(")") else ()


def handler(host: Any, run: str):
    """The callable and arguments ``run`` names on ``host`` (``"jumps.finding(1)"``: host.jumps.finding, (1,))."""
    path, params = _parsed(run)
    target = host
    for name in path:
        target = getattr(target, name)
    return target, params


async def dispatch(host: Any, action_id: str) -> None:
    """Run the explorer action (or palette command) ``action_id`` on ``host``."""
    entry = ACTIONS.get(action_id) or COMMANDS[action_id]
    method, params = handler(host, entry.run)
    result = method(*params)
    if inspect.isawaitable(result):
        await result
