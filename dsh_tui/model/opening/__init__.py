"""Opening a log: the layer above reading and diagnosing that puts them together.

* target.py: `open_target`, the one way in (a file, an export ZIP or one of its members): from the
  index cache when fresh, else decoded, diagnosed and (best effort) cached; `load_log` for the log alone.
* open.py: a file's open through the index cache (`open_file`, `save_to_cache`).
* cache.py, cachecodec.py: the index cache and its codec (a `SessionLog`'s index and its `Diagnosis`);
  entryparts.py: an entry's binary parts, read from its file as the decode asks for them.
* privatedir.py: the private folders the cache (and the saved views) are written into.

Nothing in reading/ or diagnosing/ imports this package.
"""
