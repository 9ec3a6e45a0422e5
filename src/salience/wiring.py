"""The one place a mind's services are built (issue 16): the brain with its interaction
recorder, the ingest service, recall, the user-profile layer and the cognitive engine.

Each service gets narrow dependencies — the store, the config, the clock, the brain, the
embedding functions — never the `Mind` itself. `MindServices` builds each on first use (a
search never builds the ingest service; a mind that never asks a model builds no LLM
client) and `close()` releases what it built: the recall thread pool and the brain it made
(its LLM client). A brain passed in by the caller is the caller's to close.

The brain's `on_call` recorder writes one `ai_interactions` row per model call (design B §11,
EU AI Act Art. 12); every service shares the one brain, so every call site is logged.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .llm.base import Recorder
from .llm.brain import Brain

if TYPE_CHECKING:
    import numpy as np

    from .clock import Clock
    from .config import Config
    from .ingest.service import IngestService
    from .layers.profile import ProfileLayer
    from .maintenance.cognitive import CognitiveEngine
    from .models.interactions import InteractionRecord
    from .search.pipeline import Recall
    from .store.base import Store

#: What `Mind.open(brain=...)` takes: a `Brain`, or a factory given the mind's recorder
#: (`lambda on_call: make_brain(config, on_call=on_call)`) so its calls are logged.
BrainFactory = Callable[[Recorder], Brain]
log = logging.getLogger("salience.llm")
EmbedTexts = Callable[[Sequence[str]], "np.ndarray"]


class InteractionLog:
    """The `on_call` recorder: one `ai_interactions` row per model call (never raises into
    the caller — `salience.llm.base.emit` logs and drops a failing record). Inside
    `batched()` (a batch of ingested items) a thread's rows are written together when the
    block ends."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._local = threading.local()

    def __call__(self, record: InteractionRecord) -> None:
        pending: list[InteractionRecord] | None = getattr(self._local, "pending", None)
        if pending is not None:
            pending.append(record)
            return
        self.store.record_interactions([record], at=self.clock.now())

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Buffer this thread's records until the block ends (an error too), then write them
        in one store call; a nested block writes at the outer one's end."""
        if getattr(self._local, "pending", None) is not None:
            yield
            return
        self._local.pending = []
        try:
            yield
        finally:
            records, self._local.pending = self._local.pending, None
            if records:
                try:
                    self.store.record_interactions(records, at=self.clock.now())
                except Exception as e:  # as `emit`: a failing log never fails the caller
                    log.warning("%d interaction records dropped (%s: %s)", len(records),
                                type(e).__name__, e)


class MindServices:
    """The services of one mind, built on first use from narrow dependencies."""

    def __init__(
        self,
        store: Store,
        *,
        config: Config,
        clock: Clock,
        embed_passages: EmbedTexts,
        embed_queries: EmbedTexts,
        brain: Brain | BrainFactory | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.recorder: InteractionLog = InteractionLog(store, clock)
        self._embed_passages = embed_passages
        self._embed_queries = embed_queries
        self._given = brain
        self._lock = threading.RLock()
        self._brain: Brain | None = None
        self._owns_brain = False
        self._ingest: IngestService | None = None
        self._recall: Recall | None = None
        self._profile: ProfileLayer | None = None
        self._cognitive: CognitiveEngine | None = None
        # stored claims (issue 21): every memory the mind writes gets its claims row, parsed
        # once in the write's transaction (search/stored_claims.py)
        derive_with = getattr(store, "derive_claims_with", None)
        if derive_with is not None:
            from .search.stored_claims import derive

            derive_with(derive)

    @property
    def brain(self) -> Brain:
        """The mind's one brain: the one given; else the factory's, given the recorder; else
        `make_brain(config)` recording to `ai_interactions`."""
        with self._lock:
            if self._brain is None:
                given = self._given
                if isinstance(given, Brain):
                    self._brain = given
                elif given is not None:
                    self._brain, self._owns_brain = given(self.recorder), True
                else:
                    from .llm import make_brain

                    self._brain = make_brain(self.config, on_call=self.recorder, clock=self.clock)
                    self._owns_brain = True
            return self._brain

    @property
    def ingest(self) -> IngestService:
        with self._lock:
            if self._ingest is None:
                from .ingest.service import IngestService

                self._ingest = IngestService(
                    self.store, config=self.config, clock=self.clock,
                    embed=self._embed_passages, brain=self.brain,
                    batched_log=self.recorder.batched,
                )
            return self._ingest

    @property
    def recall(self) -> Recall:
        with self._lock:
            if self._recall is None:
                from .search.pipeline import Recall

                self._recall = Recall(
                    self.store, clock=self.clock, embed=self._embed_queries, brain=self.brain,
                    mind=self.store.mind,
                )
            return self._recall

    @property
    def profile(self) -> ProfileLayer:
        with self._lock:
            if self._profile is None:
                from .layers.profile import ProfileLayer

                self._profile = ProfileLayer(
                    self.store, config=self.config, embed=self._embed_passages,
                    history=lambda memory_id: self.ingest.history(memory_id),
                )
            return self._profile

    @property
    def cognitive(self) -> CognitiveEngine:
        with self._lock:
            if self._cognitive is None:
                from .maintenance.cognitive import CognitiveEngine

                self._cognitive = CognitiveEngine(
                    self.store, config=self.config, clock=self.clock, brain=self.brain,
                    embed=self._embed_passages, profile=self.profile,
                )
            return self._cognitive

    def close(self) -> None:
        """Release what was built: the recall thread pool, and the brain (its LLM client) when
        this object made it. Idempotent."""
        with self._lock:
            recall, self._recall = self._recall, None
            brain, owns = self._brain, self._owns_brain
            self._brain, self._owns_brain = None, False
            self._ingest = self._profile = self._cognitive = None
        if recall is not None:
            recall.close()
        if brain is not None and owns:
            close = getattr(brain, "close", None)
            if callable(close):
                close()
