"""The minds a data directory (SQLite) or a server (PostgreSQL) holds: list, require, drop.

Reading never creates a mind: `require_mind` raises `MindNotFound` naming the closest existing
names, so a typo (`--mind typo_mind`) is an error instead of a new, empty mind.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidInput, NotFound
from . import check_mind_name, mind_exists, sqlite_path

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["MindNotFound", "close_names", "drop_mind", "list_minds", "require_mind"]


class MindNotFound(NotFound):
    """A read asked for a mind that does not exist (reads never create minds)."""

    code = "mind_not_found"


def close_names(name: str, names: list[str], n: int = 3) -> list[str]:
    """Up to `n` of `names` that look like `name` (typos, '_' for '-', case), best first."""
    folded = {x.lower().replace("_", "-"): x for x in names}
    hits = difflib.get_close_matches(name.lower().replace("_", "-"), list(folded), n=n, cutoff=0.6)
    return [folded[h] for h in hits]


def list_minds(config: Config, *, backend: str | None = None) -> list[str]:
    """Names of the minds that exist, sorted. Raises `StoreError` (PostgreSQL unreachable)."""
    backend = backend or config.backend
    if backend == "sqlite":
        found = []
        for p in config.minds_dir.glob("*.db") if config.minds_dir.is_dir() else []:
            try:
                found.append(check_mind_name(p.stem))
            except InvalidInput:
                continue  # a file a user put there by hand
        return sorted(found)
    if backend == "postgres":
        from .postgres.catalog import list_minds as pg_list

        return pg_list(config)
    raise InvalidInput(f"unknown backend {backend!r}; expected 'sqlite' or 'postgres'")


def require_mind(config: Config, name_or_path: str | Path, *, backend: str | None = None) -> None:
    """Raise `MindNotFound` unless the mind exists (a `Path`: unless the file exists).

    The message names close existing minds and says how to create one.
    """
    if isinstance(name_or_path, Path):
        if not name_or_path.expanduser().exists():
            raise MindNotFound(f"no mind file {str(name_or_path)!r}")
        return
    if mind_exists(config, name_or_path, backend=backend):
        return
    names = list_minds(config, backend=backend)
    close = close_names(name_or_path, names)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "."
    known = f" Minds: {', '.join(names[:20])}{' …' if len(names) > 20 else ''}." if names else ""
    raise MindNotFound(
        f"no mind named {name_or_path!r}{hint}{known} Reads never create a mind; a write "
        "(e.g. `salience add`) does."
    )


def drop_mind(config: Config, name: str, *, backend: str | None = None) -> None:
    """Delete mind `name` with every record, vector and index. Raises `MindNotFound`.

    SQLite: the database file, its WAL/SHM files and the HNSW and text index directories beside it. Other
    processes that still hold the mind open keep their (unlinked) file until they close it.
    """
    backend = backend or config.backend
    require_mind(config, name, backend=backend)
    if backend == "postgres":
        from . import open_store

        store = open_store(config, name, backend="postgres")
        store.drop_mind()  # type: ignore[attr-defined]  # closes the store
        return
    path = sqlite_path(config, name)
    path.unlink()
    for extra in (Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        extra.unlink(missing_ok=True)
    for index in (Path(f"{path}.hnsw"), Path(f"{path}.fts")):  # HNSW graph, tantivy index
        if index.is_dir():
            shutil.rmtree(index)
