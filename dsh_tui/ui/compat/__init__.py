"""Every use of a private Textual name, fenced: the fast render's overrides, or Textual's stock classes.

For speed the explorer overrides Textual internals (a compositor, focus and layout handlers, a
scrollbar, the footer's recompose). A Textual release may change them and give wrong pixels, not
an ImportError, so they live here only, and are used only when ``FAST`` (mode.py: the installed
Textual is one they were tested for and DSH_TUI_STOCK_RENDER is not 1; =0 forces them on). Otherwise
the bases below are Textual's own and the explorer works the same, slower. Outside this package no module
names a private Textual attribute or module (tests/unit/test_private_textual.py).

The widgets take their bases from here: ``ScreenBase`` (ExplorerScreen), ``PaneBase`` (the scrolling
panes, with PROMPT_ORIGIN), ``FooterBase`` (StableFooter); the app reads its notices and exit
state through appstate.py.
"""

from __future__ import annotations

from .appstate import clear_notices, is_exiting, notifications
from .mode import FAST, mode_note
from .pane import PROMPT_ORIGIN

if FAST:  # the modules that import Textual's private modules are imported only then
    from .footer import QuietFooter as FooterBase
    from .fastpane import FastPane as PaneBase
    from .screen import FastScreen as ScreenBase
else:
    from textual.screen import Screen as ScreenBase

    from .footer import StockFooter as FooterBase
    from .pane import StockPane as PaneBase

__all__ = ["FAST", "FooterBase", "PROMPT_ORIGIN", "PaneBase", "ScreenBase", "clear_notices", "is_exiting",
           "mode_note", "notifications"]
