"""Named, transactional schema migrations — one mechanism for every backend.

Each backend lists its `Migration`s in order. A migration runs inside one transaction together
with the row that records it in the `_migrations` table, and the schema version (the number of
applied migrations) is written to the `meta` table in that same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import SchemaVersionError


@dataclass(frozen=True, slots=True)
class Migration:
    name: str  # "0001_core": never renamed once released
    statements: tuple[str, ...]


def pending(applied: Sequence[str], known: Sequence[Migration], *, where: str) -> list[Migration]:
    """The migrations still to run, given the names already applied (in order).

    Raises `SchemaVersionError` if the database has migrations this version does not know
    (it was written by a newer Salience) or if history diverged.
    """
    names = [m.name for m in known]
    unknown = [a for a in applied if a not in names]
    if unknown:
        raise SchemaVersionError(
            f"{where} was migrated by a newer Salience (unknown migrations: {', '.join(unknown)});"
            " upgrade salience to open it"
        )
    if list(applied) != names[: len(applied)]:
        raise SchemaVersionError(
            f"{where} has migrations applied out of order: {', '.join(applied)}"
        )
    return list(known[len(applied) :])
