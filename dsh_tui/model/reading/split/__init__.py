"""The split read: a big zstd log's tail indexed by a forked helper while this process reads the head,
then merged as if read on (helper.py: the split and the child; merge.py: the parent's side, which
appends a slice's index to the head's scanner, `append_segment`; reader.py: the split read as readplan.py's
`Reader`, owning the helper). What lies outside uses only these names; the index is always the one a
linear read makes."""

from .helper import STEAL_HEAD_SHARE, TailHelper, choose_split, wanted
from .merge import SplitMissed
from .reader import SplitReader

__all__ = ["STEAL_HEAD_SHARE", "SplitMissed", "SplitReader", "TailHelper", "choose_split", "wanted"]
