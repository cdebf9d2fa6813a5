"""The explorer's panes (widgets/pane.py, ui/compat): component styles resolved once per change, not per frame."""

from __future__ import annotations

import pytest

from ..support.app import make_app, ready  # noqa: F401  (fixtures)

pytestmark = pytest.mark.usefixtures("isolated_xdg")


async def test_the_styles_a_pane_paints_with_are_the_current_ones_after_every_kind_of_change(demo):
    app = make_app(demo)
    async with app.run_test(size=(130, 30)) as pilot:
        await ready(app, pilot)

        async def check(after: str) -> None:
            await pilot.pause(0.05)
            for pane in (app.events, app.pairs_pane, app.detail):
                if not pane.display or not pane.size.area:  # not painted (the pairs pane when narrow)
                    continue
                fresh = {name: pane.get_component_rich_style(name) for name in pane._styles}
                assert pane._base == pane.rich_style and pane._styles == fresh, (after, pane.id)

        await check("start")
        cursor = app.events._styles["vlist--cursor"]
        await pilot.press("tab")  # events -> pairs: the events cursor loses its focused look
        await check("tab")
        assert app.events._styles["vlist--cursor"] != cursor
        await pilot.press("shift+tab", "colon")  # the prompt: the events list keeps its focused look
        await check("prompt open")
        assert app.events._styles["vlist--cursor"] == cursor
        await pilot.press("escape")
        await check("prompt closed")
        assert app.focused is app.events and not app.events.has_class("-prompt-origin")
        await pilot.press("colon", "shift+tab")  # the focus leaves the prompt elsewhere: the look goes
        await check("prompt left by tab")
        assert app.focused is not app.events and app.events._styles["vlist--cursor"] != cursor
        app.theme = "textual-light"
        await check("theme")
        assert app.events._styles["vlist--cursor"] != cursor
        await pilot.press("z")
        await check("zoom")
        await pilot.press("z")
        await pilot.resize_terminal(100, 30)  # narrow: the panes stack, the screen's classes change
        await check("narrow")


@pytest.mark.fast_render("the stock render scrolls the cursor into view on Resize, a frame after the layout pass")
async def test_a_list_that_shrinks_draws_its_cursor_in_the_first_frame_at_the_new_height():
    """After a load the events list loses the load bar's rows; the verdict, its last row, must be
    in the first frame drawn at the new height (the scroll used to follow one frame, ~40 ms, later)."""
    from rich.segment import Segment
    from textual.app import App
    from textual.widgets import Static

    from dsh_tui.ui.widgets.vlist import VirtualList

    frames: list[tuple[int, int]] = []  # (height, top row) of each frame the list drew

    class Rows(VirtualList):
        def row_count(self) -> int:
            return 1000

        def render_row(self, row: int, width: int, is_cursor: bool) -> list[Segment]:
            return [Segment(f"row {row}")]

        def render_lines(self, crop):
            frames.append((self.container_size.height, self.scroll_offset.y))
            return super().render_lines(crop)

    class Shrinking(App):
        def compose(self):
            yield Rows()
            yield Static("bar\nbar\nbar", id="bar")

    app = Shrinking()
    async with app.run_test(size=(40, 14)) as pilot:
        rows, bar = app.query_one(Rows), app.query_one("#bar")
        bar.display = False
        rows.reset_rows(999)
        await pilot.pause(0.1)
        tall = rows.container_size.height
        assert tall > 3 and frames[-1][1] + tall > 999  # the last row is on screen
        frames.clear()
        bar.display = True  # the list gets 3 rows shorter
        await pilot.pause(0.1)
        at_new_height = [(h, top) for h, top in frames if h == tall - 3]
        assert at_new_height and all(top <= 999 < top + h for h, top in at_new_height), frames


@pytest.mark.fast_render("the stock render draws Textual's own scrollbar: nothing to compare")
async def test_the_panes_scrollbars_draw_what_textuals_do(demo):
    """LineScrollBar makes its strips directly: cell for cell, style for style, Textual's own."""
    from textual.geometry import Region
    from textual.scrollbar import ScrollBar

    from dsh_tui.ui.compat.scrollbar import LineScrollBar

    app = make_app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(app, pilot)
        glyphs, compared = set(), 0
        # Each bar keeps its last strips: a new position, crop or theme must not get the old ones
        # (the last crop drawn before a theme change, the whole bar, is the first drawn after it).
        for frac, theme in [(f, t) for f in (0.0, 0.13, 0.37, 0.5, 0.71, 0.99) for t in ("textual-dark", "textual-light")]:
            app.theme = theme
            app.events.move_to(int(frac * (app.events.row_count() - 1)))
            await pilot.pause()
            for pane in (app.events, app.detail):
                bar = pane.vertical_scrollbar
                assert isinstance(bar, LineScrollBar) and bar.display
                w, h = bar.size
                crops = [Region(0, 0, w, h), Region(0, 2, w, h - 5)]
                for crop in crops[::-1] if theme == "textual-dark" else crops:
                    mine, stock = bar.render_lines(crop), ScrollBar.render_lines(bar, crop)
                    assert [list(s) for s in mine] == [list(s) for s in stock]
                    assert bar.render_lines(crop) is mine  # drawn again unchanged: the same strips
                    glyphs |= {seg.text for s in mine for seg in s}
                    compared += len(mine)
        assert compared > 100 and len(glyphs) > 1  # a thumb with its end glyphs was among them


