"""What leaves the explorer: the copy keys and the detail pane on a log with secrets and crafted ids.

y (bug report), Y (callId), m (markdown) and l (permalink) copy masked, sanitised text; R copies the
event's raw record unmasked on purpose and says so; no line break in a callId reaches the screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh_tui.demo import EventBuilder, ToolCall, demo_header, write_log
from dsh_tui.ui.keydocs import explorer_help
from dsh_tui.ui.keys import BINDINGS
from dsh_tui.ui.palette import palette_entries
from dsh_tui.ui.screens.report import ReportModal

from ..support.app import make_app, notices, ready, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")

SECRET = "Zq8xK2mN7vB4cR9tY1wE5uJ3"
# A bearer token, a GitHub token and a JWT in the call's arguments, with terminal controls around them.
ARGS = json.dumps({"command": f"curl -H 'authorization: bearer {SECRET}' -d ghp_{SECRET}abcdefghij "
                              f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.{SECRET} \x1b]0;pwned\x07 \u009b31m"})
CALL_ID = "call_deploy\n# forged row\x1b[2J\u202e"
TERMINAL_ACTIVE = set("\x1b\x07\x9b\u202e\u2028\x7f\r")


@pytest.fixture
def crafted(tmp_path) -> Path:
    """A crash: the model's bash call (crafted callId, secrets in its arguments) never got a result."""
    b = EventBuilder(1_796_218_179_615)
    b.turn_start(1)
    b.model_step(1, 1, user="deploy it", text="running", calls=[ToolCall(CALL_ID, "bash", ARGS, None)])
    path = tmp_path / "crafted.jsonl.zstd"
    write_log(path, {**demo_header(), "id": "sess\n# forged"}, b.finish())
    return path


def _inert(text: str) -> bool:
    return not (TERMINAL_ACTIVE & set(text))


async def _copied(app, pilot, *keys: str) -> ReportModal:
    await pilot.press(*keys)
    await settle(app, pilot)
    assert isinstance(app.screen, ReportModal)
    return app.screen


async def test_y_copies_the_snippet_masked_everywhere_it_goes(crafted):
    app = make_app(crafted)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        modal = await _copied(app, pilot, "v", "y")
        saved = modal.result.path.read_text(encoding="utf-8")
        shown = modal.query_one("#report-text").render().plain
        for out in (app.clipboard, saved):  # the OSC 52 payload and the report file
            assert out == modal.result.text and _inert(out)
            assert SECRET not in out and "bearer …[redacted]" in out and "callId:          call_deploy⏎" in out
        assert SECRET not in shown and "[redacted]" in shown
        await pilot.press("m")  # the markdown report, from the copy window
        await settle(app, pilot)
        assert app.screen.kind == "markdown" and app.clipboard.startswith("# dsh session report")
        assert SECRET not in app.clipboard and _inert(app.clipboard)
        assert SECRET not in app.screen.result.path.read_text(encoding="utf-8")


async def test_capital_r_copies_the_raw_record_unmasked_and_says_so(crafted):
    app = make_app(crafted)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        ev = app.log_.event(app.current_index)
        modal = await _copied(app, pilot, "R")
        assert modal.kind == "raw" and "UNMASKED" in modal.title_text and modal.result.masked is False
        assert "UNMASKED" in modal.query_one("#report-status").render().plain
        assert modal.result.path is None  # only the bug report goes to a file: no secrets left on disk
        out = app.clipboard
        assert _inert(out) and SECRET in out  # exact: the secret on purpose, no terminal control
        assert json.loads(out) == json.loads(bytes(ev.raw))  # the record, meaning exactly what it says


async def test_capital_y_copies_the_call_id_on_one_line(crafted):
    app = make_app(crafted)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.press("v", "Y")
        await settle(app, pilot)
        assert app.clipboard == "call_deploy⏎# forged row␛[2J⟨U+202E⟩"


async def test_a_line_break_in_a_call_id_stays_in_its_row(crafted):
    """Every pane's row is one line: the detail pane's `callId … name …` line and section titles,
    the pairs pane, the events list."""
    app = make_app(crafted)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(app, pilot)
        log = app.log_
        for i in range(len(log)):
            app.jump_to(i)
            await settle(app, pilot)
            strips = app.screen._compositor.render_strips()
            assert len(strips) == 45
            for strip in strips:
                assert "\n" not in strip.text and _inert(strip.text), (log.type_of(i), strip.text)
        app.jump_to(app.diag.verdict.index)  # the tool/call
        await settle(app, pilot)
        assert "callId call_deploy⏎# forged row␛[2J⟨U+202E⟩   name bash" in app.detail.plain_lines()


