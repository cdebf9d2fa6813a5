"""The session tree: where dsh keeps its logs and how they relate, read from their headers.

* layout.py: dsh's folders under its root (project keys, segments, log names).
* entry.py: one session seen from its header alone (`SessionEntry`, `read_entry`, `zip_entries`).
* discovery.py: a root, a project or an export ZIP listed as entries; the tree, grouping, filter;
  `fill_status`, which opens and diagnoses a log (opening/) for its status.
* rootlisting.py: sessions that break dsh's own listing of a root.
* lineage.py: a session's parent, children and forks under the same root.

Above opening/ (it opens logs) and below presenting/ (the report prints a lineage). What works on
more than the model (permalinks, the browser's rows, ls, follow, saved views) is in dsh_tui/sessions/.
"""
