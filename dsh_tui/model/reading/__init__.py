"""The log's bytes to an index: frames, the scan, the split read, dsh's load checks, an export ZIP."""
