"""`Mind`: the facade users hold. It wires a store, an embedder and a clock together and is the
one place every interface (SDK, CLI, HTTP, MCP) calls into."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, get_args

from .clock import Clock, SystemClock
from .config import Config, EmbedderName
from .errors import EmbedderMismatch, InvalidInput, NotFound
from .models import (
    UPDATABLE_FIELDS,
    EmbeddingInfo,
    FrameType,
    Importance,
    Memory,
    MemoryFilter,
    MemoryType,
    SearchHit,
    Source,
    check_id,
    check_text,
    content_hash,
    validate_memory,
)

if TYPE_CHECKING:
    import numpy as np

    from .agent.procedures import Evolution, Procedures
    from .agent.signals import Signals
    from .agent.traces import Installs, Traces
    from .embed.base import Embedder
    from .graph.kg import KnowledgeGraph
    from .ingest.items import DrainReport, ImportReport, IngestResult
    from .ingest.service import IngestService
    from .layers.awareness import AwarenessLayer
    from .layers.context import PromptContext
    from .layers.identity import IdentityLayer
    from .layers.profile import ProfileLayer
    from .layers.sessions import SessionLayer
    from .llm.brain import Brain
    from .maintenance import CognitiveReport, MaintenanceReport, TickReport
    from .maintenance.cognitive import CognitiveEngine
    from .search.config import SearchConfig
    from .search.pipeline import Recall
    from .store.base import Store
    from .transfer import TransferSummary
    from .wiring import BrainFactory



_HEX = re.compile(r"[0-9a-f]{1,32}")


class Mind:
    """One mind: a unit of memory isolation (design B), e.g. a person's or a workspace's.

    Build it with `Mind.open(...)`; use it as a context manager or call `close()`.
    """

    def __init__(
        self,
        store: Store,
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        clock: Clock | None = None,
        brain: Brain | BrainFactory | None = None,
    ) -> None:
        from .wiring import MindServices

        self.config = config or Config()
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self._embedder = embedder
        self._owns_embedder = False  # True once the mind built it (then close() closes it)
        self._embedder_lock = threading.Lock()
        self._layers: dict[str, Any] = {}
        self._layers_lock = threading.Lock()
        # the one place the brain (with its ai_interactions recorder), ingest, recall and the
        # cognitive engine are built, each from narrow dependencies (salience.wiring)
        self._services = MindServices(
            store, config=self.config, clock=self.clock, embed_passages=self._embed_passages,
            embed_queries=lambda texts: self.embedder.embed_queries(list(texts)), brain=brain,
        )

    @classmethod
    def open(
        cls,
        name_or_path: str | Path = "default",
        *,
        config: Config | None = None,
        backend: str | None = None,
        dsn: str | None = None,
        embedder: Embedder | str | None = None,
        clock: Clock | None = None,
        create: bool = True,
        brain: Brain | BrainFactory | None = None,
    ) -> Mind:
        """Open (creating if needed) a mind.

        Args:
            name_or_path: a mind name (letters, digits, `_-.`), stored under the data
                directory, or a `pathlib.Path` to an SQLite file.
            config: settings; defaults to `Config()` (env vars `SALIENCE_*`).
            backend: "sqlite" (default) or "postgres"; overrides `config.backend`.
            dsn: PostgreSQL DSN; overrides `config.dsn`.
            embedder: an `Embedder`, or the name of a packaged one ("e5", "minilm", "hash",
                ... as `config.embedder` takes); defaults to the one `config.embedder` names.
                Built lazily.
            clock: time source; defaults to the system clock.
            create: False opens only a mind that exists (readers: a typo must not create one).
            brain: the `Brain` every model call of this mind goes to (the caller closes it),
                or a factory `on_call -> Brain` given the mind's `ai_interactions` recorder
                (`lambda on_call: make_brain(config, on_call=on_call)`); defaults to
                `make_brain(config)` recording every call. Built on first use.

        Raises:
            InvalidMindName: the name contains separators, `..` or other disallowed characters.
            NotFound: `create=False` and the mind does not exist (`MindNotFound`, naming close
                names).
            ValueError: `embedder` is a string that names no embedder.
            StoreError: the database cannot be opened or is not a Salience mind.
            EmbedderMismatch: `embedder` differs from the one the mind was built with.
        """
        from .store import open_store

        config = config or Config()
        if isinstance(embedder, str):
            names = get_args(EmbedderName)
            if embedder not in names:
                raise ValueError(
                    f"unknown embedder {embedder!r}: pass an Embedder or one of {', '.join(names)}"
                )
            config = config.model_copy(update={"embedder": embedder})
            embedder = None
        if dsn is not None:
            from pydantic import SecretStr

            config = config.model_copy(
                update={"dsn": SecretStr(dsn), "backend": backend or "postgres"}
            )
        if not create:
            from .store.catalog import require_mind

            require_mind(config, name_or_path, backend=backend)
        store = open_store(config, name_or_path, backend=backend)
        mind = cls(store, config=config, embedder=embedder, clock=clock, brain=brain)
        if embedder is not None:
            try:
                mind._check_pin(embedder)
            except Exception:
                store.close()
                raise
        return mind

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.store.mind

    def close(self) -> None:
        """Release everything the mind built — the brain's LLM client, the recall thread
        pool, the embedder it loaded — then the store. Idempotent."""
        try:
            self._services.close()
            with self._embedder_lock:
                emb, owned = self._embedder, self._owns_embedder
                if owned:
                    self._embedder, self._owns_embedder = None, False
            close = getattr(emb, "close", None) if owned else None
            if callable(close):
                close()
        finally:
            self.store.close()

    def __enter__(self) -> Mind:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Mind({self.name!r}, backend={self.store.backend!r})"

    # -- embedding ------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The embedder, built on first use and checked against the mind's pinned model."""
        if self._embedder is None:
            with self._embedder_lock:
                if self._embedder is None:
                    from .embed import make_embedder

                    emb = make_embedder(self.config, pinned=self.store.embedding_info())
                    self._check_pin(emb)
                    self._embedder, self._owns_embedder = emb, True
        return self._embedder

    def _check_pin(self, embedder: Embedder) -> None:
        pinned = self.store.embedding_info()
        if pinned is not None and pinned != EmbeddingInfo(embedder.model, embedder.dim):
            raise EmbedderMismatch(
                f"mind {self.name!r} was built with embedder {pinned.model} ({pinned.dim} dims); "
                f"refusing {embedder.model} ({embedder.dim} dims). Open it with the same "
                "embedder (SALIENCE_EMBEDDER), or migrate it with `salience reembed`."
            )

    def _embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        emb = self.embedder
        self.store.pin_embedding(EmbeddingInfo(emb.model, emb.dim))
        return emb.embed_passages(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        """The query embedding of `text` (shape (dim,))."""
        return self.embedder.embed_queries([text])[0]

    # -- writing --------------------------------------------------------------------------
    def add(
        self,
        content: str | bytes,
        *,
        memory_type: MemoryType | str = MemoryType.GENERAL,
        salience: float = 5.0,
        tags: Sequence[str] | None = None,
        entities: Sequence[str] | None = None,
        source: Source | str = Source.USER_STATED,
        importance: Importance | str = Importance.NORMAL,
        summary: str = "",
        confidence: float = 0.5,
        metadata: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        occurred_at: datetime | None = None,
        pinned: bool = False,
        related_ids: Sequence[str] | None = None,
        check_contradictions: bool = True,
    ) -> str:
        """Store `content` and return its id (the first chunk's id when it was chunked).

        Content over `config.chunk_bytes` is split into linked chunks (same fields; later chunks
        carry `parent_id` = the first chunk's id). Content already stored verbatim (SHA-256 of
        the trimmed text) is not stored again: the existing id is returned. With
        `check_contradictions` (default), the memories it contradicts are superseded by it, as
        on the triaged paths (see `add_many`).

        Raises:
            InvalidInput: empty content, NUL characters, invalid UTF-8, bad enum values, ...
            ContentTooLarge: content over `config.max_content_bytes`.
            EmbeddingError / EmbedderMismatch: the embedder failed or differs from the mind's.
        """
        return self.add_many(
            [
                dict(
                    content=content,
                    memory_type=memory_type,
                    salience=salience,
                    tags=tags,
                    entities=entities,
                    source=source,
                    importance=importance,
                    summary=summary,
                    confidence=confidence,
                    metadata=metadata,
                    session_id=session_id,
                    occurred_at=occurred_at,
                    pinned=pinned,
                    related_ids=related_ids,
                )
            ],
            check_contradictions=check_contradictions,
        )[0]

    def add_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        vectors: np.ndarray | None = None,
        graph: bool = True,
        check_contradictions: bool = False,
    ) -> list[str]:
        """Store many memories with batched embedding; returns one id per item, in order.

        Each item is a string or a mapping of `add()`'s keyword arguments. `vectors` (optional,
        one row per item, only for items that fit in one chunk) skips embedding — for imports
        and benchmarks with precomputed embeddings. All new rows are written in one transaction.
        With `graph` (default), the names each item mentions and the facts it states go into
        the knowledge graph right after (`salience.graph.extract`; a few ms per memory — pass
        `graph=False` for bulk loads that do not need it).
        With `check_contradictions` (off for bulk loads; `add` turns it on), each item is
        checked against its nearest memories like a triaged one (`Ingestor.commit_checked`):
        what it contradicts is superseded, never deleted.
        """
        from .graph.extract import prepare as graph_records
        from .ingest.direct import new_records, prepare

        now = self.clock.now()
        prepared: list[list[Memory]] = []
        for idx, item in enumerate(items):
            fields = {"content": item} if isinstance(item, str | bytes) else dict(item)
            chunks = prepare(fields, now, max_bytes=self.config.max_content_bytes,
                             chunk_bytes=self.config.chunk_bytes)
            if vectors is not None and len(chunks) > 1:
                raise InvalidInput(
                    f"item {idx} needs {len(chunks)} chunks; precomputed vectors need one-chunk items"
                )
            prepared.append(chunks)
        # one lookup for every exact duplicate already stored (a round trip per item is what
        # made bulk loads into PostgreSQL slow)
        stored = self.store.find_by_hashes([m.content_hash for ch in prepared for m in ch])
        records, item_ids, given = new_records(prepared, stored)
        if vectors is not None and len(item_ids) != len(vectors):
            raise InvalidInput(f"got {len(vectors)} vectors for {len(item_ids)} items")
        if not records:
            return item_ids
        if vectors is not None:
            emb = self.embedder
            self.store.pin_embedding(EmbeddingInfo(emb.model, emb.dim))
            vecs = vectors[given]
        else:
            vecs = self._embed_passages([m.content for m in records])
        if check_contradictions:
            self._ingest().ingestor.commit_checked(records, vecs)
            return item_ids
        graphs = graph_records(records) if graph else []
        self.store.insert(records, vecs)
        if graphs:  # derived data, rebuilt from the memories if this write is lost
            self.store.write_graph(graphs, now=now)
        return item_ids

    def get(self, memory_id: str) -> Memory:
        """The memory with this id. Raises `NotFound`."""
        m = self.store.get(memory_id)
        if m is None:
            raise NotFound(f"memory {memory_id} not found in mind {self.name!r}")
        return m

    def update(self, memory_id: str, **changes: Any) -> Memory:
        """Change fields of a memory; re-embeds when `content` changes. Returns the new record.

        Raises `NotFound`, `InvalidInput` (unknown field or bad value).
        """
        unknown = set(changes) - UPDATABLE_FIELDS
        if unknown:
            raise InvalidInput(f"cannot update fields: {', '.join(sorted(unknown))}")
        old = self.get(memory_id)
        target = changes.get("superseded_by")
        if (
            isinstance(target, str)
            and target != memory_id
            and self.store.get(check_id(target)) is None
        ):
            raise InvalidInput(f"superseded_by: no memory {target} in mind {self.name!r}")
        new = old.copy(**changes, updated_at=self.clock.now())
        if "content" in changes:
            new.content = check_text(changes["content"], max_bytes=self.config.max_content_bytes)
        validate_memory(new, max_bytes=self.config.max_content_bytes)
        vecs = None
        if new.content != old.content:
            vecs = self._embed_passages([new.content])
        self.store.update([new], vecs)
        return new

    def delete(self, memory_id: str) -> None:
        """Delete a memory (and its vector and index entries). Raises `NotFound`."""
        if self.store.delete([memory_id]) == 0:
            raise NotFound(f"memory {memory_id} not found in mind {self.name!r}")

    def list(
        self,
        flt: MemoryFilter | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        order: str = "created_desc",
    ) -> list[Memory]:
        """Memories matching `flt` (superseded ones hidden unless `include_superseded`)."""
        return self.store.list(flt, limit=limit, offset=offset, order=order)

    def resolve_id(self, id_or_prefix: str) -> str:
        """The id of the one memory whose id starts with `id_or_prefix` (case-insensitive; a
        whole id is returned unchanged), superseded memories included — what the CLI accepts
        wherever it takes an id. Raises `NotFound`, `AmbiguousId` (listing the matches)."""
        from .models import pick_id

        text = id_or_prefix.strip().lower()
        if len(text) == 32:
            return text
        flt = MemoryFilter(id_prefix=text, include_superseded=True)
        found = [m.id for m in self.store.list(flt, limit=11)] if _HEX.fullmatch(text) else []
        return pick_id(id_or_prefix, found, what=f"memory in mind {self.name!r}")

    def count(self, flt: MemoryFilter | None = None) -> int:
        """How many memories match `flt`; without a filter, every memory the mind holds,
        superseded history included (`count(MemoryFilter())` counts the live ones)."""
        return self.store.count(flt)

    def find_duplicate(self, content: str) -> str | None:
        """Id of a memory with exactly this (trimmed) content, if any."""
        return self.store.find_by_hash(content_hash(content))

    # -- recall ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        flt: MemoryFilter | None = None,
        preset: str | SearchConfig | None = None,
        distances: Mapping[str, int] | None = None,
        feedback: bool = True,
    ) -> list[SearchHit]:
        """Deep search (see `salience.search.pipeline`): `limit` hits, best first, each with the
        explanation of its score. `preset` defaults to `config.search_preset`; `distances` are
        knowledge-graph BFS distances per memory id; `feedback` records the hits as retrieved.

        Query text is always matched literally. Raises `InvalidInput` for an empty query, a
        non-positive limit or an unknown preset.
        """
        query = check_text(query, max_bytes=self.config.max_query_bytes, what="query")
        if limit <= 0:
            raise InvalidInput("limit must be positive")
        preset = preset or self.config.search_preset
        if distances is None:  # design B's contextual signal: BFS from the query's entities
            distances = self._graph_distances(query, preset)
        return self._recall().search(
            query,
            preset=preset,
            limit=limit,
            flt=flt,
            distances=distances,
            feedback=feedback,
        )

    def _graph_distances(
        self, query: str, preset: str | SearchConfig
    ) -> dict[str, int] | None:
        """The `distances` a search with `preset` needs: the knowledge graph's
        `distances_for_query(query)` when the preset ranks by design B's profile with a
        contextual weight, else None (the formula and weight-0 profiles never read them, so
        the graph is not walked)."""
        from .search.config import get_preset

        cfg = get_preset(preset)
        if cfg.ranking != "rrf" or cfg.profile.contextual <= 0:
            return None
        return self.graph.distances_for_query(query)

    def prefetch(
        self, messages: Sequence[str], current: str, *, limit: int = 3, budget_s: float = 2.0
    ) -> list[SearchHit]:
        """Background recall for an incoming message within `budget_s` (design A, path 1)."""
        current = check_text(current, max_bytes=self.config.max_content_bytes, what="message")
        current = _cut(current, self.config.max_query_bytes)  # only its start is searched
        return self._recall().prefetch(
            messages, current, preset=self.config.search_preset, limit=limit, budget_s=budget_s
        )

    def heartbeat_prefetch(self, task: str, *, limit: int = 3) -> list[SearchHit]:
        """The top memories for the agent's current task (design A, path 2)."""
        task = check_text(task, max_bytes=self.config.max_content_bytes, what="task")
        task = _cut(task, self.config.max_query_bytes)
        return self._recall().heartbeat_prefetch(
            task, preset=self.config.search_preset, limit=limit
        )

    def recall(
        self, query: str, *, others: Sequence[Mind] = (), limit: int = 10
    ) -> list[SearchHit]:
        """Search this mind and `others` (e.g. workspace minds) as one list; `hit.mind` says
        where each hit came from. Catch-up queries get each mind's catch-up selection."""
        return self.fuse([m.search(query, limit=limit) for m in (self, *others)], limit)

    @staticmethod
    def fuse(results: Sequence[Sequence[SearchHit]], limit: int) -> list[SearchHit]:
        """Several minds' hits as one list, as `recall` ranks them (fused by rank, RRF: no
        mind's raw scores crowd out another's; `hit.mind` says where each came from)."""
        from .search.multi import fuse_minds

        return fuse_minds(results, limit)

    def catch_up(self, topic: str | None = None, *, limit: int = 10) -> list[SearchHit]:
        """Important memories and decisions, then the 3 most recent (design B's catch-up).
        With `topic` ("payments", or a phrase such as "what did we decide about payments?"),
        the topic is searched and its decisions and important memories come first."""
        if topic is not None:
            topic = check_text(topic, max_bytes=self.config.max_query_bytes, what="topic")
            if not any(ch.isalnum() for ch in topic):
                raise InvalidInput("topic must contain a word")
            from .search.catchup import catch_up_topic

            topic = catch_up_topic(topic) or topic  # a phrase ("what did we decide about …?")
        return self._recall().catch_up(limit=limit, topic=topic)

    def mark_useful(self, memory_ids: Sequence[str], useful: bool) -> list[Memory]:
        """Move usefulness one dampened step toward 1.0 (useful) or 0.0; returns new records."""
        return self._recall().mark_useful(memory_ids, useful)

    def evaluate_usefulness(
        self, response: str, prefetched: Sequence[SearchHit | Memory]
    ) -> dict[str, bool]:
        """Judge which prefetched memories the response used and update their usefulness."""
        return self._recall().evaluate_usefulness(response, prefetched)

    def _recall(self) -> Recall:
        return self._services.recall

    # -- layers: identity, awareness, sessions, knowledge graph, prompt context ----------------
    def _layer(self, key: str, build: Callable[[], Any]) -> Any:
        with self._layers_lock:
            obj = self._layers.get(key)
            if obj is None:
                obj = self._layers[key] = build()
            return obj

    @property
    def identity(self) -> IdentityLayer:
        """Who this mind is (`salience.layers.identity`); the row is mirrored into one
        identity-typed memory for recall."""
        from .layers.identity import IdentityLayer, mirror_identity

        return self._layer(
            "_identity_layer",
            lambda: IdentityLayer(self.store, self.clock, on_change=mirror_identity(self)),
        )

    @property
    def profile(self) -> ProfileLayer:
        """What consolidation learned about the user (`salience.layers.profile`): one memory,
        revised by supersession; the persona (`identity`) is never written by consolidation."""
        return self._services.profile

    @property
    def cognitive(self) -> CognitiveEngine:
        """The cognitive engine (`salience.maintenance.cognitive`): consolidation, episodes,
        reflection, and the trigger the heartbeat checks."""
        return self._services.cognitive

    @property
    def brain(self) -> Brain:
        """The mind's one brain (given to `Mind.open`, else built from the config); every
        call of the brain the mind built is logged in `ai_interactions`."""
        return self._services.brain

    @property
    def awareness(self) -> AwarenessLayer:
        """Working memory: at most 10 active items (`salience.layers.awareness`)."""
        from .layers.awareness import AwarenessLayer

        return self._layer("_awareness_layer", lambda: AwarenessLayer(self.store, self.clock))

    @property
    def sessions(self) -> SessionLayer:
        """Sessions (GOPs) and I/P/B frames (`salience.layers.sessions`)."""
        from .layers.sessions import SessionLayer

        return self._layer(
            "_session_layer",
            lambda: SessionLayer(self.store, self.clock, add=lambda i: self.add_many([i])[0]),
        )

    @property
    def graph(self) -> KnowledgeGraph:
        """The knowledge graph (`salience.graph.kg`)."""
        from .graph.kg import KnowledgeGraph

        return self._layer("_graph_layer", lambda: KnowledgeGraph(self.store, self.clock))

    # -- agent records (design B §11; salience.agent) ------------------------------------------
    @property
    def procedures(self) -> Procedures:
        """Versioned prompt templates with running success rate and average cost."""
        from .agent.procedures import Procedures

        return self._layer("_procedures", lambda: Procedures(self.store, self.clock))

    @property
    def signals(self) -> Signals:
        """Improvement signals: recurring corrections, capability gaps, workflow patterns."""
        from .agent.signals import Signals

        return self._layer(
            "_signals",
            lambda: Signals(self.store, self.clock, threshold=self.config.signal_threshold),
        )

    @property
    def traces(self) -> Traces:
        """Execution traces: one per agent run, with its outcome."""
        from .agent.traces import Traces

        return self._layer("_traces", lambda: Traces(self.store, self.clock))

    @property
    def evolution(self) -> Evolution:
        """Evolution runs: proposed prompt/schema changes decided by a gate."""
        from .agent.procedures import Evolution

        return self._layer("_evolution", lambda: Evolution(self.store, self.clock))

    @property
    def installs(self) -> Installs:
        """The capability install audit (append-only)."""
        from .agent.traces import Installs

        return self._layer("_installs", lambda: Installs(self.store, self.clock))

    def context(
        self,
        query: str | None = None,
        *,
        budget_tokens: int = 2000,
        limit: int = 8,
        flt: MemoryFilter | None = None,
        tools: Sequence[str] | None = None,
        skills: Sequence[str] | None = None,
        mode: str | None = None,
        version: str | None = None,
        surface_signals: bool = True,
    ) -> PromptContext:
        """System-prompt sections for this turn — identity, the user profile, self-awareness,
        recalled memories — each within its share of `budget_tokens` (see
        `salience.layers.context`). Self-awareness (design B §9.1) names the `tools` and
        `skills` the caller declares, `mode`, `version`, memory stats and the actionable
        improvement signals; a signal shown is marked surfaced and not shown again
        (`surface_signals=False` shows and marks none)."""
        from .layers.context import ContextBuilder

        builder = self._layer("_context_builder", lambda: ContextBuilder(self))
        return builder.build(
            query, budget_tokens=budget_tokens, limit=limit, flt=flt, tools=tools,
            skills=skills, mode=mode, version=version, surface_signals=surface_signals,
        )

    def search_as_of(
        self, query: str, as_of: datetime, *, limit: int = 10, flt: MemoryFilter | None = None
    ) -> list[SearchHit]:
        """Search what the mind held at `as_of`: memories created by then, including ones
        superseded later (see `salience.layers.timetravel`)."""
        from .layers.timetravel import search_as_of

        return search_as_of(self, query, as_of, limit=limit, flt=flt)

    def stats(self) -> dict[str, Any]:
        """Counts, sizes, the pinned embedder, the salience histogram, queue sizes and the
        last maintenance / cognitive / heartbeat runs, the similarity thresholds in effect
        (calibrated to the pinned embedder: `salience.embed.calibration`), and the agent
        records (procedures, signals, traces, evolution runs, install audit rows)."""
        from .embed.calibration import status as thresholds
        from .maintenance.status import run_status

        return {
            **self.store.stats(), **run_status(self.store),
            "thresholds": thresholds(self.store, self.config),
            "agent_records": self.store.agent_counts(),  # design B §11 (issue 20)
        }


    # -- ingestion paths (design A; implemented in salience.ingest) --------------------------
    def _ingest(self) -> IngestService:
        return self._services.ingest

    def remember_turn(
        self, user: str, assistant: str = "", *, speaker: str | None = None,
        tool_grounded: bool = False, defer: bool = True, **kw: Any,
    ) -> int | IngestResult | None:
        """A conversation turn: what a person said and the assistant's reply (may be empty).

        Queued for deferred triage (returns the queue id; `heartbeat()` drains it) or triaged
        now with `defer=False`. What the person says is kept unless it is pure small talk;
        design A's thresholds (3 tool-grounded, 5 parametric) gate only what the assistant's
        reply adds. `speaker` names the person ("User" by default); keyword arguments
        `session_id`, `occurred_at`, `metadata` (copied onto every resulting memory).
        """
        return self._ingest().remember_turn(
            user, assistant, speaker=speaker, tool_grounded=tool_grounded, defer=defer, **kw
        )

    def save_memory(self, content: str, **fields: Any) -> IngestResult:
        """Design A's save_memory tool: saved as given, no triage (see `IngestService`)."""
        return self._ingest().save_memory(content, **fields)

    def archive_context(self, messages: Sequence[str | Mapping[str, Any]], **kw: Any) -> IngestResult:
        """Archive a context slide: raw at salience 3 plus distilled facts >= 5."""
        return self._ingest().archive_context(messages, **kw)

    def drain_pending_triage(self, limit: int = 100) -> DrainReport:
        """Process due queued triage and staged distillations (the heartbeat calls this)."""
        return self._ingest().drain(limit)

    def queue_status(self) -> dict[str, Any]:
        """Pending/failed counts, recent failed operations and import sources."""
        return self._ingest().queue_status()

    def retry_failed(self, ids: Sequence[int] | None = None) -> int:
        """Requeue failed operations (all or `ids`); returns how many."""
        return self._ingest().retry_failed(ids)

    def history(self, memory_id: str) -> list[Memory]:
        """The supersession chain through `memory_id`, oldest first. Raises `NotFound`."""
        return self._ingest().history(memory_id)

    def import_mbox(self, path: str | Path, **kw: Any) -> ImportReport:
        """Import emails from an mbox file (incremental; see `salience.ingest.mbox`)."""
        return self._ingest().import_file("mbox", path, **kw)

    def import_ics(self, path: str | Path, **kw: Any) -> ImportReport:
        """Import calendar events from an ICS file (incremental; `salience.ingest.ics`)."""
        return self._ingest().import_file("ics", path, **kw)

    def import_chat(self, path: str | Path, **kw: Any) -> ImportReport:
        """Import chat transcripts from JSONL (incremental; `salience.ingest.chat`)."""
        return self._ingest().import_file("chat", path, **kw)

    # -- maintenance, cognitive runs, heartbeat (implemented in salience.maintenance) --------
    def maintain(self, *, dry_run: bool = False) -> MaintenanceReport:
        """Decay, usefulness regression, pruning and compaction now (see
        `salience.maintenance.job`), then execution traces and ai_interactions past their
        retention bounds (`trace_retention_days`, `trace_max_rows`,
        `ai_interactions_retention_days`, `ai_interactions_max_rows`; the install audit is never
        pruned); with `dry_run`, report what would change, change
        nothing."""
        from .agent.rules import Retention
        from .agent.traces import apply_retention
        from .maintenance.job import maintain
        from .maintenance.policy import Policy

        now, cfg = self.clock.now(), self.config
        report = maintain(
            self.store, now, Policy.from_config(cfg), dry_run=dry_run,
            embed=self._embed_passages,
        )
        traces = Retention(cfg.trace_retention_days, cfg.trace_max_rows)
        calls = Retention(cfg.ai_interactions_retention_days, cfg.ai_interactions_max_rows)
        kept = apply_retention(self.store, now, traces, calls, dry_run=dry_run)
        report.retention = kept.to_dict()
        return report

    def cognitive_run(self, *, reason: str = "explicit") -> CognitiveReport:
        """Consolidation, episodic synthesis and reflection now, whatever the triggers say."""
        return self.cognitive.run(self.clock.now(), reason=reason)

    def heartbeat(self) -> TickReport:
        """One heartbeat tick: drain queues, prefetch for the current task, maintenance when
        due, a cognitive run when triggered (skips if another tick of this mind is running)."""
        from .maintenance.heartbeat import tick

        return tick(self)

    # -- moving a mind (implemented in salience.transfer) -------------------------------------
    def export(
        self, dest: str | Path | IO[str], *, embeddings: bool = True,
        progress: Callable[[int], None] | None = None,
    ) -> TransferSummary:
        """Write the whole mind (memories with or without embeddings, identity, sessions, graph,
        awareness, pending queue items) as JSONL; see `salience.transfer`."""
        from .transfer import export_mind

        return export_mind(self, dest, embeddings=embeddings, progress=progress)

    def restore(
        self, src: str | Path | IO[str], *, progress: Callable[[int], None] | None = None
    ) -> TransferSummary:
        """Load an export into this mind; idempotent (records already present are skipped)."""
        from .transfer import restore_mind

        return restore_mind(self, src, progress=progress)

def _cut(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` of UTF-8 (at a character boundary)."""
    raw = text.encode("utf-8")
    return text if len(raw) <= max_bytes else raw[:max_bytes].decode("utf-8", "ignore")


__all__ = ["FrameType", "Mind"]
