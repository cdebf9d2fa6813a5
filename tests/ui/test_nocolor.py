"""NO_COLOR keeps contrast, and the cursor never looks like the verdict (with colours and without).

Read off the frame the compositor draws (each widget's lines pass the app's line filters, the
NO_COLOR monochrome one included), as WCAG contrast ratios of each text cell's colours.
"""

from __future__ import annotations

import pytest
from textual.color import Color

from dsh_tui.ui.nocolor import READABLE, contrast_ratio
from dsh_tui.ui.widgets.event_list import MARKS

from ..support.app import make_app, ready, settle  # noqa: F401  (fixtures)

pytestmark = pytest.mark.usefixtures("isolated_xdg")

POINTERS = set("▶►▸>→➜")


def contrast(style) -> float:
    return contrast_ratio(Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor))


def is_text(ch: str) -> bool:
    return not ch.isspace() and not 0x2500 <= ord(ch) <= 0x259F  # box drawing and blocks: borders, scrollbars


def hard_to_read(app, region=None) -> list[tuple[int, str, float]]:
    """(row, text, ratio) of the text cells drawn below READABLE (within ``region``, e.g. a modal's box)."""
    out = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        if region is not None:
            if not region.y <= y < region.bottom:
                continue
            strip = strip.crop(region.x, region.right)
        for seg in strip:
            if any(is_text(ch) for ch in seg.text) and seg.style and seg.style.color and seg.style.bgcolor:
                ratio = contrast(seg.style)
                if ratio < READABLE:
                    out.append((y, seg.text.strip(), round(ratio, 1)))
    return out


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
async def test_no_color_keeps_every_text_readable(demo, monkeypatch, size):
    # The verdict's message in the detail pane was red, which NO_COLOR greyed to 2.4:1 on the pane,
    # and a tool row's type dark blue, 1.5:1.
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(demo)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        assert app.no_color
        assert "a durable tool/call exists" in "\n".join(s.text for s in app.screen._compositor.render_strips())
        assert hard_to_read(app) == []
        views = [("k",), ("home",), ("colon", *"132", "enter", "k"), ("colon", *"194", "enter", "k"), ("P", "v")]
        for keys in views:  # rows of every kind off the cursor, a diff, an error result, the pairs pane
            await pilot.press(*keys)
            await settle(app, pilot)
            assert hard_to_read(app) == [], keys
        for key in ("t", "f", "question_mark", "y"):  # the modals, a highlighted option included
            await pilot.press(key)
            await settle(app, pilot)
            box = app.screen.children[0].region
            assert hard_to_read(app, box) == [], key
            if key in ("t", "f"):  # the highlighted option stands out: a bar of its own background
                highlighted, other = {"t": ("1. Decoded", "2. seq"), "f": ("all events", "findings")}[key]
                bar, rest = (Color.from_rich_color(ground_of(app, t)) for t in (highlighted, other))
                assert contrast_ratio(bar, rest) >= 3, key
            await pilot.press("escape")
            await settle(app, pilot)


def ground_of(app, text: str):
    """The background of the segment drawing ``text``."""
    for strip in app.screen._compositor.render_strips():
        for seg in strip:
            if text in seg.text:
                return seg.style.bgcolor
    raise AssertionError(f"{text!r} is not on the screen")


def row_looks(app, y: int) -> tuple[str, list]:
    strip = app.screen._compositor.render_strips()[y]
    return strip.text, [s.style for s in strip if s.text.strip()]


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
async def test_the_cursor_and_the_verdict_look_different(demo, monkeypatch, no_color):
    # The verdict's ▶ read as the cursor; under NO_COLOR the cursor was a grey bar like any bold row.
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        assert MARKS["verdict"] not in POINTERS
        await pilot.press("k")  # the cursor one row above the verdict
        await settle(app, pilot)
        top = app.events.content_region.y - app.events.scroll_offset.y
        verdict_y = top + app.events.source.row_of(app.diag.verdict.index)
        cursor_y = top + app.events.cursor
        assert verdict_y == cursor_y + 1
        verdict_text, verdict = row_looks(app, verdict_y)
        cursor_text, cursor = row_looks(app, cursor_y)
        assert verdict_text.startswith(MARKS["verdict"]) and not cursor_text.startswith(MARKS["verdict"])
        if no_color:  # the cursor is a reverse bar; the verdict is not reversed
            assert all(s.reverse for s in cursor) and not any(s.reverse for s in verdict)
        else:  # the cursor is its background
            assert {s.bgcolor for s in cursor}.isdisjoint({s.bgcolor for s in verdict})
