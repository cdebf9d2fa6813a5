"""KeyGate: keys are taken one at a time, each by the screen it was typed for.

Textual hands a key to the focused widget's queue and runs its binding when the key
bubbles back to the App, while the App goes on taking the next keys. Typed quickly, a
key after ``t`` reached the list below before the checklist existed, an Enter typed
just before ctrl+p was taken by the palette as it opened (and two Enters closed it
twice: a crash), keys after ``/`` were lost, and ``q`` after Enter in the prompt went
into the closing prompt instead of quitting.

So while a key is on its way (handed out, not yet back at the App), while what it set
off has not settled, while a pushed screen is not mounted (a modal takes the focus
before it takes keys), or while a modal is on its way (a copy running in a thread),
the keys that come are held, and then handed out in order. Whether a key that never
comes back (a widget stopped it: text typed into the prompt) is done is learnt by a
marker that follows it up the same queues; what it set off, by one more marker from
the focused widget. Both are sent only when a key is waiting, so a key on its own
costs nothing extra. A marker whose widget is removed on the way (a dismissed modal)
is given up at the next tick. Nothing holds a key for long: after HOLD_MAX (EXPECT_MAX
for a modal on its way) the keys go on regardless, so no sequence of keys strands the app.
"""

from __future__ import annotations

from collections import deque
from time import monotonic
from typing import Callable

from textual import events

from .compat import is_exiting

HOLD_MAX = 2.0  # s: the last resort (a busy machine takes ~ms per key; a lost marker is caught at a tick)
EXPECT_MAX = 2.5  # s: the longest keys wait for a modal on its way (a copy's native clipboard step: 2 s)


class KeyGate:
    def __init__(self, app) -> None:
        self.app = app
        self.pending: deque[events.Key] = deque()
        self.flight: events.Key | None = None  # handed to ``target``, not yet back at the App
        self.target = None
        self.replay: events.Key | None = None  # re-posted to the App to be handed out
        self.expect_until: float | None = None  # a modal is on its way until then
        self.held_since = 0.0
        self.walking = False  # a marker is on its way to the App
        self.marker_at = None  # the node whose queue holds it
        self.settled = True  # what the last binding run set off has been processed (a marker came back)
        self.generation = 0  # markers of an older generation are ignored (after a time-out)
        self._timer = None

    # -- the App's side ---------------------------------------------------------------------------
    def admit(self, event: events.Key) -> bool:
        """True: hand ``event`` out now. False: it is held, and will be re-posted in turn."""
        if event is self.replay:
            self.replay = None
            return True
        if self.pending or self.replay is not None or self._busy():
            if not self.pending:
                self.held_since = monotonic()
            self.pending.append(event)
            self.pump()
            return False
        return True

    def handed(self, event: events.Key, target) -> None:
        """``event`` was handed out (``target``: where Textual forwarded it, unless a priority binding took it)."""
        if not event.is_forwarded:
            self.settled = False  # a priority binding ran (ctrl+p): let what it set off settle
        elif not target.check_consume_key(event.key, event.character):
            self.flight, self.target = event, target
        # else text typed into an input: it stays there, behind it in the same queue come the next keys
        if self.pending:
            self.pump()

    def arrived(self, event: events.Key) -> None:
        """``event`` came back to the App and its binding (if any) has run."""
        if event is self.flight:
            self.flight = self.target = None
            self.settled = False
            if self.pending:
                self.pump()

    def expect_modal(self) -> None:
        """A modal is on its way (a worker will push it): hold keys for it, at most EXPECT_MAX."""
        self.expect_until = monotonic() + EXPECT_MAX

    def modal_done(self) -> None:
        """The expected modal was pushed (or will not come)."""
        self.expect_until = None
        if self.pending:
            self.pump()

    # -- holding and handing out ------------------------------------------------------------------
    def _busy(self) -> bool:
        if self.flight is not None or self.walking:
            return True
        if self.expect_until is not None:
            if monotonic() < self.expect_until:
                return True
            self.expect_until = None
        screen = self._screen()
        return screen is not None and not screen.is_mounted

    def _screen(self):
        try:
            return self.app.screen
        except Exception:  # no screen: the app is closing
            return None

    def pump(self) -> None:
        """Hand out the next held key if nothing holds it, else make sure something will call again."""
        app = self.app
        if not self.pending or self.replay is not None:
            return
        if is_exiting(app) or not app.is_running:
            self.pending.clear()  # quitting: the keys after q do nothing
            return
        waited = monotonic() - self.held_since
        if waited >= HOLD_MAX and not (self.expect_until is not None and monotonic() < self.expect_until):
            self._give_up()  # never held for long: whatever did not come back, the keys go on
        elif self._busy():
            self._wait()
            return
        elif not self.settled:
            self._walk_from(app.focused or self._screen(), self._settle_done)
            return
        self.replay = self.pending.popleft()
        self.held_since = monotonic()
        app.post_message(self.replay)

    def _wait(self) -> None:
        if self.flight is not None and not self.walking:  # did the key stop on its way? follow it
            self._walk_from(self.target, self._flight_done)
        screen = self._screen()
        if screen is not None and not screen.is_mounted:
            screen.call_later(self.pump)  # runs once the screen has mounted
        self._arm()

    def _arm(self) -> None:
        if self._timer is None:
            self._timer = self.app.set_timer(0.05, self._tick)

    def _tick(self) -> None:
        self._timer = None
        at = self.marker_at
        if self.walking and at is not None and at is not self.app and not at.is_attached:
            self._lost_marker()  # its node was removed with the marker in its queue
        if self.pending:
            self.pump()
            if self.pending:
                self._arm()

    def _give_up(self) -> None:
        self.flight = self.target = None
        self.walking, self.settled, self.expect_until = False, True, None
        self.generation += 1

    def _lost_marker(self) -> None:
        """What the marker waited for went with its node: the walk is over."""
        self.generation += 1
        self.walking, self.marker_at = False, None
        if self.flight is not None:
            self.flight = self.target = None
        else:
            self.settled = True

    # -- markers: follow a key's way up to the App ------------------------------------------------
    def _walk_from(self, node, done: Callable[[], None]) -> None:
        self.walking = True
        generation = self.generation

        def finish() -> None:
            if generation == self.generation:
                self.walking, self.marker_at = False, None
                done()

        def step(at) -> None:
            if generation != self.generation:
                return
            parent = at.parent if at is not self.app else None
            if parent is not None and parent.call_later(step, parent):
                self.marker_at = parent
            elif at is self.app:
                finish()
            else:
                self.marker_at = self.app
                self.app.call_later(finish)

        self.marker_at = node
        if node is None or not node.call_later(step, node):
            self.marker_at = self.app
            self.app.call_later(finish)

    def _flight_done(self) -> None:
        self.flight = self.target = None
        self.pump()

    def _settle_done(self) -> None:
        self.settled = True
        self.pump()
