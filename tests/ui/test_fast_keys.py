"""Keys sent in one write (a fast typist over SSH, tmux's send-keys of one string) behave as typed
slowly, and Esc never leaves the explorer (b does).

A burst is fed as one write to the parser the app's terminal driver reads keys with
(compat/keyparse.py), and the keys it gives are posted to the app together, as the driver does.
"""

from __future__ import annotations

import pytest
from textual import events

from dsh_tui.ui.screens.help import HelpScreen
from dsh_tui.ui.screens.timing import TimingScreen

from ..support.app import make_app, ready, settle
from ..support.logs import until
from ..support.session_roots import build_root

pytestmark = pytest.mark.usefixtures("isolated_xdg")


def parsed(data: str) -> list[events.Key]:
    """The keys the terminal driver's parser reads from ``data`` written at once (then the end of input)."""
    from textual.drivers import linux_driver

    parser = linux_driver.XTermParser()
    return [e for e in [*parser.feed(data), *parser.feed("")] if isinstance(e, events.Key)]


async def send(app, pilot, data: str) -> None:
    for key in parsed(data):
        app.post_message(key)
    await until(app, pilot, lambda: not app.key_gate.pending and app.key_gate.replay is None, "the held keys")
    await settle(app, pilot)


def test_esc_then_a_key_in_one_write_is_esc_then_the_key(demo):
    make_app(demo)  # the explorer reads keys with its parser
    # Textual read ESC + "/" as the start of a sequence, then dropped the ESC (or made it Alt: alt+j)
    assert [k.key for k in parsed("?\x1b/x\r")] == ["question_mark", "escape", "slash", "x", "enter"]
    assert [k.key for k in parsed("\x1bj\x1bk")] == ["escape", "j", "escape", "k"]
    assert [k.key for k in parsed("\x1bPx")] == ["escape", "P", "x"]  # a DCS start that matched nothing
    assert [k.key for k in parsed("\x1b[A\x1b[B\x1b\x1b")] == ["up", "down", "escape", "escape"]  # sequences stay whole


async def test_help_esc_and_a_search_sent_in_one_write(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await send(app, pilot, "?\x1b/tool\r")
        assert not isinstance(app.screen, HelpScreen) and len(app.screen_stack) == 1
        assert app.needle == "tool"


async def test_esc_esc_after_the_timing_view_stays_in_the_explorer(tmp_path):
    built = build_root(tmp_path / "dsh" / "sessions")
    path = next(iter(built.paths.values()))
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert app.explorer.can_go_back()  # in a session root: b would open the browser
        await send(app, pilot, "T")
        assert isinstance(app.screen, TimingScreen)
        await send(app, pilot, "\x1b\x1b")
        assert not app.browser_active() and app.screen is app.screen_stack[0] and app.log_ is not None
        await send(app, pilot, "\x1b")
        assert not app.browser_active()
        await send(app, pilot, "b")
        assert app.browser_active()


async def test_a_long_burst_in_one_write_does_what_each_key_does_typed_slowly(demo):
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        # the timing view sorted twice and closed, the anomaly picker moved with j and picked, then e
        await send(app, pilot, "Tss\x1baj\re")
        assert app.screen is app.screen_stack[0] and len(app.screen_stack) == 1
        assert app.explorer.timing_view.screen().table.sort == "decode_ms"  # total → TTFT → decode
        assert app.explorer.anomalies.kind == "error"
        assert app.current_index == app.explorer.anomalies.indexes("error")[0]
