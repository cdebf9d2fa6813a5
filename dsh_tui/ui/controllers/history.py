"""HistoryController: where back goes. The sessions shown before this one (``Place``s: back restores them
without reading the file again), else the session browser, an installed `BrowserScreen` pushed on top of
the explorer (installed once, so going back finds its cursor and filter as they were).

Marks (a named place in a session) are to live here too, beside the back stack: ``places`` is the stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...model.sessions.lineage import session_root
from ...sessions.targets import entry_target, split_target
from ..screens.browser import BrowserScreen
from .base import Controller

BROWSER = "browser"
FLEET = "fleet"


@dataclass
class Place:
    """A session shown in the explorer, kept so back can restore it."""

    path: Path
    log: object
    diag: object
    lineage: object
    index: int | None
    following: bool


class HistoryController(Controller):
    def __init__(self, app) -> None:
        super().__init__(app)
        self.places: list[Place] = []  # the back stack, newest last
        self._browser_root: Path | None = None  # the installed browser's root

    def __len__(self) -> int:
        return len(self.places)

    def reset(self) -> None:
        """Opening another session keeps the back stack."""

    def remember(self, place: Place | None) -> None:
        if place is not None:
            self.places.append(place)

    # -- the browser -----------------------------------------------------------------------------
    def show_browser(self, root: Path | None = None) -> None:
        """Push the session browser (installing it on first use) on top of the explorer."""
        app = self.app
        root = Path(root or app.browse_root)
        if self._browser_root is not None and self._browser_root != root:
            app.uninstall_screen(BROWSER)
            self._browser_root = None
        if self._browser_root is None:
            app.install_screen(BrowserScreen(root), BROWSER)
            self._browser_root = root
        app.push_screen(BROWSER)
        app.refresh_bindings()

    def browser_active(self) -> bool:
        """The session browser or the fleet view is shown over the explorer (its keys wait)."""
        from ..screens.fleet import FleetScreen
        return any(isinstance(s, (BrowserScreen, FleetScreen)) for s in self.app.screen_stack)

    def opened_from_browser(self, message: BrowserScreen.Open) -> None:
        app = self.app
        target = entry_target(message.entry)
        self.places.clear()
        app.pop_screen()
        if app.log_ is not None and Path(target) == app.path:
            return  # the session already shown: keep its place
        app.open_target(target, remember=False)

    # -- the fleet view (a scan's sessions: `dsh-tui SCAN-FOLDER`) --------------------------------------
    def show_fleet(self) -> None:
        from ..screens.fleet import FleetScreen
        app = self.app
        if not app.is_screen_installed(FLEET):
            app.install_screen(FleetScreen(app.fleet_dir), FLEET)
        app.push_screen(FLEET)
        app.refresh_bindings()

    def opened_from_fleet(self, message) -> None:
        self.places.clear()
        self.app.pop_screen()
        self.app.open_target(Path(message.path), at_seq=message.seq, remember=False)

    # -- back -----------------------------------------------------------------------------------
    def can_go_back(self) -> bool:
        app = self.app
        if self.places or self._browser_root is not None or app.browse_root is not None or app.fleet_dir is not None:
            return True
        path, member = split_target(app.path)
        return member is None and session_root(path) is not None

    def back(self) -> None:
        app = self.app
        if self.places:
            app.restore_place(self.places.pop())
            return
        if app.fleet_dir is not None:
            self.show_fleet()
            return
        if self._browser_root is None and app.browse_root is None:
            path, member = split_target(app.path)
            root = session_root(path) if member is None else None
            if root is None:
                app.notify("nothing to go back to: this log is not in a dsh session root (q quits)", markup=False)
                return
            app.browse_root = root
        self.show_browser(self._browser_root or app.browse_root)
