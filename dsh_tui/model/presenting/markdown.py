"""Markdown escaping for values from a log (the shared bug report): nothing they hold may render.

A value can close a code fence, end a table cell, or start a heading, link, image, autolink,
mention or raw HTML. Each context has one function here: :func:`fence` (a fenced block longer
than any backtick run inside), :func:`code` (a code span, likewise), :func:`cell` (a code span
fit for a GFM table cell), :func:`text` (inline prose with every active character
backslash-escaped). All of them sanitise first (``safety``), so no control character, bidi
override or line break gets through. Stdlib only.
"""

from __future__ import annotations

import re

from ...safety import clean, one_line

__all__ = ["cell", "code", "fence", "text"]

_BACKTICKS = re.compile(r"`+")
# What makes inline Markdown (CommonMark + GFM + GitHub) active in the middle of a line: escapes,
# code, emphasis, links and images, autolinks and raw HTML, entities, strikethrough, table pipes,
# '@' mentions and e-mail links, '#' issue refs; '_' only at a word's edge (inside a word it cannot
# open or close emphasis: TOOL_NOT_STARTED stays as it is); the ':' of 'scheme://' and the '.'
# inside a domain (www.x.com, x.com: bare-URL autolinks). A value never starts a line here, so
# line-start syntax (#, >, -, +, 1.) needs no escape.
_ACTIVE = re.compile(r"[\\`*\[\]<>&!|~@#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|:(?=/)|(?<=[A-Za-z0-9])\.(?=[A-Za-z0-9])")


def _longest_run(s: str) -> int:
    return max((len(m) for m in _BACKTICKS.findall(s)), default=0)


def fence(body: str, info: str = "") -> list[str]:
    """``body`` (sanitised) as a fenced code block: the lines, opening and closing fence included."""
    body = clean(body).rstrip("\n")
    ticks = "`" * max(3, _longest_run(body) + 1)
    return [ticks + one_line(info, 40).replace("`", ""), *body.split("\n"), ticks]


def code(value: str) -> str:
    """``value`` on one line as a code span whose backtick run is longer than any inside it."""
    value = one_line(value, None)
    if not value:
        return ""
    ticks = "`" * (_longest_run(value) + 1)
    # A span strips one space at each end when both are there: pad so an edge backtick or space survives.
    pad = " " if value[0] in "` " or value[-1] in "` " else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def cell(value: str) -> str:
    """``value`` as the content of a GFM table cell: a code span, with ``|`` escaped (GFM splits the
    row on a pipe even inside a code span, and takes ``\\|`` back to ``|`` in it)."""
    return code(value).replace("|", "\\|")


def text(value: str) -> str:
    """``value`` on one line as literal inline text: every Markdown-active character backslash-escaped."""
    return _ACTIVE.sub(lambda m: "\\" + m.group(), one_line(value, None))
