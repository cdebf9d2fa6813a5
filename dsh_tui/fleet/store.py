"""The scan's output folder, written and read with DuckDB.

    OUT/sessions/project_key=P/created_date=D/data_0.parquet   (and findings/, calls/, turns/)
    OUT/manifest.json        what was read: path, size, mtime, inode -> the session's rows
    OUT/staging/bNNNNNN/     a batch's rows, written by the worker that read it (local or Dask)

A scan's workers write staging batches; the driver then makes each table anew from the previous
table (less the sessions read again or gone) and the new batches, into a fresh folder it renames
into place, and writes the manifest last. A scan stopped midway leaves the previous tables and
manifest as they were (its staging is cleared by the next scan).

The folder holds what the logs hold (argument previews are masked, messages are not): it is made
private (0700) and refused when another user owns it or can write to it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import orjson

from .rows import Rows, utf8
from .schema import PARTITION, SCHEMA, TABLES

MANIFEST = "manifest.json"
STAGING = "staging"


class OutDirError(Exception):
    """The output folder cannot be used (one line)."""


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise OutDirError("DuckDB is not installed: pip install 'dsh-tui[fleet]'") from None
    return duckdb


def prepare_out(out: Path, *, create: bool = True) -> Path:
    """``out`` checked (and made, 0700): a directory of this user's, not writable by others, not a link."""
    out = Path(os.path.abspath(out))
    if create:
        try:
            out.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise OutDirError(f"{out}: cannot make the output folder: {exc.strerror or exc}") from None
    try:
        st = os.lstat(out)
    except OSError as exc:
        raise OutDirError(f"{out}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise OutDirError(f"{out}: is a symbolic link; give the folder it points to")
    if not stat.S_ISDIR(st.st_mode):
        raise OutDirError(f"{out}: not a directory")
    if st.st_uid != os.getuid():
        raise OutDirError(f"{out}: owned by another user; refusing to write or trust it")
    if st.st_mode & 0o022:
        raise OutDirError(f"{out}: writable by other users (mode {st.st_mode & 0o777:o}); chmod go-w it first")
    return out


# -- the manifest -----------------------------------------------------------------------------------

def read_manifest(out: Path) -> dict | None:
    """The previous scan's manifest, or None (none, unreadable, another schema or dsh-tui version:
    read everything again)."""
    from .. import __version__
    try:
        with open(out / MANIFEST, "rb") as fh:
            data = orjson.loads(fh.read(256 << 20))
    except (OSError, orjson.JSONDecodeError):
        return None
    if (not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("dsh_tui_version") != __version__
            or not isinstance(data.get("sessions"), dict)):
        return None
    return data


def write_manifest(out: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", dir=out)
    try:
        with os.fdopen(fd, "wb") as fh:
            try:
                fh.write(orjson.dumps(data))
            except TypeError:  # a lone surrogate in an id or a path
                fh.write(orjson.dumps(_utf8_tree(data)))
        os.replace(tmp, out / MANIFEST)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _utf8_tree(v):
    if isinstance(v, str):
        return utf8(v)
    if isinstance(v, dict):
        return {utf8(k): _utf8_tree(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_utf8_tree(x) for x in v]
    return v


# -- writing a batch (in a worker) -------------------------------------------------------------------

def _columns(table: str) -> str:
    return "{" + ", ".join(f"'{name}': '{typ}'" for name, typ in TABLES[table]) + "}"


def _dumps(row: dict) -> bytes:
    try:
        return orjson.dumps(row)
    except TypeError:
        return orjson.dumps({k: utf8(v) if isinstance(v, str) else v for k, v in row.items()})


def write_batch(rows: Rows, folder: Path) -> None:
    """One Parquet file per table in ``folder`` (made here), each with every column of its table."""
    duckdb = _duckdb()
    folder.mkdir(mode=0o700, parents=True, exist_ok=False)
    con = duckdb.connect(":memory:", config={"threads": 1})
    try:
        for table in TABLES:
            src = folder / f"{table}.jsonl"
            with open(src, "wb") as fh:
                for row in getattr(rows, table):
                    fh.write(_dumps(row))
                    fh.write(b"\n")
            names = ", ".join(f'"{name}"' for name, _t in TABLES[table])
            con.execute(f"COPY (SELECT {names} FROM read_json(?, format='newline_delimited', columns={_columns(table)})) "
                        f"TO '{_quote(folder / (table + '.parquet'))}' (FORMAT parquet)", [str(src)])
            src.unlink()
    finally:
        con.close()


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")


# -- making the tables (the driver) ------------------------------------------------------------------

def table_glob(out: Path, table: str) -> str:
    return str(out / table / "**" / "*.parquet")


def _has_files(folder: Path) -> bool:
    return folder.is_dir() and any(folder.rglob("*.parquet"))


def build_tables(out: Path, batches: list[Path], keep: set[str]) -> None:
    """Each table made anew: the previous one's rows of the sessions in ``keep`` (unchanged since the
    manifest: rows of a session read again, gone, or left by a scan stopped midway are dropped), plus
    ``batches``; written beside the old one, then renamed into place."""
    duckdb = _duckdb()
    work = Path(tempfile.mkdtemp(prefix=".next-", dir=out))
    con = duckdb.connect(":memory:")
    try:
        con.execute("CREATE TEMP TABLE keep (k VARCHAR PRIMARY KEY)")
        if keep:
            _insert_keys(con, keep)
        for table in TABLES:
            names = ", ".join(f'"{name}"' for name, _t in TABLES[table])
            parts = []
            if _has_files(out / table):
                parts.append(f"SELECT {names} FROM read_parquet('{_quote(Path(table_glob(out, table)))}', "
                             "hive_partitioning=false) WHERE session_key IN (SELECT k FROM keep)")
            for b in batches:
                parts.append(f"SELECT {names} FROM read_parquet('{_quote(b / (table + '.parquet'))}')")
            if not parts:
                continue
            query = " UNION ALL ".join(parts)
            count = con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0]
            if count:
                con.execute(f"COPY ({query} ORDER BY project_key, created_date, session_key) TO "
                            f"'{_quote(work / table)}' (FORMAT parquet, PARTITION_BY ({', '.join(PARTITION)}), "
                            "WRITE_PARTITION_COLUMNS true)")
    finally:
        con.close()
    for table in TABLES:  # swap: the old table out, the new one in
        old = out / table
        if old.exists():
            os.replace(old, work / f".old-{table}")
        if (work / table).exists():
            os.replace(work / table, old)
    shutil.rmtree(work, ignore_errors=True)


def _insert_keys(con, keys: set[str]) -> None:
    """The keys into the temp table through a JSON file: executemany is slow by the ten thousand."""
    fd, tmp = tempfile.mkstemp(suffix=".json")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"[" + b",".join(_dumps({"k": k}) for k in keys) + b"]")
        con.execute("INSERT INTO keep SELECT k FROM read_json(?, format='array', columns={'k': 'VARCHAR'})", [tmp])
    finally:
        os.unlink(tmp)


def clear_staging(out: Path) -> None:
    shutil.rmtree(out / STAGING, ignore_errors=True)
    for leftover in out.glob(".next-*"):  # a scan stopped while it made the tables
        shutil.rmtree(leftover, ignore_errors=True)


# -- reading (query, the fleet view) -----------------------------------------------------------------

def connect(out: Path):
    """An in-memory DuckDB with the scan's tables as views (empty tables where a scan wrote none)."""
    duckdb = _duckdb()
    con = duckdb.connect(":memory:")
    for table, cols in TABLES.items():
        if _has_files(out / table):
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{_quote(Path(table_glob(out, table)))}', "
                        "hive_partitioning=false)")
        else:
            con.execute(f"CREATE TABLE {table} ({', '.join(f'{n} {t}' for n, t in cols)})")
    return con
