"""Storage backends behind one protocol, and the factory that opens a mind's store."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidInput, InvalidMindName
from .base import Store

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["Store", "check_mind_name", "mind_exists", "open_store", "sqlite_path"]

_MIND_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_mind_name(name: str) -> str:
    """A mind name is 1–64 characters of letters, digits, '_', '-', '.'; no '..', no separators.

    Raises `InvalidMindName` (names become file names and PostgreSQL keys).
    """
    if not isinstance(name, str) or not _MIND_NAME.match(name) or ".." in name:
        raise InvalidMindName(
            f"invalid mind name {name!r}: use 1-64 letters, digits, '_', '-' or '.', starting "
            "with a letter or digit (no path separators or '..'); to open a file by path, "
            "pass a pathlib.Path"
        )
    return name


def sqlite_path(config: Config, name: str) -> Path:
    """<home>/minds/<name>.db, guaranteed to stay inside the minds directory."""
    base = config.minds_dir.resolve()
    path = (base / f"{check_mind_name(name)}.db").resolve()
    if path.parent != base:
        raise InvalidMindName(f"mind name {name!r} escapes the minds directory")
    return path


def mind_exists(config: Config, name: str, *, backend: str | None = None) -> bool:
    """True if the backend that would hold mind `name` already holds it (nothing is created).

    SQLite: `<home>/minds/<name>.db` exists; PostgreSQL: the mind's schema exists. This is what
    decides whether a name is free, for every backend. Raises `InvalidMindName`, `StoreError`.
    """
    backend = backend or config.backend
    if backend == "sqlite":
        return sqlite_path(config, name).exists()
    if backend == "postgres":
        from .postgres import store_class

        return store_class(config).exists(config, check_mind_name(name))
    raise InvalidInput(f"unknown backend {backend!r}; expected 'sqlite' or 'postgres'")


def open_store(config: Config, name_or_path: str | Path, *, backend: str | None = None) -> Store:
    """Open (creating if needed) the store of one mind.

    `name_or_path`: a mind name, or a `pathlib.Path` to an SQLite file (sqlite backend only).
    """
    backend = backend or config.backend
    if backend == "sqlite":
        from .sqlite import SQLiteStore

        if isinstance(name_or_path, Path):
            path = name_or_path.expanduser()
            name = check_mind_name(path.stem) if _MIND_NAME.match(path.stem) else "mind"
        else:
            name = check_mind_name(name_or_path)
            path = sqlite_path(config, name)
        from .sqlite.hnsw import HnswParams
        from .sqlite.textindex import TextIndexParams

        return SQLiteStore(
            path,
            mind=name,
            busy_timeout_ms=config.sqlite_busy_timeout_ms,
            vector_index=config.sqlite_vector_index,
            hnsw_min_rows=config.sqlite_hnsw_min_rows,
            hnsw=HnswParams(
                dtype=config.sqlite_hnsw_dtype,
                connectivity=config.sqlite_hnsw_connectivity,
                ef_construction=config.sqlite_hnsw_ef_construction,
                ef_search=config.sqlite_hnsw_ef_search,
            ),
            text_index=TextIndexParams(
                mode=config.sqlite_text_index,
                min_rows=config.sqlite_text_index_min_rows,
                pool=config.sqlite_text_index_pool,
            ),
        )
    if backend == "postgres":
        if isinstance(name_or_path, Path):
            raise InvalidInput("the postgres backend opens minds by name, not by file path")
        from ..errors import MissingExtra

        try:
            from .postgres import store_class
        except ImportError as e:
            raise MissingExtra("psycopg", "postgres") from e
        if config.dsn is None:
            raise InvalidInput("backend 'postgres' needs a DSN (config dsn / SALIENCE_DSN / --dsn)")
        return store_class(config).open(config, check_mind_name(name_or_path))
    raise InvalidInput(f"unknown backend {backend!r}; expected 'sqlite' or 'postgres'")
