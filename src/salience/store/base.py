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

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..models import Candidate, EmbeddingInfo, FrameType, Memory, MemoryFilter
from .agent import AgentStore
from .ingest import IngestStore
from .maintenance import MaintenanceStore

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

    from ..models.graph import Entity, MemoryGraph, Relation
    from ..models.layers import (
        AwarenessCategory,
        AwarenessItem,
        Identity,
        Session,
        SessionStatus,
    )
    from .graph_writer import GraphWrite

SCHEMA_VERSION_KEY = "schema_version"
EMBEDDING_MODEL_KEY = "embedding_model"
EMBEDDING_DIM_KEY = "embedding_dim"


class LayerStore(Protocol):
    """Storage of the mind's layers (identity, awareness, sessions, knowledge graph).

    Write-path rules every backend applies inside `insert`/`update` (the conformance suite in
    tests/store/test_contract_layers.py pins them):
    - a memory with a `session_id` registers that session (open) if it is new, and gets
      `t = max(t in session) + 1` when its `t` is None — assigned in the write transaction, so
      concurrent writers never share a `t` ((session_id, t) is unique);
    - frame rules (`salience.models.frames.check_frame`) are checked against the stored base;
    - `superseded_at` is set to the record's `updated_at` when `superseded_by` is first set
      (cleared when it is cleared), for time travel (`visible_as_of`);
    - every name in `Memory.entities` is resolved to a knowledge-graph entity (created with type
      `entity` when unknown; see `salience.models.names`) and linked to the memory; links
      are replaced on update and removed on delete — except the links the graph write adds for
      the names a memory mentions (kind `mention`), which its updates keep;
    - `commit_ingest` writes `IngestBatch.graph` (the facts the new memories state) and ends
      the relations its supersessions retire in the same transaction (`write_graph`).
    Times are passed in by the caller (the injected clock); stores never read the wall clock.
    """

    # -- identity (one row; CHECK id = 1) ---------------------------------------------------
    def get_identity(self) -> Identity | None: ...

    def create_identity(self, identity: Identity) -> None:
        """Raise `ConflictError` if the mind already has an identity."""
        ...

    def update_identity(self, identity: Identity) -> None:
        """Replace the identity row. Raise `NotFound` if there is none."""
        ...

    # -- awareness ----------------------------------------------------------------------------
    def add_awareness(self, item: AwarenessItem, *, now: datetime, cap: int) -> None:
        """Insert an item; raise `AwarenessFull` if `cap` items are already active at `now`
        (checked and written in one serialised transaction)."""
        ...

    def get_awareness(self, item_id: str) -> AwarenessItem | None: ...

    def list_awareness(
        self, *, now: datetime, category: AwarenessCategory | None = None, limit: int = 10
    ) -> list[AwarenessItem]:
        """Items active at `now` (not expired), by priority desc, then created_at, then id."""
        ...

    def update_awareness(self, item: AwarenessItem) -> None:
        """Replace an item by id. Raise `NotFound` if it does not exist."""
        ...

    def delete_awareness(self, item_id: str) -> bool: ...

    def purge_awareness(self, now: datetime) -> int:
        """Delete items expired at `now`; returns how many."""
        ...

    # -- sessions and frames --------------------------------------------------------------------
    def create_session(self, session: Session) -> None:
        """Raise `ConflictError` if a session with this id exists."""
        ...

    def get_session(self, session_id: str) -> Session | None: ...

    def update_session(self, session: Session) -> None:
        """Replace a session by id. Raise `NotFound` if it does not exist."""
        ...

    def list_sessions(
        self,
        *,
        project_id: str | None = None,
        status: SessionStatus | None = None,
        limit: int = 100,
    ) -> list[Session]:
        """Sessions, most recently opened first."""
        ...

    def session_frames(
        self,
        session_id: str,
        *,
        frame_type: FrameType | None = None,
        base_frame_id: str | None = None,
    ) -> list[Memory]:
        """Memories of a session (superseded ones included) ordered by `t`."""
        ...

    def session_turns(self, session_id: str, t_from: int, t_to: int) -> list[Memory]:
        """Memories of a session with `t_from` ≤ t ≤ `t_to` (superseded ones included),
        ordered by `t`: one window of turns (the search's neighbouring-turn context)."""
        ...

    def visible_as_of(self, ids: Sequence[str], as_of: datetime) -> set[str]:
        """The ids among `ids` created at or before `as_of` and not yet superseded then."""
        ...

    # -- knowledge graph ----------------------------------------------------------------------
    def insert_entity(self, entity: Entity) -> None:
        """Insert an entity with its aliases. Raise `ConflictError` on a duplicate id."""
        ...

    def get_entity(self, entity_id: str) -> Entity | None: ...

    def get_entities(self, entity_ids: Sequence[str]) -> dict[str, Entity]: ...

    def update_entity(self, entity: Entity) -> None:
        """Replace an entity's fields and alias set. Raise `NotFound`."""
        ...

    def find_entities(self, keys: Sequence[str]) -> list[Entity]:
        """Entities whose name key or an alias key is in `keys` (any validity): name matches
        first, then currently-open (valid_to NULL) ones, then oldest recorded."""
        ...

    def list_entities(
        self,
        *,
        as_of: datetime | None = None,
        entity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        """Entities (visible at `as_of` when given), ordered by name key then id."""
        ...

    def insert_relation(self, relation: Relation) -> None:
        """Raise `NotFound` if an endpoint entity does not exist."""
        ...

    def write_graph(
        self,
        graphs: Sequence[MemoryGraph],
        *,
        supersede: Sequence[tuple[str, str]] = (),
        now: datetime,
    ) -> GraphWrite:
        """Write what memories state (typed mentions, facts as bitemporal relations) and end
        the relations the (old, new) memory `supersede` pairs retire, in one transaction, by
        the rules of `salience.store.graph_writer`."""
        ...

    def get_relation(self, relation_id: str) -> Relation | None: ...

    def update_relation(self, relation: Relation) -> None:
        """Replace a relation by id. Raise `NotFound`."""
        ...

    def relations_of(
        self,
        entity_ids: Sequence[str],
        *,
        as_of: datetime | None = None,
        relation_type: str | None = None,
    ) -> list[Relation]:
        """Relations with either endpoint in `entity_ids` (visible at `as_of` when given),
        ordered by recorded_at then id."""
        ...

    def entity_memory_links(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(memory_id, entity_id) pairs for memories linked to any of `entity_ids`."""
        ...

    def memory_entity_ids(self, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Entity ids linked to each memory (memories without links are absent)."""
        ...

    def graph_counts(self) -> dict[str, int]:
        """Counts for self-awareness and stats: entities, relations, links, sessions."""
        ...


@runtime_checkable
class Store(LayerStore, IngestStore, MaintenanceStore, AgentStore, Protocol):
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

    def record_retrievals(self, ids: Sequence[str], now: datetime, *, boost: float) -> int:
        """Record one retrieval of each memory of `ids` at `now`, in one atomic statement per
        batch: `retrieval_count + 1`, `last_retrieved_at = now`, and design A's dampened boost
        `salience = min(salience + boost * (1 - salience / 10), 10)` computed by the database
        from the stored value (`salience.search.feedback.boosted_salience` is the same
        arithmetic), so concurrent retrievals never lose a bump. Duplicate ids count once,
        unknown ids are skipped; returns how many memories were bumped.

        Touches no text, tag, entity or vector (no full-text or postings re-index, no side
        table, no graph link) and leaves `updated_at` alone. Raises `ReadOnlyMind` when the
        mind's storage refuses writes.
        """
        ...

    # -- stored claims (issue 21; store/relational/claims.py) ---------------------------------
    def derive_claims_with(self, deriver: Callable[[Memory], tuple[int, str] | None] | None
                           ) -> None:
        """Derive each inserted memory's claims row with `deriver` (memory → (claims engine
        version, claims JSON) or None), in the insert's transaction; an update that changes a
        memory's text or type deletes its row in the update's transaction and derives it again.
        None: write no rows (updates still delete stale ones)."""
        ...

    def stored_claims(self, ids: Sequence[str]) -> dict[str, tuple[int, str, str]]:
        """{id: (engine version, text key, claims JSON)} of the memories of `ids` with a row.
        The text key is `store.relational.claims.text_key` of the memory it was derived from;
        the JSON is opaque to the store."""
        ...

    def claims_missing(self, version: int, limit: int = 500) -> list[Memory]:
        """Up to `limit` memories with no claims row of `version` for their current text."""
        ...

    def write_claims(self, rows: Sequence[tuple[Memory, int, str]]) -> int:
        """Store (memory, version, claims JSON) rows in one transaction, skipping a memory
        deleted or whose text changed since it was read; returns how many were written."""
        ...

    def claims_counts(self, version: int) -> tuple[int, int]:
        """(claims rows of live memories, rows of `version` among them)."""
        ...

    def get(self, id: str) -> Memory | None: ...

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        """Records for `ids` in the given order; unknown ids are skipped."""
        ...

    def find_by_hash(self, content_hash: str) -> str | None:
        """Id of a memory whose content hash equals `content_hash` (exact-duplicate guard)."""
        ...

    def find_by_hashes(self, content_hashes: Sequence[str]) -> dict[str, str]:
        """{content hash: id of the oldest memory with it} for the hashes that are stored."""
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
        self,
        terms: Sequence[str],
        *,
        limit: int,
        flt: MemoryFilter | None = None,
        k1: float | None = None,
        b: float | None = None,
    ) -> list[Candidate]:
        """Full-text candidates for literal `terms`, OR-joined, ranked by Salience's BM25
        (`store/bm25.py`, the same scores on every backend; `k1`/`b` default to 0.9/0.4).
        `score` is x / (1 + x) of the raw BM25 (0 for a row matching only terms found in more
        than half of the rows), higher is better."""
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

    def entity_frequencies(self, entities: Sequence[str]) -> dict[str, int]:
        """How many memories (superseded ones included) name each of `entities`, by normalised
        key; keys no memory names are absent. Recall uses it to leave out entities too common
        to tell memories apart (a speaker named in every turn)."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counts and sizes for `salience stats`."""
        ...
