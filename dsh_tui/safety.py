"""The one sanitiser for untrusted log text (stdlib only: no textual, no rich).

Contract: every string from a session log goes through clean()/one_line()/clean_bytes()
before it reaches a widget, Strip, Segment, title, notification or screenshot. clean()
neutralises *terminal* controls only; markup like ``[bold]`` or ``[@click=app.quit]x[/]`` is
left as is, so log text must never be parsed as markup: render it via ``rich.text.Text``,
Segments, ``Content`` or ``Static(..., markup=False)`` (templates: ``Content.from_markup("$x", x=...)``).

What :func:`clean` changes (everything else, including ``\\n`` and ``\\t``, is
kept as is):

* C0 controls except ``\\n``/``\\t`` become Control Pictures glyphs
  (ESC -> ``␛``, NUL -> ``␀``, BEL -> ``␇``, CR -> ``␍``, BS -> ``␈`` ...),
  DEL becomes ``␡``. Escape sequences (CSI, OSC 0/8/52, DCS, ...) are therefore
  shown as harmless printable text such as ``␛]52;c;ZXZpbA==␇``.
* C1 controls (U+0080..U+009F), bidi overrides/isolates/marks, lone surrogates
  (what ``json.loads`` returns for an unpaired ``\\ud83d`` escape), Unicode
  noncharacters (U+FDD0..U+FDEF, U+xxFFFE/U+xxFFFF) and the line/paragraph
  separators U+2028/U+2029 (``str.splitlines`` breaks on them) become the
  visible text ``⟨U+XXXX⟩``, e.g. ``⟨U+009B⟩``, ``⟨U+202E⟩``, ``⟨U+D83D⟩``.

The output never contains a character that needs escaping, so ``clean`` is
idempotent and its result always encodes as UTF-8.

Contexts: :func:`one_line` for every single-line place (titles, table cells,
header values, file names, snippet lines, notifications), :func:`clean` for
multi-line text (report files, clipboard payloads), :func:`escape_json` for JSON
text (the same characters as ``\\uXXXX`` escapes, so the JSON keeps its meaning;
a lone surrogate too, as ``\\ud83d``: exact, as dsh writes it).
"""

from __future__ import annotations

import re

__all__ = ["clean", "clean_bytes", "escape_json", "is_clean", "one_line"]

# Everything clean() rewrites, split in two classes because one class holding
# the 32 astral noncharacters makes every search ~8x slower.
_UNSAFE_BMP = re.compile(
    "["
    "\x00-\x08\x0b-\x1f"  # C0 without \t (09) and \n (0a)
    "\x7f-\x9f"  # DEL + C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\u2028\u2029"  # line / paragraph separator
    "\ud800-\udfff"  # lone surrogates
    "\ufdd0-\ufdef\ufffe\uffff"  # noncharacters (BMP)
    "]"
)
# Noncharacters U+1FFFE/U+1FFFF .. U+10FFFE/U+10FFFF; _ASTRAL_MAYBE is a cheap
# prefilter (plane-1 emoji are below U+1FFFE, so it almost never matches).
_UNSAFE_ASTRAL = re.compile(
    "[" + "".join(f"{chr(p << 16 | 0xFFFE)}{chr(p << 16 | 0xFFFF)}" for p in range(1, 17)) + "]"
)
_ASTRAL_MAYBE = re.compile("[\U0001fffe-\U0010ffff]")


