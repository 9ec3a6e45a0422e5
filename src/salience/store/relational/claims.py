"""Stored claims (issue 21): one derived row per memory, `memory_claims(pk, version, text_key,
claims)`, written once for SQLite and both PostgreSQL layouts.

The store does not parse: what a memory claims is the claims engine's
(`salience.llm.heuristic.claims`), which the store may not import. A facade hands the store a
*deriver* (`derive_claims_with`: memory → (engine version, claims JSON) or None; the mind's is
`search.stored_claims.derive`), and every insert writes the derived row in the memory's own
transaction. The row is keyed by what it was derived from, `text_key(memory)` ("type:content
hash"): an update that changes a memory's text or type deletes its row in the update's
transaction (and writes it again when a deriver is set); a delete deletes it. The payload is
opaque here: the reader (`search.stored_claims`) checks the version and decodes it, treating
an old version or a corrupt row as a miss. Maintenance fills misses (`claims_missing`,
`write_claims`), checking the text key again so a row derived from an older text never lands.
Export leaves the rows out: they are derived, and a restore's inserts write them anew.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from ...models import Memory, content_hash
from .core import RelationalCore, Run

log = logging.getLogger(__name__)

#: memory → (claims engine version, claims JSON), or None to store nothing for it
ClaimsDeriver = Callable[[Memory], "tuple[int, str] | None"]


def text_key(memory: Memory) -> str:
    """What a memory's claims are derived from: its type and the hash of its content as it is
    now (the statements' `m.memory_type || ':' || m.content_hash` of a row written with a
    current hash; a record edited without re-hashing gets a key no row matches: a miss)."""
    return f"{memory.memory_type.value}:{content_hash(memory.content)}"


class ClaimsCore(RelationalCore):
    """The stored-claims rows of the SQL backends (see the module docstring)."""

    _claims_deriver: ClaimsDeriver | None = None

    def derive_claims_with(self, deriver: ClaimsDeriver | None) -> None:
        """Derive and store each inserted (or re-texted) memory's claims with `deriver`."""
        self._claims_deriver = deriver

    def _derived(self, memories: Sequence[Memory]) -> list[tuple[int, str, str, str, str]]:
        """UPSERT_CLAIMS rows of `memories` by the deriver (a deriver error stores nothing for
        that memory: the row is a miss, maintenance derives it again)."""
        fn = self._claims_deriver
        if fn is None:
            return []
        rows = []
        for m in memories:
            try:
                got = fn(m)
            except Exception as e:  # derived data never fails a write
                log.warning("claims of memory %s not stored (%s)", m.id, e)
                continue
            if got is not None:
                key = text_key(m)
                rows.append((got[0], key, got[1], m.id, key))
        return rows

    def _write_claims(self, run: Run, memories: Sequence[Memory], *, updating: bool = False
                      ) -> None:
        """Inside a memory write: the claims rows of `memories`. An update first deletes the
        rows derived from another text than the memory's new one, and derives those again."""
        if updating:
            stored = {r[0]: r[2] for r in self._all_in("CLAIMS_OF", [m.id for m in memories],
                                                        run=run)}
            memories = [m for m in memories if m.id in stored and stored[m.id] != text_key(m)]
            if memories:
                run.many("DELETE_CLAIMS_CHANGED", [(m.id, text_key(m)) for m in memories])
        rows = self._derived(memories)
        if rows:
            run.many("UPSERT_CLAIMS", rows)

    def stored_claims(self, ids: Sequence[str]) -> dict[str, tuple[int, str, str]]:
        """{memory id: (engine version, text key, claims JSON)} of the memories of `ids` that
        have a stored row (any version; unknown ids are left out)."""
        return {r[0]: (int(r[1]), r[2], r[3]) for r in self._all_in("CLAIMS_OF", ids)}

    def claims_missing(self, version: int, limit: int = 500) -> list[Memory]:
        """Up to `limit` memories (oldest row first) with no claims row of `version` for their
        current text."""
        return [self._memory(r) for r in self._all("CLAIMS_MISSING", (version, limit))]

    def write_claims(self, rows: Sequence[tuple[Memory, int, str]]) -> int:
        """Store (memory, engine version, claims JSON) rows in one transaction; a memory deleted
        or re-texted since it was read is skipped. Returns how many rows were written."""
        if not rows:
            return 0
        with self._write() as run:
            n = 0
            for m, version, payload in rows:
                key = text_key(m)
                n += run("UPSERT_CLAIMS", (version, key, payload, m.id, key)).rowcount
        return n

    def claims_counts(self, version: int) -> tuple[int, int]:
        """(claims rows of live memories, rows of `version`)."""
        total, current = self._first("CLAIMS_COUNTS", (version,))
        return int(total), int(current)
