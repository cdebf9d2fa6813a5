"""Start a screen before it is pushed, so that pushing it only paints it.

Textual starts a screen (composes and mounts its widgets, applies their styles) when it is first
pushed, and lays it out and renders it then: on the 936k-event log that was most of the timing
view's first opening (~100 ms). ``premount`` does it ahead, in steps taken while nothing is typed,
for an installed screen that is not shown: ``App._register`` is what ``push_screen`` calls for a
screen not yet running, ``Screen._refresh_layout`` what a resize does for the screens under the top
one, and a render of its compositor fills the widgets' line caches. Once pushed, the screen finds
itself laid out at the app's size and repaints from those caches, as when it is opened again.

With the stock render it does nothing: the screen is then started by its first push, as before.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from textual.widget import AwaitMount

from .mode import FAST

LAYOUT_PASSES = 5
SETTLE_S = 0.02  # between passes: the widgets take their Resize (a key typed meanwhile is handled at once)


async def premount(app, screen, quiet: Callable[[], Awaitable[None]]) -> bool:
    """Compose, mount, lay out and render ``screen`` (installed, not on the stack) at the app's size,
    each step after ``quiet()`` (returns once no key is being typed); True if it got to the end."""
    register = getattr(app, "_register", None)
    if not FAST or register is None or screen.is_running or not app.is_running:
        return False

    def hidden() -> bool:
        # Pushed meanwhile (T while it was started): the push lays it out; dropped (another session): no use.
        return screen.is_running and app.is_screen_installed(screen) and screen not in app.screen_stack \
            and bool(app.size)

    await AwaitMount(screen, register(app, screen))
    # The layout posts Resize to the widgets, whose handlers may ask for another (a list's scrollbar
    # appears): laid out again while one is asked, as the screen's update timer does once shown.
    for k in range(LAYOUT_PASSES):
        if not k or screen._layout_required:
            await quiet()
            if not hidden():
                return False
            screen._layout_required = False
            screen._refresh_layout(app.size)
        await asyncio.sleep(SETTLE_S)
    await quiet()
    if not hidden():
        return False
    screen._compositor.render_full_update()
    return True
