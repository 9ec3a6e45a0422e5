"""Stored claims at search time (issue 21): the claims of the candidates read from the store's
`memory_claims` rows (`store/relational/claims.py`) instead of parsed per search.

`derive` is the deriver a mind hands its store (`Store.derive_claims_with`): every memory's
claims are parsed once, at write time, from its statement (`slots.statement_text`) and kept as
JSON (`claims.claims_to_json`) with the engine's `CLAIMS_VERSION`. `KnownClaims` is the
`claims_fn` of `slots.stale_ids` / `slot_answers`: `prime(memories)` reads the stored rows of
those memories in one statement; a row of another engine version, of another text (its key
differs) or that does not decode is a miss, and a miss is parsed (`claims.claims`) as before —
never written from a search (a search stays a read); maintenance fills misses
(`refresh_claims`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..llm.heuristic import claims as engine
from ..models import Memory
from ..store.relational.claims import text_key
from .slots import statement_text

log = logging.getLogger(__name__)
#: (backend, mind) whose stored claims could not be read, warned once each
_READ_FAILED_WARNED: set[tuple[object, object]] = set()


def derive(memory: Memory) -> tuple[int, str]:
    """(engine version, claims JSON) of `memory`'s statement: what its claims row holds."""
    found = tuple(engine.claims(statement_text(memory)))
    return engine.CLAIMS_VERSION, engine.claims_to_json(found)


def decode(memory: Memory, row: tuple[int, str, str] | None) -> tuple[engine.Claim, ...] | None:
    """The claims of a stored row (version, text key, JSON) if it holds `memory`'s current
    claims, else None (a miss: no row, an old engine version, another text, corrupt JSON)."""
    if row is None:
        return None
    version, key, payload = row
    if version != engine.CLAIMS_VERSION or key != text_key(memory):
        return None
    try:
        return engine.claims_from_json(payload)
    except ValueError as e:
        log.debug("stored claims of %s unreadable (%s): parsed instead", memory.id, e)
        return None


class KnownClaims:
    """A `claims_fn` (text → claims) answering from the stored rows of the memories it was
    primed with, parsing only texts it does not know. One per search."""

    __slots__ = ("_by_text", "_seen", "_store", "misses")

    def __init__(self, store: object) -> None:
        self._store = store
        self._by_text: dict[str, tuple[engine.Claim, ...]] = {}
        self._seen: set[str] = set()
        self.misses = 0  # texts parsed because no stored row held them

    def prime(self, memories: Sequence[Memory]) -> KnownClaims:
        """Read the stored claims of `memories` not read yet (one store call); returns self."""
        want = [m for m in memories if m.id not in self._seen]
        if not want:
            return self
        self._seen.update(m.id for m in want)
        reader = getattr(self._store, "stored_claims", None)
        if reader is None:
            return self
        try:
            rows = reader([m.id for m in want])
        except Exception as e:  # e.g. an immutable file of an older schema: parse instead
            key = (getattr(self._store, "backend", None), getattr(self._store, "mind", None))
            if key not in _READ_FAILED_WARNED:
                _READ_FAILED_WARNED.add(key)
                log.warning("stored claims of mind %r not read (%s): claims parsed per search",
                            key[1], e)
            return self
        for m in want:
            got = decode(m, rows.get(m.id))
            if got is not None:
                self._by_text[statement_text(m)] = got
        return self

    def __call__(self, text: str) -> Sequence[engine.Claim]:
        got = self._by_text.get(text)
        if got is not None:
            return got
        self.misses += 1
        return engine.claims(text)


def refresh_claims(store: object, *, limit: int) -> int:
    """Maintenance: derive and store the claims of up to `limit` memories whose row is missing,
    of an older engine version or of an older text. Returns how many rows were written."""
    missing = store.claims_missing(engine.CLAIMS_VERSION, limit)  # type: ignore[attr-defined]
    rows = [(m, *derive(m)) for m in missing]
    return int(store.write_claims(rows))  # type: ignore[attr-defined]
