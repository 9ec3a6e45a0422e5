"""The storage protocol every backend implements (SQLite, PostgreSQL).

A `Store` is bound to exactly one mind; nothing reachable through it can read or write another
mind. Stores hold records, vectors and indexes and answer candidate queries; they never rank
(ranking is a pure function in `salience.search.rank`) and never call a model.

Conventions shared by every backend (the conformance suite in tests/store/ pins them):
- timestamps are aware UTC datetimes in and out; the caller (the Mind) stamps them;
- vectors are float32, L2-normalised, shape (n, dim) with dim = the pinned `EmbeddingInfo.dim`;
- `search_text` takes plain words and matches them literally, OR-joined; text is never parsed as
  query syntax, so no input can raise a syntax error;
- every candidate list is ordered best first with 1-based `rank`;
- `MemoryFilter` semantics are identical across backends (superseded rows hidden by default).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..models import Candidate, EmbeddingInfo, Memory, MemoryFilter
from .ingest import IngestStore

if TYPE_CHECKING:
    import numpy as np

SCHEMA_VERSION_KEY = "schema_version"
EMBEDDING_MODEL_KEY = "embedding_model"
EMBEDDING_DIM_KEY = "embedding_dim"


@runtime_checkable
class Store(IngestStore, Protocol):
    """One mind's storage."""

    @property
    def mind(self) -> str:
        """The mind this store is bound to."""
        ...

    @property
    def backend(self) -> str:
        """ "sqlite" or "postgres"."""
        ...

    def close(self) -> None: ...

    # -- meta and the pinned embedder ------------------------------------------------------
    def schema_version(self) -> int: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def embedding_info(self) -> EmbeddingInfo | None:
        """The embedding model and dimension this mind was built with, if pinned yet."""
        ...

    def pin_embedding(self, info: EmbeddingInfo) -> None:
        """Pin `info` on first use; raise `EmbedderMismatch` if a different one is pinned."""
        ...

    # -- records -----------------------------------------------------------------------------
    def insert(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> None:
        """Insert memories (and their vectors, row-aligned) in one transaction: all or none.

        Raises `InvalidInput` on a duplicate id, `EmbedderMismatch` on a wrong vector dimension.
        """
        ...

    def update(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> None:
        """Replace stored records by id (and their vectors when given), in one transaction.

        Raises `NotFound` if any id does not exist (nothing is changed then).
        """
        ...

    def delete(self, ids: Sequence[str]) -> int:
        """Delete memories with their vectors and index entries; returns how many existed."""
        ...

    def get(self, id: str) -> Memory | None: ...

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        """Records for `ids` in the given order; unknown ids are skipped."""
        ...

    def find_by_hash(self, content_hash: str) -> str | None:
        """Id of a memory whose content hash equals `content_hash` (exact-duplicate guard)."""
        ...

    def list(
        self,
        flt: MemoryFilter | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        order: str = "created_desc",
    ) -> list[Memory]:
        """Records matching `flt`. `order`: created_desc, created_asc, salience_desc,
        occurred_desc, occurred_asc; ties broken by id."""
        ...

    def count(self, flt: MemoryFilter | None = None) -> int: ...

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id (ids without a vector are absent)."""
        ...

    def iter_memories(self, batch_size: int = 1000) -> Iterator[tuple[Memory, np.ndarray | None]]:
        """Every memory with its vector, in insertion order (export, re-embed, maintenance)."""
        ...

    # -- candidates (never ranked beyond their own source) ---------------------------------------
    def search_text(
        self, terms: Sequence[str], *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        """Full-text candidates for literal `terms`, OR-joined. `score` is relevance normalised
        to [0, 1) as x / (1 + x) of the backend's raw relevance (higher is better)."""
        ...

    def search_vector(
        self, vector: np.ndarray, *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        """Nearest neighbours by cosine similarity (`score` = cosine similarity)."""
        ...

    def search_entities(
        self, entities: Sequence[str], *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        """Memories whose entities exactly match any of `entities` (normalised);
        `score` = number of distinct matching entities."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counts and sizes for `salience stats`."""
        ...
