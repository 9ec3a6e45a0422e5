"""Opening a mind SQLite cannot write: a file on read-only media, in a directory the process
may not write, or marked immutable (issue 21).

A WAL database needs its `-shm` (and `-wal`) files beside it even to be read; in a directory the
process cannot write, SQLite cannot create them and every read fails ("attempt to write a
readonly database"). Such a mind is opened read-only instead: `mode=ro` (which works when the
`-wal` and `-shm` files already exist), else `immutable=1` when no unfinished WAL sits beside
the file (immutable reads the main file only: with WAL frames present that would be a stale
view, so that case is an error naming the fix). Searches then answer and record no retrievals
(`salience.search.feedback` warns once); every write raises `ReadOnlyMind`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

from ...errors import ReadOnlyMind

#: the statement whose failure says the file cannot be opened for writing
PROBE = "SELECT count(*) FROM sqlite_master"


def is_read_only_error(e: sqlite3.Error) -> bool:
    """SQLITE_READONLY (any extended code) or SQLITE_CANTOPEN: SQLite could not write the
    database or create the files beside it."""
    code = getattr(e, "sqlite_errorcode", 0) & 0xFF
    return code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to the existing mind at `path` (see the module docstring).

    Raises `ReadOnlyMind` when the file cannot be read consistently without writing (an
    unfinished WAL in a directory the process cannot write).
    """
    uri = "file:" + quote(str(path.resolve()))
    try:
        db = _connect(uri + "?mode=ro")
        db.execute(PROBE).fetchone()
        return db
    except sqlite3.Error as e:
        if not is_read_only_error(e):
            raise
        db.close()
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise ReadOnlyMind(
            f"{path} is read-only and its write-ahead log {wal.name} holds changes not yet in "
            "the file; open it once where it can be written (or copy the three files to a "
            "writable directory) so the log is checkpointed"
        )
    db = _connect(uri + "?mode=ro&immutable=1")
    db.execute(PROBE).fetchone()
    return db


def _connect(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