def test_the_unmasked_key_is_in_the_bindings_the_help_and_the_palette():
    binding = next(b for b in BINDINGS if b.id == "copy-raw-unmasked")
    assert binding.key == "R" and "unmasked" in binding.description
    help_rows = explorer_help()
    keys = [k for _, rows in help_rows for k, _ in rows]
    assert "R" in keys and keys.count("R") == 1
    assert any(k == "R" and "UNMASKED" in text for _, rows in help_rows for k, text in rows)
    assert any(action == "copy-raw-unmasked" and "unmasked" in title and "NOT masked" in hint
               for title, hint, action in palette_entries())
    taken = [k for b in BINDINGS if b.id != "try-back" for k in b.key.split(",")]  # b: back, else try-back
    assert len(taken) == len(set(taken))  # R was free


async def test_every_copy_key_goes_the_one_copy_way(crafted, monkeypatch):
    """y, R, l, m and Y each build their text and go through the same worker (the layered copy, then
    `Copied`): a window for a report, a notice for a callId or a permalink."""
    from dsh_tui.ui.controllers import copy as copy_module
    stems: list[str] = []
    real = copy_module.copy_layered

    def spy(text, **kw):
        stems.append(kw["stem"])
        return real(text, **kw)
    monkeypatch.setattr(copy_module, "copy_layered", spy)
    app = make_app(crafted)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        await pilot.press("v")
        for key in ("y", "R"):
            modal = await _copied(app, pilot, key)
            await pilot.press("escape")
            await settle(app, pilot)
            assert app.screen is not modal
        await pilot.press("l")
        await settle(app, pilot)
        assert not isinstance(app.screen, ReportModal)  # a permalink: a notice, no window
        modal = await _copied(app, pilot, "y", "m")
        assert modal.kind == "markdown"
        await pilot.press("escape", "Y")
        await settle(app, pilot)
        assert not isinstance(app.screen, ReportModal)  # a callId: a notice, no window
        assert app.clipboard == "call_deploy⏎# forged row␛[2J⟨U+202E⟩"
    assert stems == ["bug-report", "raw-record-unmasked", "permalink", "bug-report", "bug-report", "call-id"]


def _report_files() -> list[Path]:
    from dsh_tui.clipboard import report_dir
    return sorted(report_dir().glob("*")) if report_dir().is_dir() else []


async def test_l_is_a_notice_and_only_the_bug_report_is_written_to_a_file(crafted, monkeypatch):
    # l opened the copy window, five lines of tmux advice around a 13-byte permalink, and wrote a file.
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setenv("TERM", "xterm-kitty")  # a terminal that takes OSC 52: no advice
    app = make_app(crafted)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(app, pilot)
        await pilot.press("v", "l")
        await settle(app, pilot)
        assert not isinstance(app.screen, ReportModal)
        assert app.clipboard.endswith(f"@{app.log_.seq_of(app.current_index)}") and _inert(app.clipboard)
        said = notices(app)[-1]
        assert said.startswith("copied permalink ") and "(OSC 52)" in said and "tmux" not in said
        assert _report_files() == []  # a permalink is no file
        await pilot.press("R", "escape", "Y")  # nor a raw record, nor a callId
        await settle(app, pilot)
        assert _report_files() == []
        modal = await _copied(app, pilot, "y")  # the bug report is
        assert _report_files() == [modal.result.path]
        status = modal.query_one("#report-status").render().plain
        assert "saved to" in status and "set-clipboard" not in status and "OSC 52)" not in status


async def test_osc52_advice_only_when_nothing_says_the_terminal_takes_it(crafted, monkeypatch, tmp_path):
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")  # in tmux, and tmux cannot be asked: no sign
    monkeypatch.setenv("PATH", str(tmp_path))
    app = make_app(crafted)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(app, pilot)
        await pilot.press("v", "l")
        await settle(app, pilot)
        assert "set -s set-clipboard on" in notices(app)[-1]
        modal = await _copied(app, pilot, "y")
        assert "set -s set-clipboard on" in modal.query_one("#report-status").render().plain
