"""The fleet: many sessions at once. `scan` reads every session under some roots through the same
reader and diagnosis as `check` and writes them as Parquet tables (schema.py); `query` asks those
tables in SQL on embedded DuckDB; `grep` searches many logs for a pattern.

rows.py (what one session becomes) and discover.py (which sessions there are) are model code: no
DuckDB, no Dask, no Textual. store.py writes and reads the tables (DuckDB), engine.py runs the
per-session work on local processes or a Dask cluster. DuckDB and Dask come with the `fleet` extra.
"""
