"""The controllers' ports: what each controller may read and call on the explorer (screens/explorer.py's
ExplorerScreen, which satisfies every one of them). A controller declares its port (``port: JumpsPort``)
and reaches the explorer only through ``self.port``; tests/ui/test_controller_ports.py fails on a
controller that reads or calls anything its port does not name, or reaches for the app.

``Port`` is what every controller has (notices, its workers, messages); ``SessionView`` adds the session
shown and the events list; each controller's own port adds the few calls only it makes. A controller
never holds another: where one's change concerns another (the filter and the chips, the marks and the
copy), the port names a call the screen routes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    import threading

    from textual.message import Message
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.worker import Worker

    from ...settings import Settings
    from ..keygate import KeyGate
    from ..views import RowSource
    from ..widgets.chips import ChipsBar
    from ..widgets.cmdline import CommandLine
    from ..widgets.detail import DetailView
    from ..widgets.event_list import EventList
    from ..widgets.header import HeaderPanel
    from ..widgets.pairs import PairsPane
    from ..widgets.progress import LoadBar
    from ..widgets.sparkline import ActivityBar


class Port(Protocol):
    """Every controller's: notices, its thread workers, messages to the explorer (from any thread)."""

    @property
    def is_open(self) -> bool: ...  # False once the app is closing: late results are dropped

    def notify(self, message: str, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def run_worker(self, work: Callable[[], Any], *, group: str, thread: bool, exclusive: bool,
                   exit_on_error: bool, description: str) -> Worker: ...

    def cancel_workers(self, group: str) -> None: ...

    def notify_worker_error(self, worker: Worker) -> None: ...

    def post_message(self, message: Message) -> bool: ...


class SessionView(Port, Protocol):
    """The session shown: its log and diagnosis, the events list and its cursor, a window over it."""

    log_: Any
    diag: Any
    path: Path

    @property
    def current_index(self) -> int | None: ...

    @property
    def events(self) -> EventList: ...

    def jump_to(self, index: int | None, *, center: bool = True) -> None: ...

    def push_screen(self, screen: Screen, callback: Callable | None = None) -> Any: ...


class Prompting(Protocol):
    def ask(self, kind: str, label: str, callback: Callable, **kw: Any) -> bool: ...


class Titled(Protocol):
    def set_events_title(self) -> None: ...


class Threaded(Protocol):
    def call_from_thread(self, callback: Callable, *args: Any) -> Any: ...


class AnomalyPort(SessionView, Titled, Protocol):
    @property
    def settings(self) -> Settings: ...

    def busy(self, *groups: str) -> bool: ...

    def session_insight(self) -> Any: ...


class ChipsPort(SessionView, Prompting, Titled, Protocol):
    @property
    def filter_base(self) -> RowSource: ...  # the f filter's rows, which the chips narrow

    def chips_bar(self) -> ChipsBar | None: ...

    def mark_count(self) -> int: ...


class CopyPort(SessionView, Threaded, Protocol):
    native_clipboard: bool

    @property
    def key_gate(self) -> KeyGate: ...

    def copy_to_clipboard(self, text: str) -> None: ...


class FamilyPort(SessionView, Protocol):
    max_plain: int | None

    def open_target(self, path: Path, *, at_seq: int | None = None, remember: bool = True) -> None: ...

    def redraw_detail(self) -> None: ...

    def update_extras(self) -> None: ...


class FilterPort(SessionView, Protocol):
    def show_rows(self, focus: int | None) -> None: ...  # the chips narrow the new filter's rows


class FollowPort(SessionView, Titled, Protocol):
    lenient: bool
    max_plain: int | None
    load_finished: bool

    @property
    def header(self) -> HeaderPanel: ...

    @property
    def pairs_pane(self) -> PairsPane: ...

    def batch_update(self) -> Any: ...

    def browser_active(self) -> bool: ...

    def busy(self, *groups: str) -> bool: ...

    def set_interval(self, interval: float, callback: Callable, *, name: str | None = None) -> Any: ...

    def set_session(self, log: Any, diag: Any, *, grown: bool = False, replaced: bool = False) -> None: ...
    # (publishes a base.SessionChanged to every controller)

    def redraw_detail(self) -> None: ...

    def update_extras(self) -> None: ...


class HistoryPort(Port, Protocol):
    path: Path

    def restore_place(self, place: Any) -> None: ...  # a history.Place (not imported: history imports this)

    def has_home(self) -> bool: ...  # a browser or a fleet view to go back to

    def go_home(self) -> None: ...

    def show_browser(self, root: Path) -> None: ...


class JumpsPort(SessionView, Prompting, Protocol):
    def command_line(self) -> CommandLine | None: ...

    def footers(self) -> tuple: ...


class LoaderPort(Port, Protocol):
    path: Path
    lenient: bool
    max_plain: int | None
    load_finished: bool
    cancel_event: threading.Event

    @property
    def header(self) -> HeaderPanel: ...

    @property
    def load_bar(self) -> LoadBar: ...

    def push_screen(self, screen: Screen, callback: Callable | None = None) -> Any: ...

    def call_after_refresh(self, callback: Callable, *args: Any) -> bool: ...

    def show_log(self, log: Any, diag: Any) -> None: ...

    def after_log_shown(self) -> None: ...

    def can_go_back(self) -> bool: ...  # the error screen offers b when there is a session to go back to


class InsightPort(SessionView, Protocol):
    def copy_request(self, request: Any) -> None: ...  # the JSON tree's copy keys: the explorer's copy path


class MarksPort(SessionView, Protocol):
    def show_chips_bar(self) -> None: ...  # the chips bar counts the marks

    def copy_marked(self, indices: list[int]) -> None: ...


class SearchPort(SessionView, Prompting, Titled, Protocol):
    @property
    def detail(self) -> DetailView: ...


class TimelinePort(SessionView, Threaded, Protocol):
    max_plain: int | None
    detail_shown: int | None

    @property
    def detail(self) -> DetailView: ...

    @property
    def focused(self) -> Widget | None: ...

    @property
    def lineage(self) -> Any: ...  # the family's, once found

    def batch_update(self) -> Any: ...

    def timeline_list(self) -> Any: ...

    def mount_beside_events(self, widget: Widget) -> None: ...

    def open_target(self, path: Path, *, at_seq: int | None = None, remember: bool = True) -> None: ...

    def redraw_detail(self) -> None: ...


class TimingPort(SessionView, Protocol):
    load_finished: bool

    @property
    def last_input(self) -> float: ...

    @property
    def screen_stack(self) -> list: ...

    def activity_bar(self) -> ActivityBar | None: ...

    def install_screen(self, screen: Screen, name: str) -> None: ...

    def uninstall_screen(self, screen: Screen) -> None: ...

    async def premount(self, screen: Screen, quiet: Callable) -> bool: ...

    def set_timer(self, delay: float, callback: Callable) -> Any: ...


class ViewOutPort(SessionView, Prompting, Threaded, Protocol):
    def dismiss_notices(self) -> None: ...


class SavedViewPort(SessionView, Protocol):
    at_seq: int | None

    def restore_view(self, marks: list[int], chips: list, focus: int | None) -> None: ...

    def view_state(self) -> tuple[list[int], list]: ...