async def test_the_detail_scrollbar_shows_exactly_when_the_text_is_taller_than_the_pane(demo):
    """DetailView's virtual height is never less than the pane's (no layout pass between events that
    fit); its scrollbar must still come and go with the text and with the terminal's height."""
    app = make_app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(app, pilot)
        detail = app.detail

        def lines_of(i: int) -> int:
            app.explorer._detail_index = i
            app.flush_detail()
            return len(detail._visual)

        sizes = {i: lines_of(i) for i in range(len(app.log_))}
        short = [i for i, n in sizes.items() if n <= 16]
        long = [i for i, n in sizes.items() if n >= 60]
        assert len(short) >= 2 and long, sorted(sizes.values())

        async def show(i: int, expect_bar: bool) -> None:
            app.jump_to(i)
            await pilot.pause(0.1)
            assert app.detail_shown == i
            region = detail.scrollable_content_region.height
            assert detail.show_vertical_scrollbar is expect_bar, (i, sizes[i], region)
            assert detail.virtual_size.height == (sizes[i] if expect_bar else region)

        await show(short[0], False)
        before = detail.virtual_size
        await show(short[1], False)
        assert detail.virtual_size == before  # no size change between details that fit
        await show(long[0], True)
        await show(short[0], False)  # the bar goes once the text fits again
        await pilot.resize_terminal(120, 30)  # a shorter pane, the short text still fits
        await pilot.pause(0.1)
        await show(short[0], False)
        await pilot.resize_terminal(120, 14)  # now it does not
        await pilot.pause(0.1)
        assert detail.show_vertical_scrollbar == (sizes[short[0]] > detail.scrollable_content_region.height)
        await pilot.resize_terminal(120, 36)
        await pilot.pause(0.1)
        await show(short[0], False)


@pytest.mark.fast_render("the stock render refits on Resize: one frame is wrapped for a bar before that")
async def test_a_lone_detail_view_refits_its_height_before_the_frame_when_only_the_terminal_height_changes():
    """A height kept from a taller pane must be dropped before Textual judges the scrollbar on it:
    otherwise a bar shows, and the text is wrapped one column narrower, for a frame over text that
    fits (Resize reaches the widget after that frame is drawn)."""
    from textual.app import App, ComposeResult

    from dsh_tui.ui.widgets.detail import DetailView

    widths: list[int] = []

    class Spy(DetailView):
        def _rewrap(self, width: int, force: bool = False) -> None:
            widths.append(width)
            super()._rewrap(width, force)

    class Lone(App):
        def compose(self) -> ComposeResult:
            yield Spy()

    app = Lone()
    async with app.run_test(size=(40, 30)) as pilot:
        detail = app.query_one(Spy)
        detail.set_message("x" * 40 * 5)  # five rows at the full width
        await pilot.pause()
        for height in (30, 12, 6, 4, 20):
            widths.clear()
            await pilot.resize_terminal(40, height)
            await pilot.pause(0.05)
            region = detail.scrollable_content_region.height
            rows = len(detail._visual)
            bar = height < 5
            assert region == height and detail.show_vertical_scrollbar is bar, (height, rows)
            assert detail.virtual_size.height == (rows if bar else region), height
            width = detail.scrollable_content_region.width
            assert width == 40 - bar * detail.styles.scrollbar_size_vertical
            assert set(widths) <= {width}, (height, widths)  # never wrapped for a bar it does not show


async def test_the_narrow_header_says_which_calls_are_stranded_and_that_p_shows_them(demo):
    """At 80 columns the pairs pane is hidden: the header names the stranded calls and the key; P shows the
    pane (the note goes, the events list keeps rows) and P again hides it (the note is back). Wide: no note."""
    app = make_app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        header = app.query_one("#header")
        assert not app.pairs_pane.display
        assert "2 calls stranded: P shows them" in header.plain()  # the demo's crash left two calls
        await pilot.press("P")
        await pilot.pause()
        assert app.pairs_pane.display and app.pairs_pane.size.height > 1
        assert app.events.size.height >= app.pairs_pane.size.height  # the events list keeps its rows
        assert "stranded" not in header.plain()
        await pilot.press("P")
        await pilot.pause()
        assert not app.pairs_pane.display and "2 calls stranded: P shows them" in header.plain()
        await pilot.resize_terminal(160, 45)  # across the breakpoint: the wide layout shows the pane
        await pilot.pause()
        await pilot.pause()
        assert app.pairs_pane.display and "stranded" not in header.plain()
