"""Keys sent in one write read as if typed slowly: Esc then a key is Esc, then the key.

Textual's input parser (the private ``textual._xterm_parser``) takes an ESC followed within ESCDELAY
(100 ms) by more characters as the start of an escape sequence; when none matches it reissues them
with the ESC as an Alt modifier on the next key (``alt+x``) or, for a key without an Alt name
(``/``, Enter), drops the ESC. So ``?`` Esc ``/x`` Enter sent in one burst (a fast typist over SSH,
tmux's send-keys) left the help open and typed the search into it, and the ESC was lost.

The explorer binds no Alt key, so ``BurstParser``:

- hands out an ESC at once, as the Escape key, when the character after it can start no sequence a
  terminal sends (CSI ``[``, SS3 ``O``, OSC ``]``, DCS ``P``, APC ``_``, PM ``^``, SOS ``X``, ST ``\\``,
  or another ESC); not inside a bracketed paste, which Textual reads whole;
- splits an Alt that still comes through (an ESC and a sequence-start character that then matched
  nothing, e.g. Esc ``P``) into Escape and the key.

Installed (``install``) only on a Textual release the suite ran on (mode.TESTED) whose parser still has
the names used here; otherwise Textual's own parser reads the keys, as before.
"""

from __future__ import annotations

from typing import Iterable

from textual import events

from .mode import TESTED, release, textual_version

ESC = "\x1b"
SEQUENCE_STARTS = frozenset("[O]P_^X\\" + ESC)
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def paste_state(inside: bool, recent: str, text: str) -> tuple[bool, str]:
    """Whether a bracketed paste is open after ``text`` (``recent``: the last characters before it)."""
    seen = recent + text
    start, end = seen.rfind(PASTE_START), seen.rfind(PASTE_END)
    if start > end:
        inside = True
    elif end > start:
        inside = False
    return inside, seen[-(len(PASTE_START) - 1):]


def _parser_class():
    from textual._parser import ParseTimeout
    from textual._xterm_parser import XTermParser

    class BurstParser(XTermParser):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.esc_waits = False  # the last character fed was an ESC the parser holds as a sequence start
            self.in_paste = False
            self.recent = ""

        def feed(self, data: str) -> Iterable[events.Message]:
            if not data:
                yield from super().feed(data)
                return
            if self.esc_waits and data[0] not in SEQUENCE_STARTS and not self.in_paste:
                yield from self.escape_alone()
            start = 0
            at = data.find(ESC)
            while at != -1:
                nxt = at + 1
                if nxt < len(data) and data[nxt] not in SEQUENCE_STARTS:
                    inside, _ = paste_state(self.in_paste, self.recent, data[start:nxt])
                    if not inside:
                        yield from self.fed(data[start:nxt])
                        yield from self.escape_alone()
                        start = nxt
                at = data.find(ESC, nxt)
            yield from self.fed(data[start:])
            self.esc_waits = data[-1] == ESC

        def fed(self, text: str) -> Iterable[events.Message]:
            if text:
                self.in_paste, self.recent = paste_state(self.in_paste, self.recent, text)
                yield from super().feed(text)

        def escape_alone(self) -> Iterable[events.Message]:
            """The ESC the parser waits on is the Escape key: time its wait out now (as ``tick`` would)."""
            self.esc_waits = False
            if self._timeout_time is None:  # already timed out: the Escape was handed out
                return
            self._timeout_time = None
            self._awaiting = self._gen.throw(ParseTimeout())
            while self._tokens:
                yield self._tokens.popleft()

        def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
            if alt:  # an ESC reissued as Alt: no Alt key is bound, so it was an Escape typed before the key
                yield events.Key("escape", ESC)
            yield from super()._sequence_to_key_events(sequence, False)

    return BurstParser


def usable() -> bool:
    """The installed Textual is one this was tested on, and its parser has the names used."""
    at = release(textual_version())
    low, high = TESTED
    if at is None or not low <= at < high:
        return False
    try:
        from textual._parser import Parser, ParseTimeout  # noqa: F401
        from textual._xterm_parser import XTermParser
    except ImportError:
        return False
    probe = XTermParser()
    return all(hasattr(probe, n) for n in ("_gen", "_awaiting", "_timeout_time", "_tokens")) \
        and hasattr(XTermParser, "_sequence_to_key_events")


_installed = None


def install():
    """Make Textual's terminal drivers read keys with ``BurstParser``; the class, or None when not usable."""
    global _installed
    if _installed is None:
        if not usable():
            _installed = False
            return None
        cls = _parser_class()
        from textual.drivers import linux_driver
        linux_driver.XTermParser = cls
        try:
            from textual.drivers import linux_inline_driver
            linux_inline_driver.XTermParser = cls
        except ImportError:
            pass
        _installed = cls
    return _installed or None
