"""What the App keeps private that the explorer reads: its notices, whether it is exiting.

These are reads, not overrides: with the stock render they are still made, and should a Textual
release drop the attribute they answer "none" / "not exiting" (see each), never raise.
"""

from __future__ import annotations

from .mode import FAST


def notifications(app) -> tuple:
    """The notices (Textual ``Notification``s) shown now, oldest first; () if Textual hides them elsewhere."""
    return tuple(getattr(app, "_notifications", ()))


def clear_notices(app) -> None:
    """Take the notices away. Only when there are some with the fast render: the stock way
    (``App.clear_notifications``) also schedules a refresh of the toasts, on every key."""
    if not FAST or getattr(app, "_notifications", None):
        app.clear_notifications()


def is_exiting(app) -> bool:
    """``App.exit`` was called: the app is on its way out though still running (False if unknown)."""
    return bool(getattr(app, "_exit", False))
