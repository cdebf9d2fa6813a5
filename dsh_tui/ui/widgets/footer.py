"""StableFooter: the explorer's footer; with the fast render, recomposed only when its keys change.

Its base is chosen by ui/compat (compat/footer.py): QuietFooter, or Textual's Footer as it is.
Either way ``covered`` says that the docked prompt lies over it (widgets/cmdline.py).
"""

from __future__ import annotations

from ..compat import FooterBase


class StableFooter(FooterBase):
    pass
