"""The ingestion core: design A's unified `triageAndSave` with per-path `should_save` rules,
the direct `save_memory` path and the context-slide archive.

Every path ends in one `Store.commit_ingest` call, so a memory, the supersession of what it
contradicts, its event rows, its harvest mark and the removal of its queue item are written
together or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..clock import Clock
from ..config import Config
from ..embed.calibration import mind_threshold, pair_forms
from ..errors import InvalidInput, StoreError
from ..graph.extract import prepare as graph_records
from ..models import (
    PASSING_TAG,
    Importance,
    Memory,
    MemoryType,
    Source,
    check_text,
    content_hash,
    new_id,
)
from ..models import validate_memory as _validate
from ..search.slots import slot_terms, stated_before
from ..store.ingest import HarvestMark, IngestBatch, IngestCommit, MindEvent, QueueItem, QueueName
from . import rules
from .chunking import chunk_message
from .items import (
    PARADIGM_SHIFT_EVENT,
    RECONSOLIDATE_KEY,
    SKIPPED_EVENT,
    IngestItem,
    IngestResult,
)

if TYPE_CHECKING:
    import numpy as np

    from ..llm.brain import Brain
    from ..store.base import Store

Embed = Callable[[list[str]], "np.ndarray"]
_CLIP = 500
#: memories a full-text search on the new memory's slots adds to the contradiction check
SLOT_CANDIDATES = 8
#: items `triage_and_save_many` takes at once from the importers and the triage queue
BATCH_SIZE = 32


Pair = tuple[IngestItem, "tuple[QueueName, int] | None"]
Outcome = IngestResult | Exception | None


@dataclass(slots=True)
class _Triaged:
    """An item past triage: the records to save (None: settle it with `status`)."""

    item: IngestItem
    dequeue: tuple[QueueName, int] | None
    result: IngestResult
    records: list[Memory] | None = None
    text: str = ""
    status: str = "skipped"
    skip_text: str | None = None  # a triage skip: written as a `triage_skipped` event
    vectors: np.ndarray | None = field(default=None, repr=False)


@dataclass(slots=True)
class _Batch:
    """A batch between its triage and its commits."""

    items: Sequence[Pair]
    out: list[Outcome]
    steps: dict[int, _Triaged] = field(default_factory=dict)
    alone: set[int] = field(default_factory=set)  # processed one by one in their turn
    embedded: Future[None] | None = None


class Ingestor:
    """Runs items through the ingestion paths of one mind.

    Args:
        store: the mind's store.
        brain: triage, quality, contradiction and distillation judgements.
        embed: passage embedding (pins the mind's embedder on first use).
        config: thresholds, chunk size, limits.
        clock: the time source.
    """

    def __init__(
        self, store: Store, *, brain: Brain, embed: Embed, config: Config, clock: Clock
    ) -> None:
        self.store = store
        self.brain = brain
        self.embed = embed
        self.config = config
        self.clock = clock
        self.thresholds = rules.thresholds_from(config)
        #: entered around a batch: the model calls it makes are logged in one write
        self.batched_log: Callable[[], AbstractContextManager[object]] = nullcontext

    # -- design A's triageAndSave ---------------------------------------------------------------
    def triage_and_save(
        self, item: IngestItem, *, dequeue: tuple[QueueName, int] | None = None
    ) -> IngestResult | None:
        """Triage `item`, apply its path's `should_save` rule, boost by quality, check for
        contradictions and paradigm shifts, and save — atomically with the removal of its
        queue item `dequeue`. Returns None when that queue item was already gone.

        Raises whatever the brain or the embedder raise (`LLMError`, `EmbeddingError`): the
        caller decides whether to retry (the queue) or to enqueue (importers).
        """
        if item.path == "save_memory":
            return self._save_direct(item, dequeue=dequeue)
        if item.path == "archive":
            return self._archive(item, dequeue=dequeue)
        text, chunks = self._chunks(item)
        step = self._triage(item, dequeue, text, chunks)
        if step.records is None:
            return self._settle(step.result, item, dequeue, status=step.status,
                                text=step.skip_text)
        step.vectors = self.embed([m.content for m in step.records])
        return self._save_triaged(step)

    def triage_and_save_many(self, items: Sequence[Pair]) -> list[Outcome]:
        """`triage_and_save` of each `(item, dequeue)` in order, with one embedding call for
        the whole batch: every item is triaged first (triage reads only the item), the
        memories of the admitted ones are embedded together, then each item is checked against
        the mind (duplicates, neighbours, quality, contradictions) and committed in its own
        transaction, in order — so item k sees items 1..k-1 exactly as one-by-one ingestion
        would, and the same memories are stored and superseded.

        An item whose first chunk repeats an earlier item's is processed on its own when its
        turn comes (the earlier one decides whether it is a duplicate). Returns, per item, its
        result (None: its queue item was gone) or the exception it raised; `StoreError`
        propagates at once (what was committed stays committed).
        """
        (out,) = self.triage_and_save_stream([items])
        return out

    def triage_and_save_stream(self, batches: Iterable[Sequence[Pair]]) -> Iterator[list[Outcome]]:
        """`triage_and_save_many` of each batch, in order, pipelined: while batch n is checked
        and committed (Python), batch n+1 is already triaged and its embedding runs in a worker
        thread (the model's own code, outside the GIL) — so the model, not Python, sets the
        pace. Decisions stay those of one-by-one ingestion: triage reads only the item, and
        every check against the mind happens in order after the items before it committed.
        Yields the outcomes of each batch when it is done."""
        heads: set[str] = set()
        with ThreadPoolExecutor(1, thread_name_prefix="salience-embed") as pool:
            pending: _Batch | None = None
            for items in batches:
                with self.batched_log():  # this step's model calls: logged in one write
                    cur = self._triage_batch(items, heads)
                    admitted = [s for s in cur.steps.values() if s.records is not None]
                    cur.embedded = pool.submit(self._embed_together, admitted)
                    done = self._finish_batch(pending) if pending is not None else None
                if done is not None:
                    yield done
                pending = cur
            if pending is not None:
                with self.batched_log():
                    done = self._finish_batch(pending)
                yield done

    def _triage_batch(self, items: Sequence[Pair], heads: set[str]) -> _Batch:
        """Phase 1 of a batch: triage every item that does not repeat an earlier one."""
        b = _Batch(items=items, out=[None] * len(items))
        for i, (item, dequeue) in enumerate(items):
            if item.path in ("save_memory", "archive"):
                b.alone.add(i)
                continue
            try:
                text, chunks = self._chunks(item)
                head = content_hash(chunks[0])
                if head in heads:
                    b.alone.add(i)
                    continue
                heads.add(head)
                b.steps[i] = self._triage(item, dequeue, text, chunks)
            except StoreError:
                raise
            except Exception as e:  # this item's failure, as one-by-one would raise it
                b.out[i] = e
        return b

    def _finish_batch(self, b: _Batch) -> list[Outcome]:
        """Phase 3 of a batch, in order: check against the mind and commit each item."""
        if b.embedded is not None:
            err = b.embedded.exception()  # the batch call failed: each item embeds on its own
            if isinstance(err, StoreError):
                raise err
        for i, (item, dequeue) in enumerate(b.items):
            try:
                if i in b.alone:
                    b.out[i] = self.triage_and_save(item, dequeue=dequeue)
                elif i in b.steps:
                    b.out[i] = self._finish(b.steps[i])
            except StoreError:
                raise
            except Exception as e:
                b.out[i] = e
        return b.out

    def _embed_together(self, steps: Sequence[_Triaged]) -> None:
        """One embedding call for the memories of `steps`, split back per step."""
        texts = [m.content for s in steps for m in s.records or ()]
        if not texts:
            return
        vecs = self.embed(texts)
        at = 0
        for s in steps:
            n = len(s.records or ())
            s.vectors, at = vecs[at:at + n], at + n

    def _finish(self, step: _Triaged) -> IngestResult | None:
        """Phase 3 of `triage_and_save_many` for one triaged item, in its turn."""
        item, dequeue = step.item, step.dequeue
        if step.records is None:
            return self._settle(step.result, item, dequeue, status=step.status,
                                text=step.skip_text)
        dup = self.store.find_by_hash(step.records[0].content_hash)
        if dup is not None:  # stored since it was triaged (by another writer)
            res = IngestResult(path=item.path, skipped="duplicate", duplicate_of=dup)
            return self._settle(res, item, dequeue, status="saved")
        if step.vectors is None:
            step.vectors = self.embed([m.content for m in step.records])
        return self._save_triaged(step)

    def _chunks(self, item: IngestItem) -> tuple[str, list[str]]:
        text = check_text(item.text, max_bytes=self.config.max_content_bytes)
        return text, chunk_message(text, self.config.chunk_bytes)

    def _triage(
        self, item: IngestItem, dequeue: tuple[QueueName, int] | None, text: str,
        chunks: Sequence[str],
    ) -> _Triaged:
        """Duplicate check, triage and the path's admission rule: the records to save, or
        what to settle the item with. Reads the mind only for the duplicate check."""
        result = IngestResult(path=item.path)
        step = _Triaged(item=item, dequeue=dequeue, result=result)
        dup = self.store.find_by_hash(content_hash(chunks[0]))
        if dup is not None:  # already remembered: no model call, just settle the item
            result.skipped, result.duplicate_of = "duplicate", dup
            step.status = "saved"
            return step
        tri = self.brain.triage(text, kind=item.path)  # type: ignore[arg-type]
        result.salience = float(tri.salience)
        user_stated = False
        if item.path == "conversation":
            said = item.user_text if item.user_text is not None else rules.split_exchange(text)[0]
            verdict = rules.admit_conversation(
                said, tri.salience, tool_grounded=item.tool_grounded, thresholds=self.thresholds
            )
            skip, user_stated = (None if verdict.save else verdict.reason), verdict.user_stated
        elif not rules.should_save(
            item.path, tri.salience, model_save=tri.save, thresholds=self.thresholds
        ):
            skip = "model_said_no" if not tri.save else "below_threshold"
        else:
            skip = None
        if skip is not None:
            result.skipped, step.skip_text = skip, text
            return step
        step.text = text
        step.records = self._records(
            item, chunks,
            salience=rules.clamp_salience(tri.salience),
            summary=tri.summary,
            memory_type=rules.memory_type_for(item.path, tri.memory_type),
            tags=[*item.tags, *tri.tags],
            entities=list(tri.entities),
            source=rules.source_for(item.path, tool_grounded=item.tool_grounded,
                                    imported=item.imported, user_stated=user_stated),
        )
        if item.path == "conversation":
            step.records += self._passing_records(item, text, step.records[0])
        return step

    def _passing_records(self, item: IngestItem, text: str, head: Memory) -> list[Memory]:
        """What a long message says in passing that is likely to change (`passing_statements`:
        "btw I'm writing this from my new apartment in Vienna"), each a distilled fact of its
        own beside the message ("Speaker: sentence", related to it, its metadata, time and
        session), so the fact is found and checked for contradictions on its own. The
        message itself is kept whole."""
        from ..llm.heuristic.claims import passing_statements

        said = item.user_text if item.user_text is not None else rules.split_exchange(text)[0]
        label = text.split(":", 1)[0] if ":" in text.split("\n", 1)[0] else "User"
        out: list[Memory] = []
        for sentence in passing_statements(said, replaces=self._replaces_held):
            out.extend(self._records(
                item, [f"{label}: {sentence}"], salience=head.salience, summary="",
                memory_type=MemoryType.FACT, tags=[*head.tags, PASSING_TAG], entities=[],
                source=head.source, related_ids=[head.id],
            ))
        return out

    def _replaces_held(self, sentence: str) -> bool:
        """Whether `sentence` contradicts a live memory that a full-text search on its slot
        terms finds (the heuristic claims check: local and cheap; the fact it becomes is then
        checked by the mind's brain like any other)."""
        from ..llm.heuristic.contradiction import contradicts

        held = self._slot_candidates(Memory(content=f"User: {sentence}"), skip=set())
        return bool(held) and bool(contradicts(sentence, [m.content for m in held]))

    def _save_triaged(self, step: _Triaged) -> IngestResult | None:
        """Quality, contradictions and the atomic save of a triaged item with its vectors."""
        item, result, records, vecs = step.item, step.result, step.records, step.vectors
        assert records is not None and vecs is not None
        head = records[0]
        neighbours = self._neighbours(vecs[0])
        if rules.uses_quality(item.path):
            q = self.brain.quality(step.text, existing=[m.text for m, _ in neighbours])
            head.salience = rules.quality_boost(head.salience, q.specificity, q.uniqueness)
            head.confidence = min(1.0, max(0.0, float(q.confidence)))
            head.entities = _merge(head.entities, q.entities)
            head.importance = rules.importance_for(head.salience)
            for m in records[1:]:
                m.salience, m.confidence, m.importance = (
                    head.salience, head.confidence, head.importance,
                )
        result.salience = head.salience
        batch = IngestBatch(memories=records, vectors=vecs, dequeue=step.dequeue,
                            now=self.clock.now())
        if rules.uses_quality(item.path):
            self._contradictions(head, neighbours, batch)
            for k, m in enumerate(records[1:], start=1):  # facts said in passing
                if m.said_in_passing and m.parent_id is None:
                    self._contradictions(m, self._neighbours(vecs[k]), batch)
        if item.harvest is not None:
            batch.harvest.append(_with_status(item.harvest, "saved"))
        done = self._commit(batch)
        if done is None:
            return None
        result.saved = done.saved
        if not done.saved and done.duplicates:
            result.skipped, result.duplicate_of = "duplicate", done.duplicates.get(head.id)
        result.superseded = done.superseded
        result.paradigm_shift = any(e.kind == PARADIGM_SHIFT_EVENT for e in batch.events) and bool(
            done.superseded
        )
        return result

    # -- save_memory: no triage, no quality, no contradiction check -------------------------------
    def _save_direct(
        self, item: IngestItem, *, dequeue: tuple[QueueName, int] | None
    ) -> IngestResult | None:
        text = check_text(item.text, max_bytes=self.config.max_content_bytes)
        fields = item.fields
        records = self._records(
            item, chunk_message(text, self.config.chunk_bytes),
            salience=float(fields.get("salience", 5.0)),
            summary=str(fields.get("summary", "")),
            memory_type=MemoryType(fields.get("memory_type", MemoryType.GENERAL)),
            tags=list(item.tags),
            entities=list(fields.get("entities", [])),
            source=Source(fields.get("source", Source.USER_STATED)),
            importance=Importance(fields["importance"]) if "importance" in fields else None,
        )
        for m in records:
            m.confidence = float(fields.get("confidence", m.confidence))
            m.pinned = bool(fields.get("pinned", False))
            _validate(m, max_bytes=self.config.max_content_bytes)
        vecs = self.embed([m.content for m in records])
        batch = IngestBatch(memories=records, vectors=vecs, dequeue=dequeue, now=self.clock.now())
        if item.harvest is not None:
            batch.harvest.append(_with_status(item.harvest, "saved"))
        done = self._commit(batch)
        if done is None:
            return None
        res = IngestResult(path=item.path, saved=done.saved, salience=records[0].salience)
        if not done.saved:
            res.skipped, res.duplicate_of = "duplicate", done.duplicates.get(records[0].id)
        return res

    # -- context-slide archive --------------------------------------------------------------------
    def _archive(
        self, item: IngestItem, *, dequeue: tuple[QueueName, int] | None
    ) -> IngestResult | None:
        """Raw slide at the fixed archive salience, plus distilled facts >= the fact threshold;
        when distillation fails the slide is staged to pending_distillation (same commit)."""
        text = check_text(item.text, max_bytes=self.config.max_content_bytes)
        t = self.thresholds
        raw = self._records(
            item, chunk_message(text, self.config.chunk_bytes), salience=t.archive_raw, summary="",
            memory_type=MemoryType.GENERAL, tags=[*item.tags, "archive"], entities=[],
            source=Source.SYSTEM,
        )
        batch = IngestBatch(dequeue=dequeue, now=self.clock.now())
        batch.memories.extend(raw)
        staged = False
        try:
            facts = self.brain.distill(text)
        except Exception as e:  # any model failure: keep the raw slide, retry distillation later
            staged = True
            payload = IngestItem(path="archive", text=text, tags=item.tags,
                                 session_id=item.session_id,
                                 metadata={"raw_id": raw[0].id, "error": _err(e)})
            batch.enqueue.append(
                ("distillation", QueueItem(kind="archive", payload=payload.to_payload(),
                                           enqueued_at=self.clock.now()))
            )
            facts = []
        batch.memories.extend(self._fact_records(facts, item, raw[0].id))
        batch.vectors = self.embed([m.content for m in batch.memories])
        done = self._commit(batch)
        if done is None:
            return None
        res = IngestResult(path="archive", saved=done.saved, salience=t.archive_raw, staged=staged)
        if not done.saved:
            res.skipped, res.duplicate_of = "duplicate", done.duplicates.get(raw[0].id)
        return res

    def distill_staged(self, item: IngestItem, *, dequeue: tuple[QueueName, int]) -> IngestResult | None:
        """Retry the distillation of a staged slide (its raw record is already saved).
        Raises the brain's error so the queue counts the attempt."""
        facts = self.brain.distill(item.text)
        raw_id = str(item.metadata.get("raw_id") or "") or None
        records = self._fact_records(facts, item, raw_id)
        batch = IngestBatch(memories=records, dequeue=dequeue, now=self.clock.now())
        if records:
            batch.vectors = self.embed([m.content for m in records])
        done = self._commit(batch)
        if done is None:
            return None
        return IngestResult(path="archive", saved=done.saved)

    def _fact_records(self, facts: Sequence[Any], item: IngestItem, raw_id: str | None) -> list[Memory]:
        out: list[Memory] = []
        for f in facts:
            if not rules.should_save("archive", f.salience, thresholds=self.thresholds):
                continue
            text = str(f.text).strip()
            if not text:
                continue
            out.extend(self._records(
                item, chunk_message(text, self.config.chunk_bytes),
                salience=rules.clamp_salience(f.salience), summary="",
                memory_type=MemoryType.FACT, tags=[*item.tags, "archive", "distilled"],
                entities=[], source=Source.AGENT_INFERRED,
                related_ids=[raw_id] if raw_id else [],
                metadata={k: v for k, v in item.metadata.items() if k not in ("raw_id", "error")},
            ))
        return out

    # -- pieces -----------------------------------------------------------------------------------
    def _records(
        self,
        item: IngestItem,
        chunks: Sequence[str],
        *,
        salience: float,
        summary: str,
        memory_type: MemoryType,
        tags: Sequence[str],
        entities: Sequence[str],
        source: Source,
        importance: Importance | None = None,
        related_ids: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Memory]:
        """One record per chunk; later chunks carry `parent_id` = the first chunk's id."""
        now = self.clock.now()
        salience = rules.clamp_salience(salience)
        out: list[Memory] = []
        for i, piece in enumerate(chunks):
            m = Memory(
                content=piece, id=new_id(), summary=summary if i == 0 else "",
                memory_type=memory_type, importance=importance or rules.importance_for(salience),
                source=source, salience=salience, tags=list(tags), entities=list(entities),
                related_ids=list(related_ids), chunk_index=i, session_id=item.session_id,
                occurred_at=item.occurred_at,
                metadata=dict(item.metadata if metadata is None else metadata),
                created_at=now, updated_at=now,
                parent_id=out[0].id if out else None,
            )
            out.append(_validate(m, max_bytes=self.config.max_content_bytes))
        if not out:
            raise InvalidInput("content is empty")
        return out

    def _neighbours(self, vector: np.ndarray) -> list[tuple[Memory, float]]:
        """The nearest live memories to `vector` (for uniqueness and contradictions)."""
        k = max(5, self.config.contradiction_candidates)
        cands = self.store.search_vector(vector, limit=k)
        by_id = {m.id: m for m in self.store.get_many([c.id for c in cands])}
        return [(by_id[c.id], c.score) for c in cands if c.id in by_id]

    def commit_checked(self, records: Sequence[Memory], vectors: np.ndarray) -> list[str]:
        """`Mind.add(..., check_contradictions=True)`: each item (its first chunk and the chunks
        after it, as `add_many` planned them) is committed on its own after the check of the
        triaged paths (`_contradictions`), so a later item sees the earlier ones. Returns the ids
        of the memories it superseded."""
        superseded: list[str] = []
        i = 0
        while i < len(records):
            j = i + 1
            while j < len(records) and records[j].parent_id == records[i].id:
                j += 1
            batch = IngestBatch(memories=list(records[i:j]), vectors=vectors[i:j],
                                now=self.clock.now())
            self._contradictions(records[i], self._neighbours(vectors[i]), batch)
            done = self._commit(batch)
            superseded.extend(done.superseded if done is not None else [])
            i = j
        return superseded

    def _contradictions(
        self, head: Memory, neighbours: Sequence[tuple[Memory, float]], batch: IngestBatch
    ) -> None:
        """Ask the brain about the close neighbours; contradicted ones get superseded (never
        deleted); superseding an identity/preference memory of high salience is a paradigm
        shift: an event row and the identity re-consolidation flag.

        The brain reads the memories' content, not their summaries: who speaks ("Caroline:"),
        an email's sender and subject are in the content only. When the new memory states
        something older than the memory it contradicts (an mbox imported out of order), the
        newer statement wins: the new memory is the one superseded.

        Besides design A's close neighbours, the memories a full-text search finds for the
        slots the new memory makes claims on are checked (`_slot_candidates`): the statement a
        memory replaces is often not among its nearest embeddings."""
        close = rules.contradiction_candidates(
            [(m.id, s) for m, s in neighbours if m.content_hash != head.content_hash
             and m.memory_type is not MemoryType.IDENTITY],  # persona/profile: not claims
            max_distance=mind_threshold(  # calibrated to the mind's embedder (issue 14)
                self.store, self.config, "contradiction_distance", self.embed,
                forms=pair_forms(head.content, [m.content for m, _ in neighbours]),
            ),
            limit=self.config.contradiction_candidates,
        )
        olds = {m.id: m for m, _ in neighbours}
        cands = [olds[i] for i in close] + self._slot_candidates(head, skip=set(close))
        if not cands:
            return
        hits = self.brain.contradicts(head.content, [m.content for m in cands])
        shifted: list[str] = []
        for pos in sorted(set(hits)):
            if not 0 <= pos < len(cands):
                continue
            old = cands[pos]
            if stated_before(head, old):
                batch.supersede.append((head.id, old.id))
                continue
            batch.supersede.append((old.id, head.id))
            if rules.is_paradigm_shift(old, min_salience=self.config.paradigm_shift_salience):
                shifted.append(old.id)
                batch.events.append(MindEvent(
                    kind=PARADIGM_SHIFT_EVENT, created_at=batch.now or self.clock.now(),
                    memory_id=head.id, related_id=old.id,
                    payload={"old": old.text[:_CLIP], "new": head.text[:_CLIP],
                             "old_salience": old.salience, "memory_type": old.memory_type.value},
                ))
        if shifted:
            prev = _loads(self.store.get_meta(RECONSOLIDATE_KEY))
            ids = list(dict.fromkeys([*prev.get("memory_ids", []), *shifted]))
            since = prev.get("since") or (batch.now or self.clock.now()).isoformat()
            batch.meta[RECONSOLIDATE_KEY] = json.dumps({"since": since, "memory_ids": ids})

    def _slot_candidates(self, head: Memory, *, skip: set[str]) -> list[Memory]:
        """Live memories that a full-text search on the new memory's slot terms finds
        (`salience.search.slots.slot_terms`; at most `SLOT_CANDIDATES`), profiles left out."""
        terms = slot_terms(head.content)
        if not terms:
            return []
        found = self.store.search_text(terms, limit=SLOT_CANDIDATES)
        ids = [c.id for c in found if c.id not in skip and c.id != head.id]
        return [m for m in self.store.get_many(ids) if m.content_hash != head.content_hash
                and m.memory_type is not MemoryType.IDENTITY]

    def _commit(self, batch: IngestBatch) -> IngestCommit | None:
        """The one write of every path: the batch with the graph records of its memories
        (what they mention and state, `salience.graph.extract`), in one `commit_ingest`
        transaction."""
        batch.graph = graph_records(batch.memories)
        return self.store.commit_ingest(batch)

    def _settle(
        self, result: IngestResult, item: IngestItem, dequeue: tuple[QueueName, int] | None,
        *, status: str, text: str | None = None,
    ) -> IngestResult | None:
        """Finish an item that saves nothing: dequeue it and mark it harvested, atomically.
        A triage skip (`text` given) is also written as a `triage_skipped` event, so every
        skip can be looked at later (`salience queue`, `Mind.stats`)."""
        skipped_event = text is not None and result.skipped not in (None, "duplicate")
        if dequeue is None and item.harvest is None and not skipped_event:
            return result
        batch = IngestBatch(dequeue=dequeue, now=self.clock.now())
        if item.harvest is not None:
            batch.harvest.append(_with_status(item.harvest, status))
        if skipped_event:
            assert text is not None
            batch.events.append(MindEvent(
                kind=SKIPPED_EVENT, created_at=batch.now or self.clock.now(),
                payload={"path": item.path, "reason": result.skipped,
                         "salience": result.salience, "text": text[:_CLIP]},
            ))
        return result if self._commit(batch) is not None else None


def _with_status(mark: HarvestMark, status: str) -> HarvestMark:
    return HarvestMark(kind=mark.kind, key=mark.key, source=mark.source, status=status)


def _merge(a: Sequence[str], b: Sequence[str]) -> list[str]:
    seen: dict[str, str] = {}
    for e in [*a, *b]:
        k = " ".join(str(e).lower().split())
        if k and k not in seen:
            seen[k] = e
    return list(seen.values())


def _loads(value: str | None) -> dict[str, Any]:
    try:
        data = json.loads(value) if value else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"[:2000]
