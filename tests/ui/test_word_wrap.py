"""The detail pane wraps long lines at spaces by default (prose wrapped mid-word read badly); W cuts them
at the width (its title says char wrap), and W again wraps at words; the rows, and so the scrollable
height, follow. Run with the fast render and (test_stock_render.py)
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
        wrapped = detail.shown_rows()  # the default: at words
        assert "wrap" not in str(detail.border_title) and detail.word_wrap
        assert all(len(r) <= width for r in wrapped)
        start = next(k for k, r in enumerate(wrapped) if r.startswith("word000 word001"))
        per_row = (width + 1) // 8  # greedy: as many 7-letter words and their spaces as fit
        rows = wrapped[start:start + -(-300 // per_row)]
        assert " ".join(rows) == WORDS  # every word, whole, in order
        assert all(len(r.split()) == per_row for r in rows[:-1])
        assert detail.virtual_size.height == max(len(wrapped), detail.scrollable_content_region.height)
        await pilot.press("W")  # at the width: words cut in two, the title says so
        await pilot.pause()
        cut = detail.shown_rows()
        assert all(len(r) <= width for r in cut) and "char wrap" in str(detail.border_title)
        assert any(r[-1].isalnum() and n[:1].isalnum() for r, n in zip(cut, cut[1:]))  # a word cut in two
        assert wrapped != cut
        app.jump_to(0)  # another event keeps the cut, and the title says so
        await settle(app, pilot)
        assert not detail.word_wrap and "char wrap" in str(detail.border_title)
        await pilot.press("W")
        await pilot.pause()
        await _show_long_line(app, pilot)
        assert detail.shown_rows() == wrapped and "wrap" not in str(detail.border_title)


def test_a_word_no_row_holds_is_cut_where_it_stands():
    # Moved to a row of its own, a long path is cut anyway: it would only leave a short row behind.
    from dsh_tui.ui.widgets.detail import wrap

    path = "/home/user/" + "a" * 40 + "/b"
    for text in (f"cwd: {path}", f"cwd: {path} done"):
        rows = wrap(text, 30, words=True)
        assert rows[0] == text[:30] and "".join(rows).replace(" ", "") == text.replace(" ", "")
    assert wrap("short words stay whole here", 12, words=True) == ["short words", "stay whole", "here"]
    assert wrap("ß" * 5 + " " + "é" * 40, 20, words=True)[0] == "ß" * 5 + " " + "é" * 14  # by cells too
