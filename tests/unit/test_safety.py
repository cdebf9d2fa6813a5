"""Tests for dsh_tui.safety: hostile corpus, properties, and a real Textual render."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_tui.safety import clean, clean_bytes, escape_json, is_clean, one_line

# --------------------------------------------------------------------------- corpus

_TWO_MB_LINE = ("\x1b]52;c;ZXZpbA==\x1b\\" + "A" * 200 + "\x1b[2J\x9b31m") * 9000  # ~2 MB, one line

HOSTILE = {
    "osc52_bel": "before \x1b]52;c;ZXZpbA==\x07 after",
    "osc52_st": "before \x1b]52;c;ZXZpbA==\x1b\\ after",
    "osc0_title": "\x1b]0;pwned-title\x1b\\ text",
    "osc8_link": "\x1b]8;;http://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "csi_2j": "\x1b[2J\x1b[H cleared",
    "alt_screen_off": "\x1b[?1049l left the alt screen",
    "c1_csi": "\x9b31m red via C1",
    "c1_osc52": "\x9d52;c;ZXZpbA==\x9c done",
    "dcs": "\x1bP1$r0m\x1b\\ dcs",
    "nul": "a\x00b",
    "del": "a\x7fb",
    "bel": "ding\x07",
    "cr": "overwrite\rOK",
    "bs": "abc\x08\x08\x08XYZ",
    "rlo": "file\u202egnp.exe",
    "lone_surrogate": "broken \ud800 emoji \udc00",
    "close_markup": "[/]",
    "click_markup": "[@click=app.quit]x[/]",
    "link_markup": "[link=http://x]y[/link]",
    "two_mb_line": _TWO_MB_LINE,
}

_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_FORBIDDEN_CTRL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def assert_safe(out: str) -> None:
    """The invariants every clean() output must satisfy."""
    m = _FORBIDDEN_CTRL.search(out)
    assert m is None, f"control char {m.group()!r} at {m.start()}"
    m = _SURROGATE.search(out)
    assert m is None, f"surrogate {m.group()!r} at {m.start()}"
    assert not (_BIDI & set(out)), "bidi control left"
    assert "\u2028" not in out and "\u2029" not in out
    out.encode("utf-8")  # must not raise


# --------------------------------------------------------------------------- corpus tests


@pytest.mark.parametrize("name", list(HOSTILE))
def test_corpus_is_neutralised(name: str) -> None:
    s = HOSTILE[name]
    out = clean(s)
    assert_safe(out)
    assert clean(out) == out  # idempotent
    assert is_clean(out)


@pytest.mark.parametrize("name", [n for n, s in HOSTILE.items() if not is_clean(s)])
def test_dirty_corpus_is_detected(name: str) -> None:
    s = HOSTILE[name]
    assert not is_clean(s)
    assert clean(s) != s


def test_escape_sequences_become_visible_text() -> None:
    assert clean(HOSTILE["osc52_bel"]) == "before ␛]52;c;ZXZpbA==␇ after"
    assert clean(HOSTILE["osc52_st"]) == "before ␛]52;c;ZXZpbA==␛\\ after"
    assert clean(HOSTILE["csi_2j"]) == "␛[2J␛[H cleared"
    assert clean(HOSTILE["alt_screen_off"]) == "␛[?1049l left the alt screen"
    assert clean(HOSTILE["dcs"]) == "␛P1$r0m␛\\ dcs"


def test_individual_mappings() -> None:
    assert clean("\x00") == "␀"
    assert clean("\x07") == "␇"
    assert clean("\x08") == "␈"
    assert clean("\r") == "␍"
    assert clean("\x1b") == "␛"
    assert clean("\x0b\x0c") == "␋␌"
    assert clean("\x1f") == "␟"
    assert clean("\x7f") == "␡"
    assert clean("\x9b") == "⟨U+009B⟩"
    assert clean("\x80\x85\x9f") == "⟨U+0080⟩⟨U+0085⟩⟨U+009F⟩"
    assert clean("\u202e") == "⟨U+202E⟩"
    assert clean("\u061c\u200e\u200f\u2066\u2069") == "⟨U+061C⟩⟨U+200E⟩⟨U+200F⟩⟨U+2066⟩⟨U+2069⟩"
    assert clean("\ud83d") == "⟨U+D83D⟩"
    assert clean("\ufffe\uffff\ufdd0") == "⟨U+FFFE⟩⟨U+FFFF⟩⟨U+FDD0⟩"
    assert clean("\U0001fffe\U0010ffff") == "⟨U+1FFFE⟩⟨U+10FFFF⟩"
    assert clean("\u2028\u2029") == "⟨U+2028⟩⟨U+2029⟩"


def test_c1_sequences() -> None:
    assert clean(HOSTILE["c1_csi"]) == "⟨U+009B⟩31m red via C1"
    assert clean(HOSTILE["c1_osc52"]) == "⟨U+009D⟩52;c;ZXZpbA==⟨U+009C⟩ done"


def test_newline_and_tab_kept() -> None:
    s = "line one\n\tindented\n\n  end\t"
    assert clean(s) == s
    assert clean("a\x1b\nb\tc") == "a␛\nb\tc"


@pytest.mark.parametrize("name", ["close_markup", "click_markup", "link_markup"])
def test_markup_is_kept_literally(name: str) -> None:
    assert clean(HOSTILE[name]) == HOSTILE[name]


@pytest.mark.parametrize(
    "s",
    [
        "",
        "plain ascii text",
        "tabs\tand\nnewlines\n",
        "中文 👍 👩‍👩‍👧 e\u0301 café",
        "[bold]not markup[/bold] \\[x]",
        "␛ already a picture ⟨U+202E⟩",
        "\U00020000 CJK ext B, \U0001f600 emoji",
        "zero\u200bwidth and nbsp\u00a0and bom\ufeff",
    ],
)
def test_plain_text_unchanged(s: str) -> None:
    assert clean(s) == s
    assert is_clean(s)


def test_fast_path_returns_same_object() -> None:
    s = "The quick brown fox jumps over the lazy dog; tool call returned 200 OK. " * 2
    assert clean(s) is s


def test_max_chars_truncates_first() -> None:
    assert clean("x" * 20, max_chars=5) == "xxxxx… [15 more chars]"
    assert clean("abc", max_chars=3) == "abc"
    assert clean("a\x1bbcdef", max_chars=2) == "a␛… [5 more chars]"
    out = clean(HOSTILE["two_mb_line"], max_chars=1000)
    assert out.startswith("␛]52;c;ZXZpbA==␛\\AAAA")
    assert out.endswith(f"… [{len(HOSTILE['two_mb_line']) - 1000:,} more chars]")
    assert_safe(out)


def test_two_mb_line_is_fast_enough() -> None:
    import time

    t0 = time.process_time()
    out = clean(HOSTILE["two_mb_line"])
    elapsed = time.process_time() - t0
    assert_safe(out)
    assert len(out) > len(HOSTILE["two_mb_line"])
    assert elapsed < 2.0, f"clean() of a 2 MB line took {elapsed:.2f} s"


def test_clean_bytes() -> None:
    raw = b"ok \xff\xfe \x1b]52;c;ZXZpbA==\x07 \xc2\x9b done \xe2\x80\xae"
    out = clean_bytes(raw)
    assert out == "ok \ufffd\ufffd ␛]52;c;ZXZpbA==␇ ⟨U+009B⟩ done ⟨U+202E⟩"
    assert_safe(out)
    assert clean_bytes(b"x" * 10, max_chars=4) == "xxxx… [6 more chars]"
    # JSON-style surrogate escapes that survived as raw bytes are invalid UTF-8
    assert_safe(clean_bytes("\ud800".encode("utf-8", "surrogatepass")))


def test_is_clean_matches_clean() -> None:
    for s in [*HOSTILE.values(), "", "abc", "a\nb", "\U0001fffe"]:
        assert is_clean(s) == (clean(s) == s)


# --------------------------------------------------------------------------- one_line


def test_one_line_basic() -> None:
    assert one_line("hello") == "hello"
    assert one_line("a\nb") == "a⏎b"
    assert one_line("a\r\nb") == "a⏎b"
    assert one_line("a\tb") == "a b"
    assert one_line("a \t\t b") == "a b"
    assert one_line("a   b") == "a   b"  # plain space runs are not touched
    assert one_line('{\n  "a": 1,\n\n\n  "b": 2\n}') == '{⏎"a": 1,⏎"b": 2⏎}'
    assert one_line("x\x1b[31my\n") == "x␛[31my⏎"
    assert one_line("trailing\n") == "trailing⏎"


def test_one_line_truncates() -> None:
    out = one_line("a" * 1000, max_chars=10)
    assert out == "a" * 9 + "…"
    assert len(out) == 10
    assert one_line("a" * 10, max_chars=10) == "a" * 10
    assert one_line("abc", max_chars=0) == ""
    out = one_line(HOSTILE["two_mb_line"])
    assert len(out) == 400 and out.endswith("…")
    assert_safe(out)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_one_line_corpus(name: str) -> None:
    out = one_line(HOSTILE[name])
    assert_safe(out)
    assert "\n" not in out and "\t" not in out
    assert len(out) <= 400
    assert clean(out) == out


# --------------------------------------------------------------------------- properties

_DANGEROUS = (
    [chr(c) for c in range(0x00, 0x20)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + sorted(_BIDI)
    + ["\ud800", "\udbff", "\udc00", "\udfff", "\ufffe", "\uffff", "\U0010ffff", "\u2028"]
    + ["[", "]", "/", "@", "=", "\u200d", "\U0001f469"]
)
_any_char = st.characters(exclude_categories=())  # includes surrogates (Cs)
_text = st.text(alphabet=st.one_of(_any_char, st.sampled_from(_DANGEROUS)), max_size=200)


@settings(max_examples=500, deadline=None)
@given(_text)
def test_property_clean(s: str) -> None:
    out = clean(s)
    assert_safe(out)
    assert clean(out) == out
    assert is_clean(out)
    assert out.count("\n") == s.count("\n")
    assert out.count("\t") == s.count("\t")
    assert is_clean(s) == (out == s)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_any_char))
def test_property_clean_arbitrary_text(s: str) -> None:
    out = clean(s)
    assert_safe(out)
    assert clean(out) == out


@settings(max_examples=300, deadline=None)
@given(_text, st.integers(min_value=1, max_value=120))
def test_property_one_line(s: str, n: int) -> None:
    out = one_line(s, max_chars=n)
    assert_safe(out)
    assert "\n" not in out and "\t" not in out
    assert len(out) <= n
    assert clean(out) == out


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_property_clean_bytes(data: bytes) -> None:
    assert_safe(clean_bytes(data))


@settings(max_examples=200, deadline=None)
@given(_text, st.integers(min_value=0, max_value=50))
def test_property_max_chars(s: str, n: int) -> None:
    out = clean(s, max_chars=n)
    assert_safe(out)
    if len(s) > n:
        assert out.endswith(f"… [{len(s) - n:,} more chars]")
    else:
        assert out == clean(s)


def test_one_line_without_a_limit_never_cuts() -> None:
    text = "x" * 10_000 + "\ncall\x1b]0;t\x07"
    out = one_line(text, None)
    assert out == "x" * 10_000 + "⏎call␛]0;t␇"
    assert one_line("plain", None) == "plain"


@settings(max_examples=300, deadline=None)
@given(_text)
def test_property_one_line_without_a_limit(s: str) -> None:
    out = one_line(s, None)
    assert_safe(out)
    assert "\n" not in out and one_line(out, None) == out


# --------------------------------------------------------------------------- escape_json


def test_escape_json_escapes_what_a_terminal_acts_on_and_keeps_the_meaning() -> None:
    import json
    value = {"k\x9b": "esc \x1b]0;t\x07 c1 \x9b31m del \x7f bidi \u202e\u2066 ls \u2028 nc \U0010fffe ok é ✓ 😀"}
    text = escape_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert_safe(text)
    assert "\\u009b31m" in text and "\\u202e" in text and "\\udbff\\udffe" in text
    assert "é ✓ 😀" in text  # printable text is left alone
    assert json.loads(text) == value  # exactly the same JSON
    assert escape_json(text) == text
    ascii_only = json.dumps({"a": "del \x7f esc \x1b"}, indent=2)  # an ASCII text takes a faster path
    assert escape_json(ascii_only.replace("\\u001b", "\x1b")) == ascii_only.replace("\x7f", "\\u007f")


def test_escape_json_writes_a_lone_surrogate_as_dsh_does() -> None:
    """UTF-8 cannot hold a lone surrogate; the JSON escape can, exactly (dsh writes \\ud83d so)."""
    import json
    text = escape_json(json.dumps({"id": "x\ud83d y \udc00"}, ensure_ascii=False))
    text.encode("utf-8")
    assert "\\ud83d" in text and "\\udc00" in text and "U+D83D" not in text
    assert json.loads(text) == {"id": "x\ud83d y \udc00"}  # round-trips


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_text, _text, max_size=4))
def test_property_escape_json(value: dict) -> None:
    import json
    text = escape_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert_safe(text)
    assert json.loads(text) == value  # exact, lone surrogates included


# --------------------------------------------------------------------------- import hygiene


def test_safety_imports_neither_textual_nor_rich() -> None:
    code = (
        "import sys, dsh_tui.safety; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- real Textual render


def _render_cases() -> list[tuple[str, str]]:
    return [(name, clean(s, max_chars=300)) for name, s in HOSTILE.items()]


async def _screenshot(text_widget_factory) -> tuple[str, object]:
    from textual.app import App, ComposeResult

    class Probe(App[None]):
        def compose(self) -> ComposeResult:
            yield from text_widget_factory()

    app = Probe()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        svg = app.export_screenshot()
        assert app.is_running
    return svg, app


def _svg_text(svg: str) -> str:
    """The visible text of a Textual SVG screenshot (html entities decoded)."""
    root = ET.fromstring(svg)
    return "".join(root.itertext()).replace("\u00a0", " ")


@pytest.mark.parametrize("name,safe", _render_cases(), ids=[n for n, _ in _render_cases()])
async def test_render_clean_text_in_textual(name: str, safe: str) -> None:
    from rich.text import Text
    from textual.widgets import Static

    svg, app = await _screenshot(
        lambda: [Static(Text(safe), id="as-text"), Static(safe, markup=False, id="as-str")]
    )
    assert "\x1b" not in svg
    assert not _FORBIDDEN_CTRL.search(svg)
    assert app._exception is None  # type: ignore[attr-defined]
    visible = _svg_text(svg)  # also proves the SVG is well-formed XML
    if name == "click_markup":
        assert "[@click=app.quit]" in visible
        assert "[@click=app.quit]x[/]" in visible
    if name == "close_markup":
        assert "[/]" in visible
    if name == "link_markup":
        assert "[link=http://x]y[/link]" in visible
    if name == "osc52_st":
        assert "␛]52;c;ZXZpbA==" in visible


async def test_all_corpus_rendered_together_without_escape() -> None:
    from rich.text import Text
    from textual.containers import VerticalScroll
    from textual.widgets import Static

    cases = sorted(_render_cases(), key=lambda c: c[0] != "click_markup")  # markup case on top

    def widgets():
        return [VerticalScroll(*[Static(Text(s)) for _, s in cases])]

    svg, _ = await _screenshot(widgets)
    assert "\x1b" not in svg
    assert "[@click=app.quit]" in _svg_text(svg)


async def test_unsanitised_text_would_leak() -> None:
    """Control: without clean() the same assertion fails (textual 8.2.8 passes ESC through).

    If a future Textual strips ESC itself this test starts failing; that is news,
    but clean() must stay (C1, bidi and surrogates are still not handled).
    """
    from rich.text import Text
    from textual.widgets import Static

    svg, _ = await _screenshot(lambda: [Static(Text(HOSTILE["osc52_st"]))])
    assert "\x1b" in svg
