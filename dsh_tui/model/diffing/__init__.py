"""Two runs compared, turn-aligned (`dsh-tui diff`): digest.py reads each side, align.py and compare.py pair them, report.py writes the result. Textual-free."""
