"""dsh-tui: explore and check DeepSeek Harness (dsh) session logs."""

__version__ = "0.1.0"
