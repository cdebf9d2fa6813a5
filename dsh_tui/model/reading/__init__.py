"""The log's bytes to an index: frames, the scan, the split read, the index cache, opening."""
