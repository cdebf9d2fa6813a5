"""The main screen's compositor (ui/compat/compositor.py): the same frames, fewer widgets rendered."""

from __future__ import annotations

import random
import re

import pytest
from rich.cells import cell_len
from textual._compositor import Compositor
from textual.geometry import Region

from dsh_tui.ui.compat.compositor import SparseCompositor

from ..support.app import make_app, ready  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.usefixtures("isolated_xdg"),
              pytest.mark.fast_render("the stock render has Textual's own compositor: nothing to compare")]


CONTROL = re.compile(r"\x1b\[(\d+);(\d+)H|\x1b\[([0-9;]*)m|\n")


def _cells(output: str) -> dict[tuple[int, int], tuple[str, str]]:
    """What a terminal shows after ``output``: (x, y) -> (character, its SGR attributes).

    Bytes are not compared: Textual's own update also sends cursor moves followed by nothing.
    """
    cells, x, y, sgr, at = {}, 0, 0, "", 0
    for m in CONTROL.finditer(output + "\n"):
        for ch in output[at:m.start()]:
            cells[(x, y)] = (ch, sgr)
            x += cell_len(ch)
        at = m.end()
        if m.group(1):
            y, x = int(m.group(1)) - 1, int(m.group(2)) - 1
        elif m.group(0) != "\n":
            sgr = m.group(3)
    return cells


def _frame(app, compositor: Compositor, regions: set[Region], stock: bool) -> dict:
    """The cells a partial update of ``regions`` paints, by the stock algorithm or the sparse one."""
    compositor._dirty_regions = set(regions)
    # Called through the base class the override's hook is never set: Textual's own algorithm.
    update = Compositor.render_partial_update(compositor) if stock else compositor.render_partial_update()
    return _cells(update.render_segments(app.console))


def _random_regions(rng: random.Random, width: int, height: int) -> set[Region]:
    out = set()
    for _ in range(rng.randint(1, 4)):
        x, y = rng.randrange(width), rng.randrange(height)
        out.add(Region(x, y, rng.randint(1, width - x), rng.randint(1, min(6, height - y))))
    return out


async def test_a_partial_frame_paints_the_same_cells_as_textuals_for_any_dirty_regions(demo):
    app = make_app(demo)
    rng = random.Random(7)
    async with app.run_test(size=(120, 32)) as pilot:
        await ready(app, pilot)
        compositor = app.screen._compositor
        assert isinstance(compositor, SparseCompositor)
        # States with layers in front of others: the lists' scrollbars, the prompt over the footer.
        for keys in ((), ("end",), ("colon", "4"), ("escape", "tab"), ("z",)):
            await pilot.press(*keys)
            await pilot.pause(0.05)
            w, h = app.size
            panes = [p.region for p in (app.events, app.pairs_pane, app.detail) if p.display and p.region]
            cases = [{r} for r in panes] + [set(panes), {Region(0, h - 1, w, 1), panes[0]}]
            cases += [_random_regions(rng, w, h) for _ in range(60)]
            for regions in cases:
                painted = _frame(app, compositor, regions, stock=True)
                assert painted and _frame(app, compositor, regions, stock=False) == painted, (keys, regions)


async def test_a_scrollbar_repainted_alone_does_not_render_its_pane_or_the_other_panes(demo, monkeypatch):
    app = make_app(demo)
    async with app.run_test(size=(120, 32)) as pilot:
        await ready(app, pilot)
        compositor = app.screen._compositor
        bar = app.events.vertical_scrollbar
        assert bar.display and bar.region, "the demo log's events list has a scrollbar"
        rendered = []
        for widget in [bar, *app.screen.walk_children(with_self=True)]:  # scrollbars are no DOM children
            monkeypatch.setattr(widget, "render_lines", lambda crop, w=widget, f=widget.render_lines: rendered.append(w) or f(crop))
        footer = Region(0, app.size.height - 1, app.size.width, 1)
        compositor._dirty_regions = {bar.region, footer}
        compositor.render_partial_update()
        assert bar in rendered and any(footer.overlaps(w.region) for w in rendered if w is not bar)
        assert not set(rendered) & {app.events, app.detail, app.pairs_pane, app.screen}
        rendered.clear()
        compositor._dirty_regions = {bar.region, footer}
        Compositor.render_partial_update(compositor)
        assert {app.events, app.detail, app.screen} <= set(rendered)  # what Textual's own would render
