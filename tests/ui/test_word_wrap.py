"""W: the detail pane wraps long lines at spaces (its title says wrap), and W again cuts them at the width as
before; the rows, and so the scrollable height, follow. Run with the fast render and (test_stock_render.py)
with the stock one."""

from __future__ import annotations

import pytest

from dsh_tui.demo import EventBuilder, demo_header, write_log

from ..support.app import make_app, ready, settle

pytestmark = pytest.mark.usefixtures("isolated_xdg")

WORDS = " ".join(f"word{k:03d}" for k in range(300))  # 2,399 characters, a space every 8


@pytest.fixture
def long_text(tmp_path):
    b = EventBuilder(1_796_218_179_615, seed=3)
    b.turn_start(1)
    b.model_step(1, 1, user=WORDS, text="ok")
    b.turn_end(1, "completed")
    path = tmp_path / "long-text.jsonl.zstd"
    write_log(path, demo_header(), b.finish())
    return path


async def _show_long_line(app, pilot) -> int:
    for i in range(len(app.log_)):
        app.jump_to(i)
        await settle(app, pilot)
        if WORDS in app.detail.plain_lines():
            return i
    raise AssertionError("no event shows the long text")


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_w_wraps_the_detail_at_words_and_back(long_text, size):
    app = make_app(long_text)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        await _show_long_line(app, pilot)
        detail = app.detail
        width = detail.scrollable_content_region.width
        cut = detail.shown_rows()
        assert all(len(r) <= width for r in cut)
        assert any(r[-1].isalnum() and n[:1].isalnum() for r, n in zip(cut, cut[1:]))  # a word cut in two
        assert "wrap" not in str(detail.border_title)
        await pilot.press("W")
        await pilot.pause()
        wrapped = detail.shown_rows()
        assert "wrap" in str(detail.border_title)
        assert all(len(r) <= width for r in wrapped)
        start = next(k for k, r in enumerate(wrapped) if r.startswith("word000 word001"))
        per_row = (width + 1) // 8  # greedy: as many 7-letter words and their spaces as fit
        rows = wrapped[start:start + -(-300 // per_row)]
        assert " ".join(rows) == WORDS  # every word, whole, in order
        assert all(len(r.split()) == per_row for r in rows[:-1])
        assert len(wrapped) >= len(cut) and wrapped != cut  # rows end at a space: as many or more
        assert detail.virtual_size.height == max(len(wrapped), detail.scrollable_content_region.height)
        app.jump_to(0)  # another event keeps the wrap, and the title says so
        await settle(app, pilot)
        assert detail.word_wrap and "wrap" in str(detail.border_title)
        await pilot.press("W")
        await pilot.pause()
        await _show_long_line(app, pilot)
        assert detail.shown_rows() == cut and "wrap" not in str(detail.border_title)