def _visible(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # Control Pictures: ␀ .. ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\u27e8U+{code:04X}\u27e9"  # ⟨U+202E⟩


# Precomputed replacements for the common (BMP) cases; _visible() for the rest.
_REPLACEMENT: dict[str, str] = {
    chr(c): _visible(c)
    for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
}


def _replace(match: re.Match[str]) -> str:
    ch = match.group()
    rep = _REPLACEMENT.get(ch)
    return rep if rep is not None else _visible(ord(ch))


def _has_astral_unsafe(text: str) -> bool:
    return (
        not text.isascii()
        and _ASTRAL_MAYBE.search(text) is not None
        and _UNSAFE_ASTRAL.search(text) is not None
    )


def _truncate(text: str, max_chars: int) -> str:
    if max_chars < 0:
        max_chars = 0
    more = len(text) - max_chars
    if more <= 0:
        return text
    return f"{text[:max_chars]}… [{more:,} more chars]"


def clean(text: str, *, max_chars: int | None = None) -> str:
    """Return *text* with every terminal-active or invisible-dangerous char made visible.

    ``\\n`` and ``\\t`` are kept. With *max_chars*, the text is cut to that many
    characters first and ``"… [N more chars]"`` is appended.
    """
    if max_chars is not None and len(text) > max_chars:
        text = _truncate(text, max_chars)
    # Fast path: str.isprintable() is False for every character the classes match
    # (Cc, Cf, Cs, Cn, Zl, Zp), so a printable string needs no work.
    if text.isprintable():
        return text
    bmp = _UNSAFE_BMP.search(text) is not None
    astral = _has_astral_unsafe(text)
    if bmp:
        text = _UNSAFE_BMP.sub(_replace, text)
    if astral:
        text = _UNSAFE_ASTRAL.sub(_replace, text)
    return text


def is_clean(text: str) -> bool:
    """True iff ``clean(text) == text``."""
    return text.isprintable() or (
        _UNSAFE_BMP.search(text) is None and not _has_astral_unsafe(text)
    )


def clean_bytes(data: bytes, *, max_chars: int | None = None) -> str:
    """Decode UTF-8 (invalid bytes -> U+FFFD) and :func:`clean` the result."""
    return clean(bytes(data).decode("utf-8", errors="replace"), max_chars=max_chars)


# one_line(): a line break together with the horizontal whitespace around it (and
# any further blank lines) becomes one "⏎"; a run of spaces/tabs containing a tab
# becomes one space. Plain runs of spaces are left alone.
_BREAKS = re.compile(r"[ \t]*(?:\r?\n[ \t]*)+")
_TABS = re.compile(r" *\t[ \t]*")


def one_line(text: str, max_chars: int | None = 400) -> str:
    """Sanitise *text* for a one-line summary of at most *max_chars* characters.

    Like :func:`clean`, plus: line breaks (``\\n``, ``\\r\\n``, with surrounding
    spaces/tabs and blank lines) collapse to a single ``⏎``; runs of whitespace
    that contain a tab collapse to one space. If the result is longer than
    *max_chars* it is cut and ends with ``…`` (the ``…`` counts toward the limit).
    ``max_chars=None`` never cuts (for a line that is capped elsewhere).
    """
    if max_chars is not None and max_chars <= 0:
        return ""
    # Bound the work on huge inputs. Collapsing can only shrink the text by runs
    # of whitespace, so a generous prefix nearly always decides the output.
    limit = len(text) if max_chars is None else max_chars * 8 + 64
    cut = len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():
        if "\n" in text:
            text = _BREAKS.sub("\u23ce", text)  # ⏎
        if "\t" in text:
            text = _TABS.sub(" ", text)
        text = clean(text)
    if max_chars is not None and (cut or len(text) > max_chars):
        text = text[: max_chars - 1] + "…"
    return text


_SAFE_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"  # dsh's own form (JSON.stringify writes it so): exact, round-trippable
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def escape_json(text: str) -> str:
    """JSON text with every character :func:`clean` rewrites written as a ``\\uXXXX`` escape
    (an astral noncharacter as its surrogate pair), lone surrogates included.

    For serialiser output (orjson, ``json.dumps(ensure_ascii=False)``), where such characters
    only occur inside strings (``\\n`` and ``\\t`` are kept: outside strings they are the
    indentation): the JSON means what it meant, and a terminal shown it acts on none of it;
    ``jq -r`` of a field still prints the raw characters. A lone surrogate (a lenient parse keeps
    ``\\ud83d`` as the log wrote it; dsh writes a closer for such a callId so) has no UTF-8 form, so
    it is written as that escape, exactly as dsh writes it: ``json.loads`` gives the same string back
    (jq 1.6 refuses such an escape; 1.7 reads it as U+FFFD). The output is always valid UTF-8.
    """
    if text.isprintable():
        return text
    # JSON text is mostly ASCII with newlines (so not "printable"): deleting the safe bytes tells in
    # ~1 ms per MB what the regex search takes ~7 ms for (`check --format json` of a 936k-event log).
    if text.isascii() and not text.encode("ascii").translate(None, _SAFE_ASCII):
        return text
    if _UNSAFE_BMP.search(text) is not None:
        text = _UNSAFE_BMP.sub(_json_escape, text)
    if _has_astral_unsafe(text):
        text = _UNSAFE_ASTRAL.sub(_json_escape, text)
    return text
