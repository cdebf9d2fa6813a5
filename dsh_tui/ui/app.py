"""ExplorerApp: the full-screen explorer's app. It keeps the settings (keymap, theme), the key gate
(ui/keygate.py), the start-up (a session, the session browser or the fleet view first) and the switching
between screens: the explorer (screens/explorer.py: the session shown, its panes, keys and controllers),
the browser, the fleet view and the error screens above it.

The benchmark, the scripts and the tests read the session through the app (``app.log_``,
``app.events``, ``app.jump_to``): thin forwards to the explorer screen (``app.explorer``).
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.events import Event, InputEvent, Key, MouseDown

from ..safety import one_line
from ..settings import Settings
from .actions import dispatch
from .compat import clear_notices
from .compat.keyparse import install as install_key_parser
from .keygate import KeyGate
from .nocolor import no_color_variables
from .palette import explorer_commands
from .quietgc import QuietGC
from .screens.browser import BrowserScreen
from .screens.explorer import ExplorerScreen
from .screens.fleet import FleetScreen
from .settings_ui import apply_settings
from .widgets.cmdline import CommandLine
from .widgets.event_list import EventList

BROWSER, FLEET = "browser", "fleet"  # the installed screens' names


class ToExplorer:
    """An attribute of the explorer screen, read (and written) through the app."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, app, owner=None):
        return self if app is None else getattr(app.explorer, self.name)

    def __set__(self, app, value) -> None:
        setattr(app.explorer, self.name, value)


class ExplorerApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "dsh-tui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]  # a short terminal drops the activity row
    ALLOW_IN_MAXIMIZED_VIEW = ExplorerScreen.ALLOW_IN_MAXIMIZED_VIEW
    # The session's entry points the benchmark, the scripts and the tests use: the explorer screen's.
    (log_, diag, path, events, detail, pairs_pane, current_index, jump_to, load_finished, flush_detail,
     detail_shown, needle, lenient, max_plain, cancel_event) = (ToExplorer() for _ in range(15))

    def __init__(self, path: str | Path, *, lenient: bool = False, max_plain: int | None = None,
                 at_seq: int | None = None, detail_delay: float = 0.06, native_clipboard: bool = True,
                 tail_probe=None, early_tail=None, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.browse_root: Path | None = None  # set: start in the session browser on this root
        self.fleet_dir: Path | None = None  # set: start in the fleet view of this scan folder
        self.startup_notice: str | None = None
        self._browser_root: Path | None = None  # the installed browser's root
        self.quiet_gc = QuietGC()  # full GC passes between key presses (ui/quietgc.py)
        self.key_gate = KeyGate(self)  # keys one at a time, each for the screen it was typed for (ui/keygate.py)
        install_key_parser()  # Esc then a key sent in one write is Esc, then the key (compat/keyparse.py)
        self.explorer = ExplorerScreen(path, lenient=lenient, max_plain=max_plain, at_seq=at_seq,
                                       detail_delay=detail_delay, native_clipboard=native_clipboard,
                                       tail_probe=tail_probe, early_tail=early_tail)

    def get_default_screen(self) -> ExplorerScreen:
        return self.explorer

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        if self.no_color:  # NO_COLOR: contrast from bold/reverse, not a grey of red (ui/nocolor.py)
            variables = self.theme_variables = {**variables, **no_color_variables(variables)}
        return variables

    def current_keymap(self) -> dict[str, str]:
        """The keymap in effect (binding id -> keys), as ``set_keymap`` was given it."""
        return dict(self.settings.keymap)

    # -- keys ---------------------------------------------------------------------------------------
    async def on_event(self, event: Event) -> None:
        if isinstance(event, InputEvent):
            self.quiet_gc.touch()
            if isinstance(event, Key):
                await self._on_key_event(event)
                return
            if isinstance(event, MouseDown) and not event.is_forwarded:
                self.dismiss_notices()
        await super().on_event(event)

    async def _on_key_event(self, event: Key) -> None:
        gate = self.key_gate
        if event.is_forwarded:  # back from the widget it was handed to: its binding runs now
            if not self.screen_stack:
                return  # the app is closing: no screen to take it (Textual's bindings would raise)
            await super().on_event(event)
            gate.arrived(event)
            return
        if not gate.admit(event):
            return  # held: handed out in turn (ui/keygate.py)
        self.dismiss_notices()
        target = self.focused or self.screen  # where Textual hands it, unless a priority binding takes it
        await super().on_event(event)
        gate.handed(event, target)

    def dismiss_notices(self) -> None:
        """A key or a click takes the notices away: they never cover what the user opens or moves to."""
        clear_notices(self)

    @property
    def escape_to_minimize(self) -> bool:
        """Escape cancels an open prompt, or clears a pending count, before it restores a zoomed pane."""
        found = self.screen.query(CommandLine)
        if found and found.first().is_open:
            return False
        if isinstance(self.focused, EventList) and self.focused.count:  # 123 of 123G
            return False
        return super().escape_to_minimize

    # -- start-up and the screens ---------------------------------------------------------------------
    def on_mount(self) -> None:
        apply_settings(self, self.settings)  # keymap and theme; one notice for what the file got wrong

    def start_up(self) -> None:
        """The explorer's panes are there: the fleet view, the browser, or the session read."""
        if self.fleet_dir is not None:  # `dsh-tui SCAN-FOLDER`: the fleet view
            self.show_fleet()
        elif self.browse_root is not None:  # `dsh-tui DIR`: the session browser
            self.show_browser()
        else:
            self.explorer.loader.start_first()
        if self.startup_notice:
            self.notify(one_line(self.startup_notice, 300), markup=False, timeout=10)

    def show_browser(self, root: Path | None = None) -> None:
        """Push the session browser (installed on first use, so it keeps its cursor and filter)."""
        root = Path(root or self.browse_root)
        if self._browser_root is not None and self._browser_root != root:
            self.uninstall_screen(BROWSER)
            self._browser_root = None
        if self._browser_root is None:
            self.install_screen(BrowserScreen(root, max_plain=self.max_plain), BROWSER)
            self._browser_root = root
        self.browse_root = self.browse_root or root
        self.push_screen(BROWSER)
        self.refresh_bindings()

    def show_fleet(self) -> None:
        if not self.is_screen_installed(FLEET):
            self.install_screen(FleetScreen(self.fleet_dir), FLEET)
        self.push_screen(FLEET)
        self.refresh_bindings()

    def browser_active(self) -> bool:
        """The session browser or the fleet view is shown over the explorer (its keys wait)."""
        return any(isinstance(s, (BrowserScreen, FleetScreen)) for s in self.screen_stack)

    def has_home(self) -> bool:
        """There is a browser or a fleet view to go back to."""
        return self._browser_root is not None or self.browse_root is not None or self.fleet_dir is not None

    def go_home(self) -> None:
        self.show_fleet() if self.fleet_dir is not None else self.show_browser(self._browser_root or self.browse_root)

    def on_browser_screen_open(self, message: BrowserScreen.Open) -> None:
        from ..sessions.targets import entry_target
        self.pop_screen()
        self.explorer.open_from_home(entry_target(message.entry), keep=True)

    def on_fleet_screen_open(self, message: FleetScreen.Open) -> None:
        self.pop_screen()
        self.explorer.open_from_home(Path(message.path), message.seq)

    async def action_quit(self) -> None:
        self.explorer.leave()
        self.exit(return_code=0)

    def on_unmount(self) -> None:
        self.explorer.close()

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from explorer_commands(self.run_command, self.current_keymap())

    async def run_command(self, action_id: str) -> None:
        """A palette command of the explorer (none while the browser is shown: its keys wait too)."""
        if not self.browser_active():
            await dispatch(self.explorer, action_id)
