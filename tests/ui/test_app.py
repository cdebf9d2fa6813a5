"""The explorer, driven through Pilot (`App.run_test`): landing, panes, keys, copy, errors, safety."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dsh_tui.demo import EventBuilder, ToolCall, demo_batches, demo_header, write_demo, write_log
from dsh_tui.model.presenting.report import snippet
from dsh_tui.ui.controllers import loader as loader_module
from dsh_tui.ui.screens.checklist import ChecklistScreen
from dsh_tui.ui.screens.error import ErrorScreen
from dsh_tui.ui.screens.report import ReportModal
from dsh_tui.ui.widgets.progress import LoadBar

from ..support.logs import no_children

from ..support.app import LARGE, WRITTEN, detail_text, make_app, ready, settle, shared, workers_done  # noqa: F401

pytestmark = pytest.mark.usefixtures("isolated_xdg")

# -- landing -----------------------------------------------------------------------------


async def test_cursor_lands_on_the_verdict_of_crash_open_turn():
    path = shared(WRITTEN / "crash-open-turn__session.jsonl.zstd")
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        verdict = app.diag.verdict
        assert verdict.call_id == "call_deploy" and verdict.kind == "TOOL_OUTCOME_UNKNOWN"
        assert app.current_index == verdict.index != 0
        assert "tool/call" in app.events.row_plain(app.events.cursor)
        assert "call_deploy" in app.events.row_plain(app.events.cursor)
        assert "finding TOOL_OUTCOME_UNKNOWN" in detail_text(app)
        assert "VERDICT TOOL_OUTCOME_UNKNOWN" in str(app.query_one("#header").render())


async def test_pairing_pane_classifies_deploy_and_tag():
    path = shared(WRITTEN / "crash-open-turn__session.jsonl.zstd")
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        pane = app.pairs_pane
        rows = {pane.pairs[r].key: pane.row_plain(r) for r in range(pane.row_count())}
        assert rows["call_deploy"].startswith("TOOL_OUTCOME_UNKNOWN")
        assert rows["call_tag"].startswith("TOOL_NOT_STARTED")
        assert [p.key for p in pane.pairs][:2] == ["call_deploy", "call_tag"]  # newest first
        svg = app.export_screenshot()
        assert "TOOL_OUTCOME_UNKNOWN" in svg and "TOOL_NOT_STARTED" in svg
        # selecting a pair moves the event list to it
        pane.focus()
        await pilot.press("down")
        await settle(app, pilot)
        tag = pane.pairs[1]
        assert app.current_index == tag.ask


async def test_at_seq_and_no_failure_log(tmp_path):
    path = shared(WRITTEN / "child-subagent__session.jsonl.zstd")
    app = make_app(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        header = str(app.query_one("#header").render())
        assert "No failure found" in header and "DELEGATED" in header
        assert app.current_index == len(app.log_) - 1
    app = make_app(path, at_seq=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert app.current_index == 3


# -- keys ----------------------------------------------------------------------------------


async def test_navigation_keys(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        n = len(app.log_)
        assert app.current_index == n - 1 == app.diag.verdict.index
        await pilot.press("home")
        assert app.current_index == 0
        await pilot.press("G")
        assert app.current_index == n - 1
        await pilot.press("g", "j", "j", "k")
        assert app.current_index == 1
        await pilot.press("pagedown")
        assert app.current_index > 5
        await pilot.press("end", "left_square_bracket")
        assert app.current_index == 318  # TOOL_NOT_STARTED at the assistant/message
        await pilot.press("right_square_bracket")
        assert app.current_index == 319
        await pilot.press("colon", *"65", "enter")
        await settle(app, pilot)
        assert app.log_.seq_of(app.current_index) == 65
        await pilot.press("p")  # tool/call -> tool/result
        assert app.current_index == 68
        await pilot.press("p")
        assert app.current_index == 65
        await pilot.press("v")
        assert app.current_index == app.diag.verdict.index


async def test_detail_shows_raw_arguments_pretty_json_and_a_diff(demo):
    app = make_app(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        log = app.log_
        await pilot.press("colon", *"65", "enter")  # tool/call write README.md
        await settle(app, pilot)
        text = detail_text(app)
        raw_args = log.event(65).event["data"]["arguments"]
        assert raw_args in app.detail.plain_lines()  # exactly as emitted
        assert "arguments: pretty JSON" in text and '"file_path": "README.md"' in text
        await pilot.press("colon", *"68", "enter")  # tool/result with meta.diffs
        await settle(app, pilot)
        lines = app.detail.plain_lines()
        assert "--- a/README.md" in lines and "+++ b/README.md" in lines
        assert "+Hello from demo-app!" in lines
        assert any(x.startswith("@@ ") for x in lines)
        svg = app.export_screenshot()
        assert "Hello&#160;from&#160;demo-app!" in svg
        await pilot.press("colon", *"195", "enter")  # invalid JSON arguments
        await settle(app, pilot)
        assert "arguments: NOT valid JSON" in detail_text(app)
        await pilot.press("colon", *"194", "enter")  # FS_NOT_FOUND
        await settle(app, pilot)
        text = detail_text(app)
        assert "error {name, code}" in text and "code: FS_NOT_FOUND" in text and "name: FsNotFoundError" in text


async def test_copy_key_puts_the_snippet_on_the_clipboard_and_in_a_file(demo, tmp_path):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        expected = snippet(app.log_, app.diag, app.diag.verdict)
        assert app.clipboard == expected
        assert isinstance(app.screen, ReportModal)
        path = app.screen.result.path
        assert path is not None and path.is_relative_to(tmp_path / "state")
        assert path.read_text() == expected
        assert "call_05_deploy" in app.screen.query_one("#report-text").render().plain
        await pilot.press("escape")
        await pilot.press("colon", *"194", "enter", "y")  # the finding under the cursor wins
        await settle(app, pilot)
        assert "FS_NOT_FOUND" in app.clipboard and "call_02_read" in app.clipboard
        await pilot.press("escape", "Y")
        assert app.clipboard == "call_02_read"
        await pilot.press("s")
        saved = list((tmp_path / "state" / "dsh-tui" / "events").glob("*.json"))
        assert len(saved) == 1 and b'"FS_NOT_FOUND"' in saved[0].read_bytes()
        assert saved[0].stat().st_mode & 0o777 == 0o600


async def test_the_markdown_report_is_saved_as_markdown(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("y", "m")  # the copy window, then its markdown report
        await settle(app, pilot)
        assert isinstance(app.screen, ReportModal) and app.screen.kind == "markdown"
        path = app.screen.result.path
        assert path.read_text().startswith("# dsh session report")
        assert path.suffix == ".md"


async def test_search_finds_a_call_id_far_from_the_screen():
    path = shared(LARGE / "medium-4550-events__session.jsonl.zstd")
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("end")
        assert app.current_index == 4549
        await pilot.press("slash", *"call_000001", "enter")
        await settle(app, pilot)
        hit = app.current_index
        assert hit < 1000
        assert b"call_000001" in app.log_.record_bytes(app.log_.res.record_of(hit))
        await pilot.press("n")
        await settle(app, pilot)
        assert app.current_index < hit  # from the last screen a search goes up, and n goes on up
        await pilot.press("N")
        await settle(app, pilot)
        assert app.current_index == hit


async def test_filters_are_index_lists(demo):
    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        keys = [s.key for s in app.screen.specs]
        await pilot.press(*["down"] * keys.index("no-chunks"), "enter")
        await settle(app, pilot)
        src = app.events.source
        assert src.filtered and all(app.log_.type_of(src.index(r)) != "assistant/chunk" for r in range(len(src)))
        assert app.current_index == 319  # the cursor stays on its event
        assert "filter" in str(app.events.border_title)
        await pilot.press("F")
        assert not app.events.source.filtered


async def test_checklist_steps_and_enter_jumps(demo):
    app = make_app(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        await pilot.press("home", "t")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChecklistScreen)
        steps = screen.steps
        assert [s.number for s in steps] == [1, 2, 3, 4, 5, 6]
        assert steps[0].status == "ok" and steps[1].status == "ok"
        assert "call_05_deploy" in steps[2].lines[1] and "TOOL_OUTCOME_UNKNOWN" in steps[2].lines[1]
        assert "Retry only if it is read-only or idempotent" in " ".join(steps[3].lines)
        assert any("callId:          call_05_deploy" == x for x in steps[5].lines)
        await pilot.press("down", "down", "enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, ChecklistScreen)
        assert app.current_index == steps[2].index == 319


async def test_command_palette_has_every_action(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for want in ("Go to seq / time", "Search", "Copy bug report", "Copy callId", "Ten-minute pass", "Filter events",
                     "Next finding", "Call ⇄ result", "Save event JSON", "Toggle pairs pane", "Help", "Quit"):
            assert want in titles
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"first event")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert app.current_index == 0


@pytest.mark.parametrize("name, badge", [
    ("crash-torn-midframe__session.jsonl.zstd", "TORN TAIL at byte 669"),
    ("unknown-type-required__session.jsonl.zstd", "UNKNOWN TYPES: acme/telemetry"),
    ("live-zstd__session.jsonl.zstd", "VERDICT TOOL_ERROR"),
    ("../fixtures/acp__fs-edit__session.jsonl", "PROJECTED fixture"),
])
async def test_header_badges(name, badge):
    path = shared(WRITTEN / name)
    app = make_app(path, lenient=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert badge in str(app.query_one("#header").render())


async def test_header_only_log_says_it_holds_no_events_and_counts_in_words(write_zstd, write_jsonl):
    # It said "seq 0..-1", "1 frames", "No failure found in 0 events"; a JSONL log said "- frames".
    app = make_app(write_zstd([]))  # the header in one frame, nothing after it
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        header = app.query_one("#header").plain()
        assert "zstd, 1 frame, 0 records, 0 events" in header
        assert "no events: the log holds only its header" in header and "No failure found" not in header
        await pilot.press("t")
        await settle(app, pilot)
        steps = "\n".join(line for s in app.screen.steps for line in s.lines)
        assert "0..-1" not in steps and "no events: the log holds only its header" in steps
        assert "1 frame," in steps and "1 frames" not in steps
    app = make_app(write_jsonl([{"type": "turn/start", "seq": 0, "time": 1790000000000, "data": {"turn": 1}}]))
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        header = app.query_one("#header").plain()
        assert "jsonl, 1 record, 1 event " in header and "frame" not in header


async def test_back_with_nowhere_to_go_says_so(demo):
    # b on the demo did nothing at all (the binding was disabled, so the key fell through). Esc is not
    # Back (it never leaves the session): it says nothing here.
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert "Back" not in [b.binding.description for b in app.screen.active_bindings.values()
                              if b.binding.show and b.enabled]  # the footer offers no Back
        for key in ("b",):
            app.clear_notifications()
            await pilot.press(key)
            await settle(app, pilot)
            assert [n.message for n in app._notifications][-1:] == [
                "nothing to go back to: this log is not in a dsh session root (q quits)"], key
            assert app.is_running and app.current_index == app.diag.verdict.index


async def test_panes_tab_order_and_narrow_layout(demo, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(demo)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        assert app.no_color
        assert app.pairs_pane.display and app.focused is app.events
        await pilot.press("tab")
        assert app.focused is app.pairs_pane
        await pilot.press("tab")
        assert app.focused is app.detail
        await pilot.press("P")
        await pilot.pause()
        assert not app.pairs_pane.display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.screen.has_class("-narrow") and app.pairs_pane.display  # P flips the narrow default too
        await pilot.press("P")
        await pilot.pause()
        assert not app.pairs_pane.display
        assert app.events.size.height >= 7  # 24 rows: header 6 (with the activity sparkline), detail, footer


@pytest.mark.parametrize("size", [(80, 12), (80, 14), (120, 12), (120, 14), (120, 20), (120, 24)])
async def test_a_short_terminal_shrinks_the_side_panes_instead_of_hiding_the_events(demo, size):
    """The pairs pane (12 rows) and the stacked detail (9) take their full height only where the events
    list keeps as much: in a tmux split of 12 rows the events list still shows rows, with the pairs
    pane flipped in or out; at 160x45 every pane has its full height again."""
    app = make_app(demo)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        for flip in (False, True):
            if flip:
                await pilot.press("P")
                await pilot.pause()
            assert app.pairs_pane.display is ((size[0] >= 120) != flip)
            rows = {p.id: p.scrollable_content_region.height for p in (app.events, app.pairs_pane, app.detail)
                    if p.display}
            if flip and size[0] < 120 and size[1] < 20:  # short and stacked: P shows the pairs in the detail's place
                assert not app.detail.display and rows["events"] >= 2 and rows["pairs"] >= 1, (size, rows)
            else:
                assert rows["events"] >= 1 and rows["detail"] >= 1, (size, flip, rows)
            assert rows["events"] >= rows.get("pairs", 0), (size, flip, rows)
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        await pilot.press("P")  # back to the default: the pairs pane shown
        await pilot.pause()
        assert app.pairs_pane.outer_size.height == 12 and app.events.outer_size.height > 12


# -- errors ---------------------------------------------------------------------------------


async def test_rejected_file_opens_the_error_screen_and_q_exits_3(tmp_path):
    header = {k: v for k, v in demo_header().items() if k != "delegationDepth"}
    path = tmp_path / "rejected.jsonl.zstd"
    write_log(path, header, demo_batches()[1])
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "delegationDepth" in app.screen.reason and "\n" not in app.screen.reason
        await pilot.press("y", "t")  # the explorer keys do nothing here
        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("q")
    assert app.return_code == 3
    app = make_app(path, lenient=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(app, pilot)
        assert "UNVERIFIED" in str(app.query_one("#header").render())
        assert app.current_index == app.diag.verdict.index


async def test_unreadable_file_error_screen(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x00\x01\x02 not a log \x1b]52;c;eA==\x07")
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "neither zstd nor JSONL" in app.screen.reason
        assert "\x1b" not in app.export_screenshot()
        await pilot.press("q")
    assert app.return_code == 3


async def test_big_log_paints_progress_at_once_and_quits_promptly(monkeypatch):
    path = shared(LARGE / "big-936k-events__session.jsonl.zstd")
    ended: list[float] = []
    real = loader_module.open_target

    def tracked(*args, **kw):
        try:
            return real(*args, **kw)
        finally:
            ended.append(time.monotonic())

    monkeypatch.setattr(loader_module, "open_target", tracked)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        # Not pilot.pause(): it waits for the process to go idle, up to 1 s, and the decode keeps it
        # busy; on a fast run the whole load fit in that second and the bar was gone.
        await pilot.pause(0.05)
        assert app.query_one(LoadBar).display, (type(app.screen).__name__, app.diag is not None, ended)
        assert path.name[:30] in str(app.query_one("#header").render())
        assert not ended, "the log was read before the first paint"
        await pilot.press("q")
        quit_at = time.monotonic()
    deadline = quit_at + 3.0
    while not ended and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ended and ended[0] - quit_at < 1.5
    assert app.cancel_event.is_set()


# -- safety -----------------------------------------------------------------------------------

HOSTILE = ("\x1b]52;c;ZXZpbA==\x07 osc \x1b]0;pwned\x1b\\ title \x1b[2J csi \x9b31m c1 \x1b[?1049l "
           "[/] [@click=app.quit]x[/] [bold]b[/bold] \u202erlo\u202c nul\x00 del\x7f")


def hostile_log(path: Path) -> Path:
    b = EventBuilder(1_796_218_179_615)
    b.turn_start(1)
    call = ToolCall("call_[/]\x1b[31mX", "bash[/]", '{"command": "' + HOSTILE.replace("\\", "").replace('"', "'")
                    .encode("unicode_escape").decode() + '"}', HOSTILE, is_error=True,
                    error={"name": "[@click=app.quit]", "code": "\x1b]52;c;eA==\x07"})
    b.model_step(1, 1, user=HOSTILE, text=HOSTILE, calls=[call])
    b.emit("acme/\x1b]52;c;eA==\x07evil[/]", {"x": HOSTILE})
    b.turn_end(1)
    header = {**demo_header(), "id": "id-[/]\x1b]0;t\x07", "cwd": "/home/[@click=app.quit]\x1b[2J"}
    write_log(path, header, b.finish())
    return path


async def test_hostile_strings_render_inert(tmp_path):
    path = hostile_log(tmp_path / "hostile.jsonl.zstd")
    app = make_app(path, lenient=True)  # dsh refuses its unknown event type: read it anyway, to see it all
    shots = []
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        shots.append(app.export_screenshot())
        log = app.log_
        for i in range(len(log)):  # every row and every detail view
            app.jump_to(i)
            await settle(app, pilot)
            if log.type_of(i) in ("tool/call", "tool/result", "user/message") or "acme" in log.type_of(i):
                shots.append(app.export_screenshot())
        await pilot.press("t")
        await pilot.pause()
        shots.append(app.export_screenshot())
        await pilot.press("escape", "y")
        await settle(app, pilot)
        shots.append(app.export_screenshot())
        await pilot.press("escape", "f")
        await pilot.pause()
        shots.append(app.export_screenshot())
        await pilot.press("escape")
        assert app.is_running and app.return_code is None
    for svg in shots:
        assert "\x1b" not in svg and "\x9b" not in svg and "\x00" not in svg and "\u202e" not in svg
    joined = "".join(shots)
    assert "[@click=app.quit]" in joined and "[/]" in joined and "[bold]b[/bold]" in joined
    assert "␛]52;c;ZXZpbA==" in joined


async def test_provisional_tail_verdict_paints_before_the_full_decode(tmp_path, monkeypatch):
    """The header shows the tail verdict, marked provisional, while the full decode still runs."""
    import threading

    import dsh_tui.ui.app as app_module
    from dsh_tui.ui.widgets.header import HeaderPanel

    import dsh_tui.model.opening.open as opener

    path = write_demo(tmp_path / "demo.jsonl.zstd")
    gate = threading.Event()
    real_load = opener.load_session

    def slow_load(*args, **kwargs):
        gate.wait(10)  # hold the full decode until the provisional verdict was seen
        return real_load(*args, **kwargs)

    monkeypatch.setattr(opener, "load_session", slow_load)
    app = app_module.ExplorerApp(path, native_clipboard=False)
    async with app.run_test(size=(120, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            text = app.query_one(HeaderPanel).plain()
            if "provisional" in text:
                break
        assert "VERDICT TOOL_OUTCOME_UNKNOWN" in text and "call_05_deploy" in text and "provisional" in text
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.load_finished and "provisional" not in app.query_one(HeaderPanel).plain()


async def test_lists_and_objects_as_ids_and_turns_are_shown_not_a_crash(tmp_path):
    from ..support.hostile_corpus import odd_values_log
    app = make_app(odd_values_log(tmp_path / "odd.jsonl"), lenient=True)  # dsh refuses its message shapes
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(app, pilot)
        assert not isinstance(app.screen, ErrorScreen)
        assert app.diag.verdict.kind == "TOOL_OUTCOME_UNKNOWN"
        for i in range(len(app.log_)):  # every row and its detail
            app.jump_to(i)
            await settle(app, pilot)
        await pilot.press("tab", "down", "down", "y")  # the pairs pane and the report
        await settle(app, pilot)
        assert app.is_running and app._exception is None


async def test_the_decode_worker_never_forks(tmp_path, monkeypatch, helper_for_small_logs):
    """The decode runs in a worker thread: it never forks a helper (a fork copies one thread, and a
    lock the event loop holds would stay held in the child); only the early helper, forked before
    Textual loads, reads a tail."""
    from dsh_tui.gen.synthetic import write_synthetic
    from dsh_tui.model.reading import split as segments  # (the package: the decode calls split.choose_split)

    path = tmp_path / "big.jsonl.zstd"
    write_synthetic(path, 20_000, seed=4)
    shares = []
    real = segments.choose_split
    monkeypatch.setattr(segments, "choose_split", lambda data, share=None: shares.append(share) or real(data, share))
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert app.diag is not None and len(app.log_) == 20_000
    assert shares == []


async def test_the_early_tail_helper_is_used_or_reaped(tmp_path, monkeypatch, helper_for_small_logs):
    """`dsh-tui FILE` forks the tail's helper before Textual loads: the decode takes it over, and an
    app that quits first, or opens from the index cache, leaves no child behind."""
    from dsh_tui.cli import start_background
    from dsh_tui.gen.synthetic import write_synthetic

    path = tmp_path / "big.jsonl.zstd"
    write_synthetic(path, 20_000, seed=5)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    for quit_at_once in (True, False, False):  # the last run opens from the cache the second one wrote
        background = start_background(path)
        assert background["early_tail"] is not None
        app = make_app(path, **background)
        async with app.run_test(size=(80, 24)) as pilot:
            if not quit_at_once:
                await ready(app, pilot)
                assert len(app.log_) == 20_000 and app.explorer.loader.early_tail is None
                app.explorer.loader.save_cache(app.log_, app.diag)  # (its workers run on the explorer screen)
                await workers_done(app)
            await pilot.press("q")
        await workers_done(app)
        assert no_children(wait=5)  # the load thread may still be closing one


async def test_a_seq_past_the_end_opens_on_the_verdict_with_the_range(demo):
    from ..support.app import notices
    app = make_app(demo, at_seq=999_999)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        last = app.log_.seq_of(len(app.log_) - 1)
        assert any(f"no event has seq 999999 (after the last; seqs run 0–{last})" in n for n in notices(app))
