"""Findings and events as text: summaries, the detail pane, reports, redaction."""
