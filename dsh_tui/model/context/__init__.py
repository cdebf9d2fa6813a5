"""What the model saw and what the run touched, computed lazily from the index when asked.

Textual-free. Nothing here runs in the scan: each function reads the events of the few types it
needs (select.py picks them from the scan's type column) and keeps its output bounded.

* surface.py: the model's context at an event (dsh's surface fold: current, shadowed, log-only).
* requests.py: request headers with the diff from the previous one; input tokens per model request.
* files.py: the files the run read, wrote, edited or deleted (fs tools' meta, plain bash commands).
* loops.py: repeated calls, file churn and retries after the same error, as `info` findings.
* export.py: what `check --format json` and the markdown report show of it.
"""
