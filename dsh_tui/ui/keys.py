"""The explorer's keys: bindings (with ids, for keymaps), the help table, palette commands."""

from __future__ import annotations

from textual.binding import Binding

B = Binding
# (keys, description) for the help screen; the bindings below implement them.
KEY_HELP: list[tuple[str, list[tuple[str, str]]]] = [
    ("Move", [("↑ ↓  k j", "previous / next row, or line in the detail pane"),
              ("PgUp PgDn", "page up / down (also space, ctrl+b, ctrl+f)"),
              ("Home g  End G", "first / last row"),
              ("tab shift+tab", "next / previous pane: events, pairs, detail"),
              ("enter", "events → detail; pairs or detail → events"),
              ("z", "zoom the focused pane (z again restores)")]),
    ("Jump", [(":", "go to a seq"),
              ("123G", "go to seq 123 (events list; esc clears the digits)"),
              ("v", "the verdict (the primary finding)"),
              ("] [", "next / previous finding"),
              ("p", "call ⇄ result (also run ⇄ done, asked ⇄ decided)")]),
    ("Find", [("/", "search type, tool, callId and text in the whole log"),
              ("↑ ↓", "in the / and : prompts: the earlier searches / seqs"),
              ("n N", "next / previous hit (finding, when no search)"),
              ("f", "filter: findings, problems, pairs, no chunks, a type"),
              ("F", "clear the filter")]),
    ("Report", [("y", "copy the masked bug report (finding at the cursor, else verdict)"),
                ("Y", "copy just the callId"),
                ("R", "copy the event's raw record, UNMASKED (secrets included)"),
                ("s", "save the full event JSON to a file (not masked)"),
                ("t", "the ten-minute pass checklist"),
                ("l", "copy the permalink <session-id>@<seq> of the event"),
                ("m", "(in the copy window) the markdown bug report, secrets masked")]),
    ("Sessions", [("b esc", "back: the previous session, else the session browser (if any)"),
                  ("u", "open the parent session (delegated children)"),
                  ("c", "delegated children: pick one to open"),
                  ("enter", "on NOT_IN_TOOL_SET: open the child that calls the tool"),
                  ("w", "follow the file live / pause (shown in the header)")]),
    ("Screen", [("P", "show / hide the pairs pane"),
                ("? F1", "this help"), ("ctrl+p", "command palette: every action"), ("q", "quit")]),
]

BINDINGS = [
    B("question_mark,f1", "help", "Help", id="help"),
    B("slash", "search", "Search", id="search"),
    B("y", "copy_report", "Copy report", id="copy-report"),
    B("t", "checklist", "10-min pass", id="checklist"),
    B("q", "quit", "Quit", id="quit"),
    B("n", "next_hit(1)", "Next hit", show=False, id="next-hit"),
    B("N", "next_hit(-1)", "Previous hit", show=False, id="previous-hit"),
    B("right_square_bracket", "finding(1)", "Next finding", show=False, id="next-finding"),
    B("left_square_bracket", "finding(-1)", "Previous finding", show=False, id="previous-finding"),
    B("colon", "goto", "Go to seq", show=False, id="goto"),
    B("v", "verdict", "Verdict", show=False, id="verdict"),
    B("p", "partner", "Call ⇄ result", show=False, id="partner"),
    B("f", "filter", "Filter", show=False, id="filter"),
    B("F", "clear_filter", "Clear filter", show=False, id="clear-filter"),
    B("Y", "copy_call_id", "Copy callId", show=False, id="copy-call-id"),
    B("R", "copy_raw", "Copy raw record (unmasked)", show=False, id="copy-raw-unmasked"),
    B("s", "save_event", "Save event", show=False, id="save-event"),
    B("P", "toggle_pairs", "Pairs pane", show=False, id="toggle-pairs"),
    B("z", "zoom", "Zoom pane", show=False, id="zoom"),
    B("enter", "enter", "Open", show=False, id="enter"),
    B("b,escape", "back", "Back", id="back"),  # hidden when there is nothing to go back to
    B("u", "parent", "Parent session", show=False, id="parent"),
    B("c", "children", "Children", show=False, id="children"),
    B("w", "toggle_follow", "Follow / pause", show=False, id="toggle-follow"),
    B("l", "permalink", "Copy permalink", show=False, id="permalink"),
]

# The events list's count (widgets/event_list.py), as in vim: digits then G go to that seq.
# Escape clears a pending count; with none it falls through to Back.
COUNT_BINDINGS = [
    *(B(str(d), f"count({d})", f"Count digit {d}", show=False, id=f"count-{d}") for d in range(10)),
    B("escape", "clear_count", "Clear the count", show=False, id="clear-count"),
]

# The explorer's screen (screens/main.py), under the app's keys in the chain: with nowhere to go
# back to, Back is disabled (and hidden from the footer), so b and esc come here and say so.
SCREEN_BINDINGS = [B("b,escape", "try_back", "Back", show=False, id="try-back")]

# Every action in the command palette: (title, help, action string).
COMMANDS: list[tuple[str, str, str]] = [
    ("Go to seq", "Jump to an event by its seq (:, or type it then G in the events list: 123G)", "goto"),
    ("Jump to the verdict", "The primary finding (v)", "verdict"),
    ("Next finding", "(])", "finding(1)"),
    ("Previous finding", "([)", "finding(-1)"),
    ("Call ⇄ result", "Jump between a call and its result (p)", "partner"),
    ("First event", "(Home, g)", "first_event"),
    ("Last event", "(End, G)", "last_event"),
    ("Search", "Type, tool name, callId or text in the whole log (/)", "search"),
    ("Next search hit", "(n)", "next_hit(1)"),
    ("Previous search hit", "(N)", "next_hit(-1)"),
    ("Filter events", "Findings, problems, pairs, no chunks, one type (f)", "filter"),
    ("Clear the filter", "Show every event (F)", "clear_filter"),
    ("Copy bug report", "Snippet for the finding under the cursor, else the verdict, secrets masked (y)",
     "copy_report"),
    ("Copy callId", "Just the callId (Y)", "copy_call_id"),
    ("Copy raw record (unmasked)", "The event's record exactly as written: secrets NOT masked (R)", "copy_raw"),
    ("Save event JSON", "Write the full event to a file, not masked (s)", "save_event"),
    ("Ten-minute pass", "The checklist (t)", "checklist"),
    ("Toggle pairs pane", "Show or hide the call/result pairs (P)", "toggle_pairs"),
    ("Zoom pane", "Maximize or restore the focused pane (z)", "zoom"),
    ("Copy permalink", "<session-id>@<seq> of the event under the cursor (l)", "permalink"),
    ("Copy markdown bug report", "Masked markdown report for the finding under the cursor", "copy_report_markdown"),
    ("Back", "The previous session, else the session browser (b, esc)", "try_back"),
    ("Open the parent session", "Of a delegated child (u)", "parent"),
    ("Open a child session", "Delegated children of this session (c)", "children"),
    ("Follow / pause", "Re-read the file as it grows (w)", "toggle_follow"),
    ("Help", "Every key (?)", "help"),
]
