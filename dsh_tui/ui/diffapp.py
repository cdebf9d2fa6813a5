"""The diff explorer's app: `dsh-tui diff A B` on a terminal opens DiffScreen (screens/diff.py) on the
result the model computed (model/diffing/), with the user's keymap and theme (settings.py) and the
diff's commands in the palette (ctrl+p)."""

from __future__ import annotations

from textual.app import App

from .palette import diff_commands
from .screens.diff import DiffScreen
from .settings_ui import apply_settings, read_settings


class DiffApp(App[None]):
    TITLE = "dsh-tui diff"

    def __init__(self, result, left=None, right=None, *, start_row: int | None = None, settings=None,
                 native_clipboard: bool = True) -> None:
        super().__init__()
        self.result, self.left, self.right, self.start_row = result, left, right, start_row
        self.settings = settings
        self.native_clipboard = native_clipboard
        self.keymap_in_effect: dict[str, str] = dict(settings.keymap) if settings is not None else {}

    def on_mount(self) -> None:
        if self.settings is not None:
            apply_settings(self, self.settings)
        self.push_screen(DiffScreen(self.result, self.left, self.right, start_row=self.start_row))

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from diff_commands(self, self.keymap_in_effect)


def start_row_of(result, side: str, seq: int | None) -> int | None:
    """The row of ``side``'s event ``seq`` (an ``ID@SEQ`` side): the first row at or after it."""
    if seq is None:
        return None
    digest = result.left if side == "left" else result.right
    for k, row in enumerate(result.rows):
        at = row.left if side == "left" else row.right
        if at is None:
            continue
        item = digest.calls[at] if row.kind == "call" else digest.turns[at]
        if item.seq >= seq:
            return k
    return None


def run_diff_app(result, left=None, right=None, *, start_seq: int | None = None) -> None:
    """``left`` / ``right``: each side's (log, diagnosis), for the detail's full texts."""
    app = DiffApp(result, left[0] if left else None, right[0] if right else None,
                  start_row=start_row_of(result, "left", start_seq), settings=read_settings())
    app.run()
