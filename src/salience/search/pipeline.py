"""The retrieval paths (design A §Retrieval, design B §9.2) over one mind.

- `Recall.search`: the deep pipeline — catch-up check, query rewriting (brain), candidates from
  every query (text, vector, entity), ranking by the preset, time-aware boost, neighbouring-turn
  context, entity multi-hop (0.8×), dedup by content hash, brain re-ranking when it is an LLM;
- `Recall.prefetch`: per-message background recall under a time budget (default 2 s);
- `Recall.heartbeat_prefetch`: top 3 for the agent's current task;
- `Recall.catch_up`: the catch-up selection.

Every returned hit can be recorded as a retrieval (feedback loop, `feedback.py`).
"""

from __future__ import annotations

import logging
import statistics
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from ..clock import Clock
from ..models import Importance, Memory, MemoryFilter, SearchHit
from . import rank as R
from .candidates import (
    Deadline,
    EmbedQueries,
    Gathered,
    QuerySpec,
    gather,
    gather_within,
    informative_entities,
)
from .catchup import (
    RECENT_CONTEXT,
    TOPIC_POOL,
    catch_up_topic,
    is_catch_up,
    is_key,
    select_catch_up,
    select_topic_catch_up,
)
from .config import SearchConfig, get_preset
from .feedback import lexical_useful, record_retrievals, record_usefulness
from .participants import boost as participant_boost
from .query import about_agent, query_terms
from .temporal import about_past, about_time, asks_earlier_state, parse_time_range, wants_recent

if TYPE_CHECKING:
    from ..store.base import Store
    from .slots import Close
    from .stored_claims import KnownClaims

log = logging.getLogger("salience.search")

PREFETCH_LIMIT = 3
PREFETCH_BUDGET_S = 2.0
TRAJECTORY_MESSAGES = 3
HOP_SEEDS = 3  # top hits whose entities seed the multi-hop
RERANK_DEPTH = 20


class RecallBrain(Protocol):
    """The part of `salience.llm.brain.Brain` recall uses."""

    def status(self) -> Any: ...

    def rewrite_query(self, query: str, *, n: int = 3) -> list[str]: ...

    def rerank(self, query: str, candidates: Sequence[str]) -> list[int]: ...

    def is_useful(self, response: str, memory: str) -> bool: ...


def is_llm(brain: RecallBrain | None) -> bool:
    """True when `brain` is backed by a language model (not the heuristic engine)."""
    if brain is None:
        return False
    try:
        return not bool(brain.status().heuristic)
    except Exception:  # a brain whose status fails is not trusted with re-ranking
        return False


def trajectory(messages: Sequence[str], current: str, n: int = TRAJECTORY_MESSAGES) -> str:
    """Design A's trajectory string: the last `n` user messages and the current one."""
    recent = [m.strip() for m in messages if m and m.strip()][-n:]
    return "\n".join([*recent, current.strip()])


class Recall:
    """Recall over one mind. Build it with the mind's store, query embedder, clock and brain."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        embed: EmbedQueries | None = None,
        brain: RecallBrain | None = None,
        mind: str | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.embed = embed
        self.brain = brain
        self.mind = mind if mind is not None else store.mind
        self._executor: ThreadPoolExecutor | None = None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # -- the deep search ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        preset: str | SearchConfig = "rrf-balanced",
        limit: int = 10,
        flt: MemoryFilter | None = None,
        distances: Mapping[str, int] | None = None,
        catch_up: bool = True,
        feedback: bool = True,
    ) -> list[SearchHit]:
        """Deep search: `limit` hits best first, each with the explanation of its score.

        Args:
            preset: a preset name or `SearchConfig` (see `salience.search.config`).
            flt: structured filter applied to every candidate source.
            distances: knowledge-graph BFS distance per memory id (design B's contextual signal).
            catch_up: route catch-up queries ("where were we") to `catch_up`.
            feedback: record the returned hits as retrieved.
        """
        cfg = get_preset(preset)
        if catch_up and is_catch_up(query):
            return self.catch_up(limit=limit, feedback=feedback, query=query, preset=preset)
        variants = self._rewrites(query, cfg)
        queries = [QuerySpec("", query, query, cfg.pool)]
        queries += [QuerySpec(str(i), v, v, cfg.variant_pool) for i, v in enumerate(variants, 1)]
        got = gather(
            self.store, queries, sources=cfg.sources, embed=self.embed, flt=flt,
            bm25=(cfg.bm25_k1, cfg.bm25_b),
        )
        hits = self._finish(query, got, cfg, limit=limit, distances=distances, flt=flt)
        if feedback:
            self.record(hits)
        return hits

    def _rewrites(self, query: str, cfg: SearchConfig) -> list[str]:
        if cfg.rewrites <= 0 or self.brain is None:
            return []
        try:
            out = self.brain.rewrite_query(query, n=cfg.rewrites)
        except Exception as e:  # rewriting is an optional lever: search on without it
            log.warning("query rewriting failed (%s); searching the query alone", e)
            return []
        seen = {query.strip().lower()}
        uniq = []
        for v in out:
            if v and v.strip() and v.strip().lower() not in seen:
                seen.add(v.strip().lower())
                uniq.append(v.strip())
        return uniq[: cfg.rewrites]

    def _finish(
        self,
        query: str,
        got: Gathered,
        cfg: SearchConfig,
        *,
        limit: int,
        distances: Mapping[str, int] | None,
        flt: MemoryFilter | None,
    ) -> list[SearchHit]:
        """Rank gathered candidates and apply the pipeline's later stages."""
        ids = list(dict.fromkeys(c.id for cands in got.lists.values() for c in cands))
        memories = {m.id: m for m in self.store.get_many(ids)}
        now = self.clock.now()

        def score(mems: Mapping[str, Memory]) -> list[R.Ranked]:
            return self._score(query, got, mems, cfg, now, distances)

        scored = score(memories)
        people: dict[str, frozenset[str]] = {}  # participants per memory, read once a search
        ranked = self._participants(query, scored, memories, cfg, people)
        if cfg.context_window > 0 and cfg.context_weight > 0:
            seeds = [memories[i] for i, _, _ in ranked[: cfg.context_seeds]]
            added = self._add_neighbours(seeds, memories, cfg.context_window, flt)
            if added:
                scored = self._rescore(score, memories, cfg, scored, added)
                ranked = self._participants(query, scored, memories, cfg, people)
            ranked = R.spread_context(
                ranked, _neighbours(memories, cfg.context_window), cfg.context_weight,
                floor=R.median_score(ranked),
            )
        if cfg.entity_hops:
            ranked = self._hop(ranked, memories, cfg, limit, flt)
        ranked = self._agent_first(query, ranked, memories)
        from .stored_claims import KnownClaims

        known = KnownClaims(self.store)  # the candidates' stored claims (issue 21)
        # "what phone did I have before?": what a newer statement replaced is the answer
        earlier = asks_earlier_state(query)
        if cfg.newer_wins and not earlier:
            ranked = newer_wins(ranked, memories, window=limit + NEWER_WINS_EXTRA,
                                claims_fn=known)
        if cfg.slot_first and not earlier:
            ranked = slot_first(query, ranked, memories, window=SLOT_FIRST_WINDOW,
                                claims_fn=known)
            ranked = name_first(query, ranked, memories, window=SLOT_FIRST_WINDOW)
            ranked = self_first(query, ranked, memories, window=SLOT_FIRST_WINDOW)
        if cfg.update_first and not about_past(query):
            ranked = self._update_first(query, ranked, memories, window=SLOT_FIRST_WINDOW)
        # after the update stages: a fact said in passing moved above what it replaces shows
        # instead of its message, which alone would not have moved
        ranked = _dedup(ranked, memories)
        if cfg.rerank and is_llm(self.brain):
            ranked = self._rerank(query, ranked, memories)
        return [
            SearchHit(memory=memories[i], score=s, explanation={**e, "score": s}, mind=self.mind)
            for i, s, e in ranked[:limit]
        ]

    def _update_first(
        self, query: str, ranked: list[R.Ranked], memories: Mapping[str, Memory], *, window: int
    ) -> list[R.Ranked]:
        """`update_first` with the candidates' stored vectors and the mind's calibrated
        contradiction gate, and the relevance test of a newer statement with no change word
        (`answers_as_well`)."""
        head = [memories[i] for i, _, _ in ranked[:window]]
        if len(head) < 2:
            return ranked
        gate = update_gate(self.store)

        @cache
        def vectors() -> Mapping[str, Any]:  # read once, when a pair is first compared
            return self.store.get_vectors([m.id for m in head])

        def similarity(a: Memory, b: Memory) -> float | None:
            va, vb = vectors().get(a.id), vectors().get(b.id)
            return float(va @ vb) if va is not None and vb is not None else None

        return update_first(query, ranked, memories, similarity, gate, window=window,
                            close=answers_as_well(ranked[:window]))

    def _score(
        self,
        query: str,
        got: Gathered,
        memories: Mapping[str, Memory],
        cfg: SearchConfig,
        now: Any,
        distances: Mapping[str, int] | None,
    ) -> list[R.Ranked]:
        """The preset's ranking of `memories`, then the time match."""
        ranked = self._rank(got, memories, cfg, now, distances, query)
        if cfg.time_aware:
            ranked = self._time_boost(query, ranked, memories, cfg, now)
        return ranked

    @staticmethod
    def _rescore(
        score: Callable[[Mapping[str, Memory]], list[R.Ranked]],
        memories: Mapping[str, Memory],
        cfg: SearchConfig,
        scored: list[R.Ranked],
        added: Sequence[str],
    ) -> list[R.Ranked]:
        """`score(memories)` after the neighbours `added` joined those `scored`: every
        candidate's score depends on the candidate alone (its vector, the gathered BM25, its
        priors), so only the new ones are scored and merged in — the same list as scoring
        them all again. The recency intent places each candidate among all of them in time,
        so with it everything is scored again."""
        if cfg.time_aware and cfg.recency_intent:
            return score(memories)
        new = score({i: memories[i] for i in added})
        return sorted([*scored, *new], key=lambda r: (-r[1], r[0]))

    def _participants(
        self,
        query: str,
        ranked: list[R.Ranked],
        memories: Mapping[str, Memory],
        cfg: SearchConfig,
        people: dict[str, frozenset[str]],
    ) -> list[R.Ranked]:
        """The participant shift (ranking="bounded"), with `people` caching who each memory
        is by across the search's two rankings."""
        if cfg.ranking == "bounded" and cfg.participant_shift > 0:
            return participant_boost(ranked, memories, query, cfg.participant_shift, people)
        return ranked

    def _add_neighbours(
        self,
        seeds: Sequence[Memory],
        memories: dict[str, Memory],
        window: int,
        flt: MemoryFilter | None,
    ) -> list[str]:
        """Add to `memories` the turns within `window` of each seed in its session (what the
        search's filter lets through, superseded ones hidden); returns the ids added.
        One read per run of overlapping windows (`Store.session_turns`); with a filter, one
        filtered read of the new ones."""
        got: dict[str, Memory] = {}
        for sid, ts in neighbour_slots(seeds, window).items():
            for lo, hi in runs(ts):
                got.update((m.id, m) for m in self.store.session_turns(sid, lo, hi)
                           if m.id not in memories and m.superseded_by is None)
        if flt is None or not got:  # the default filter only hides superseded memories
            memories.update(got)
            return list(got)
        found = list(got)
        base = flt
        ids = [i for i in found if base.ids is None or i in base.ids]
        if not ids:
            return []
        added = self.store.list(replace(base, ids=ids), limit=len(ids))
        memories.update((m.id, m) for m in added)
        return [m.id for m in added]

    def _agent_first(
        self, query: str, ranked: list[R.Ranked], memories: dict[str, Memory]
    ) -> list[R.Ranked]:
        """A question about the agent itself ("who are you?") is answered by its identity
        memory: it goes first. Otherwise the identity memory competes on relevance alone
        (it is in the system prompt's identity section anyway)."""
        from ..layers.identity import IDENTITY_MEMORY_KEY

        ident = self.store.get_identity()
        if ident is None or not about_agent(query, ident.name):
            return ranked
        mid = self.store.get_meta(IDENTITY_MEMORY_KEY)
        if not mid:
            return ranked
        if mid not in memories:
            m = self.store.get(mid)
            if m is None:
                return ranked
            memories[mid] = m
        rest = [r for r in ranked if r[0] != mid]
        top = max((r[1] for r in rest), default=1.0)
        return [(mid, top + 1e-6, {"about_agent": 1.0}), *rest]

    def _rank(
        self,
        got: Gathered,
        memories: Mapping[str, Memory],
        cfg: SearchConfig,
        now: Any,
        distances: Mapping[str, int] | None,
        query: str = "",
    ) -> list[R.Ranked]:
        weights = {
            key: cfg.weight(key.split("~")[0]) * (cfg.variant_weight if "~" in key else 1.0)
            for key in got.lists
        }
        fused = R.rrf_fuse(got.lists, k=cfg.rrf_k, weights=weights)
        if cfg.ranking == "rrf":
            return R.rrf_rank(fused, memories, cfg.profile, now, distances)
        cosine = self._cosines(got, list(memories))
        bm25 = R.normalise_bm25(
            {c.id: c.score for c in got.lists.get("text", [])}, cfg.formula_bm25_scale
        )
        entity_ids = frozenset(c.id for c in got.lists.get("entity", []))
        explain = {i: e for i, _, e in fused}
        if cfg.ranking == "bounded":
            return R.bounded_rank(
                memories, cosine=cosine, bm25=bm25, entity_ids=entity_ids, now=now,
                prior_weight=cfg.prior_weight, explain=explain,
                terms=query_terms(query) if cfg.bm25_coverage else None,
                coverage_power=cfg.bm25_coverage_power,
            )
        return R.formula_rank(
            memories, cosine=cosine, bm25=bm25, entity_ids=entity_ids, now=now, explain=explain
        )

    def _cosines(self, got: Gathered, ids: list[str]) -> dict[str, float]:
        """Cosine similarity of every candidate to the user's query vector (design A scores the
        whole candidate set, not only the vector hits)."""
        qv = got.vectors.get("")
        if qv is None or not ids:
            return {}
        import numpy as np

        vecs = self.store.get_vectors(ids)
        q = np.asarray(qv, dtype=np.float32)
        return {i: float(np.dot(v, q)) for i, v in vecs.items()}

    def _time_boost(
        self,
        query: str,
        ranked: list[R.Ranked],
        memories: Mapping[str, Memory],
        cfg: SearchConfig,
        now: Any,
    ) -> list[R.Ranked]:
        span = parse_time_range(query, now)
        if span is None:
            return self._recency_boost(query, ranked, memories, cfg) if cfg.recency_intent else ranked
        out = []
        for i, s, e in ranked:
            m = memories[i]
            when = m.occurred_at or m.created_at
            inside = (about_time(span, when, m.content) if cfg.time_told
                      else span.contains(when))
            if not inside:
                s2 = s
            elif cfg.ranking == "bounded":  # a bounded shift, like the priors
                s2 = s + cfg.time_shift
            else:
                s2 = R.scale_score(s, cfg.time_boost)
            out.append((i, s2, {**e, "time_match": 1.0 if inside else 0.0}))
        out.sort(key=lambda r: (-r[1], r[0]))
        return out

    def _recency_boost(
        self,
        query: str,
        ranked: list[R.Ranked],
        memories: Mapping[str, Memory],
        cfg: SearchConfig,
    ) -> list[R.Ranked]:
        """Recency intent ("these days", "currently", ...): scale each candidate by
        1 + (time_boost − 1) · its position in time among the candidates (oldest 0, newest 1);
        with bounded ranking, add `recency_shift` · that position instead."""
        if not wants_recent(query) or len(ranked) < 2:
            return ranked
        when = {i: (memories[i].occurred_at or memories[i].created_at) for i, _, _ in ranked}
        stamps = sorted(t.timestamp() for t in when.values() if t is not None)
        if not stamps or stamps[0] == stamps[-1]:
            return ranked
        lo, hi = stamps[0], stamps[-1]
        out = []
        for i, s, e in ranked:
            t = when[i]
            pos = (t.timestamp() - lo) / (hi - lo) if t is not None else 0.0
            if cfg.ranking == "bounded":  # a bounded shift, like the priors
                s2 = s + cfg.recency_shift * pos
            else:
                s2 = R.scale_score(s, 1.0 + (cfg.time_boost - 1.0) * pos)
            out.append((i, s2, {**e, "recency_intent": pos}))
        out.sort(key=lambda r: (-r[1], r[0]))
        return out

    def _hop(
        self,
        ranked: list[R.Ranked],
        memories: dict[str, Memory],
        cfg: SearchConfig,
        limit: int,
        flt: MemoryFilter | None,
    ) -> list[R.Ranked]:
        """Design A's entity multi-hop: memories sharing an entity with a top hit join the list
        at the hit's score × 0.8."""
        present = {i for i, _, _ in ranked}
        additions: dict[str, R.Ranked] = {}
        for i, s, _ in ranked[:HOP_SEEDS]:
            ents = informative_entities(self.store, memories[i].entities)
            if not ents:
                continue
            for c in self.store.search_entities(ents, limit=limit, flt=flt):
                if c.id in present or c.id in additions:
                    continue
                hs = R.scale_score(s, cfg.hop_penalty)
                additions[c.id] = (c.id, hs, {"hop_from_score": s, "hop_penalty": cfg.hop_penalty})
        if not additions:
            return ranked
        for m in self.store.get_many(list(additions)):
            memories[m.id] = m
        extra = [a for a in additions.values() if a[0] in memories]
        return sorted([*ranked, *extra], key=lambda r: (-r[1], r[0]))

    def _rerank(
        self, query: str, ranked: list[R.Ranked], memories: Mapping[str, Memory]
    ) -> list[R.Ranked]:
        assert self.brain is not None
        head, tail = ranked[:RERANK_DEPTH], ranked[RERANK_DEPTH:]
        try:
            order = self.brain.rerank(query, [memories[i].text for i, _, _ in head])
        except Exception as e:
            log.warning("re-ranking failed (%s); keeping the preset's order", e)
            return ranked
        if sorted(order) != list(range(len(head))):
            return ranked
        return [
            (head[j][0], head[j][1], {**head[j][2], "rerank_position": float(pos + 1)})
            for pos, j in enumerate(order)
        ] + tail

    # -- prefetch ----------------------------------------------------------------------------------
    def prefetch(
        self,
        messages: Sequence[str],
        current: str,
        *,
        preset: str | SearchConfig = "rrf-balanced",
        limit: int = PREFETCH_LIMIT,
        budget_s: float = PREFETCH_BUDGET_S,
        flt: MemoryFilter | None = None,
        feedback: bool = True,
        monotonic: Callable[[], float] | None = None,
    ) -> list[SearchHit]:
        """Subconscious prefetch for one incoming message (design A, path 1).

        The vector side embeds the trajectory (last 3 user `messages` + `current`); full-text and
        entity matching use `current` alone. Returns the top `limit` within `budget_s` seconds:
        stages still running at the deadline are abandoned and ranking uses what arrived. Never
        raises for a failing stage (prefetch is background context); failures are logged.
        """
        cfg = replace(get_preset(preset), rewrites=0, entity_hops=False)
        q = QuerySpec("", current, trajectory(messages, current), cfg.pool)
        deadline = Deadline(budget_s, monotonic) if monotonic else Deadline(budget_s)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="salience-recall")
        try:
            got = gather_within(
                self._executor,
                self.store,
                [q],
                sources=cfg.sources,
                embed=self.embed,
                flt=flt,
                deadline=deadline,
                bm25=(cfg.bm25_k1, cfg.bm25_b),
            )
        except Exception as e:
            log.warning("prefetch failed (%s: %s); no background memories", type(e).__name__, e)
            return []
        if got.skipped:
            log.info("prefetch over budget; skipped %s", ", ".join(got.skipped))
        hits = self._finish(current, got, cfg, limit=limit, distances=None, flt=flt)
        if feedback:
            self.record(hits)
        return hits

    def heartbeat_prefetch(
        self,
        task: str,
        *,
        preset: str | SearchConfig = "rrf-balanced",
        limit: int = PREFETCH_LIMIT,
        feedback: bool = True,
    ) -> list[SearchHit]:
        """Top `limit` memories for the agent's current task (design A, path 2)."""
        cfg = replace(get_preset(preset), rewrites=0)
        return self.search(task, preset=cfg, limit=limit, catch_up=False, feedback=feedback)

    # -- catch-up ----------------------------------------------------------------------------------
    def catch_up(
        self,
        *,
        limit: int = 10,
        feedback: bool = True,
        query: str | None = None,
        preset: str | SearchConfig = "rrf-balanced",
        topic: str | None = None,
    ) -> list[SearchHit]:
        """Design B's catch-up selection (see `catchup.py`), newest decisions first. With a
        `topic`, or when the catch-up `query` names one ("what did we decide about payments?"),
        the topic is searched with `preset` instead and its decisions and important memories
        come first."""
        topic = topic or (catch_up_topic(query) if query else None)
        if topic is not None:
            found = self.search(
                topic, preset=preset, limit=limit * TOPIC_POOL, catch_up=False, feedback=False
            )
            hit_of = {h.memory.id: h for h in found}
            hits = [
                replace(
                    hit_of[m.id], score=1.0 / (pos + 1),
                    explanation={**hit_of[m.id].explanation, "catch_up": 1.0,
                                 "catch_up_key": float(is_key(m))},
                )
                for pos, m in enumerate(
                    select_topic_catch_up([h.memory for h in found], topic, limit)
                )
            ]
            if feedback:
                self.record(hits)
            return hits
        key = MemoryFilter(importance=[Importance.CRITICAL, Importance.IMPORTANT])
        pool = {m.id: m for m in self.store.list(key, limit=limit * 4, order="created_desc")}
        # decisions: full-text narrows the candidates, `is_decision` applies design B's LIKEs
        words = self.store.search_text(["decided", "decision"], limit=limit * 8)
        pool.update(
            (m.id, m) for m in self.store.get_many([c.id for c in words if c.id not in pool])
        )
        usable = MemoryFilter(
            importance=[Importance.CRITICAL, Importance.IMPORTANT, Importance.NORMAL]
        )
        recent = self.store.list(usable, limit=limit + RECENT_CONTEXT, order="created_desc")
        chosen = select_catch_up(pool.values(), recent, limit)
        hits = [
            SearchHit(
                memory=m, score=1.0 / (pos + 1), explanation={"catch_up": 1.0}, mind=self.mind
            )
            for pos, m in enumerate(chosen)
        ]
        if feedback:
            self.record(hits)
        return hits

    # -- feedback ----------------------------------------------------------------------------------
    def record(self, hits: Sequence[SearchHit]) -> None:
        """Record `hits` as retrieved now (count, time, dampened salience boost)."""
        if hits:
            record_retrievals(self.store, [h.memory.id for h in hits], self.clock.now())

    def mark_useful(self, ids: Sequence[str], useful: bool) -> list[Memory]:
        """Move each memory's usefulness one dampened step toward 1.0 or 0.0."""
        return record_usefulness(self.store, ids, useful)

    def evaluate_usefulness(
        self, response: str, prefetched: Sequence[SearchHit | Memory]
    ) -> dict[str, bool]:
        """Judge which prefetched memories contributed to `response` (the brain's YES/NO when
        it is an LLM, else lexical overlap) and apply the verdicts. Returns id -> verdict."""
        verdicts: dict[str, bool] = {}
        for item in prefetched:
            m = item.memory if isinstance(item, SearchHit) else item
            if is_llm(self.brain):
                assert self.brain is not None
                verdicts[m.id] = bool(self.brain.is_useful(response, m.text))
            else:
                verdicts[m.id] = lexical_useful(response, m.text)
        for flag in (True, False):
            ids = [i for i, v in verdicts.items() if v is flag]
            if ids:
                self.mark_useful(ids, flag)
        return verdicts


NEWER_WINS_EXTRA = 10  # candidates below the cut that may still replace a stale hit
SLOT_FIRST_WINDOW = 10  # slot_first reorders the top 10 candidates, whatever the limit


def slot_first(
    query: str, ranked: list[R.Ranked], memories: Mapping[str, Memory], *, window: int,
    claims_fn: KnownClaims | None = None,
) -> list[R.Ranked]:
    """Within the top `window`, the memories that make a claim on the slot the question asks
    about ("Which company do I work for?" → an employer) come first (`slots.slot_answers`),
    marked `slot` = 1.0 in their explanation. Scores are re-spread so the list stays sorted."""
    from .slots import slot_answers, slot_order

    head, tail = list(ranked[:window]), list(ranked[window:])
    ms = [memories[i] for i, _, _ in head]
    answers = (slot_answers(ms, query) if claims_fn is None
               else slot_answers(ms, query, claims_fn=claims_fn.prime(ms)))
    if not answers:
        return ranked
    marked = set(answers)
    scores = sorted((r[1] for r in head), reverse=True)
    out: list[R.Ranked] = []
    for k, sc in zip(slot_order(len(head), answers), scores, strict=True):
        i, _, e = head[k]
        out.append((i, sc, {**e, **({"slot": 1.0} if k in marked else {}), "score": sc}))
    return out + tail


def name_first(
    query: str, ranked: list[R.Ranked], memories: Mapping[str, Memory], *, window: int
) -> list[R.Ranked]:
    """For a question about someone by name ("what diet is jake on?": `slots.asked_name`),
    within the top `window`, the user's own statements and profile that do not name them
    follow those that do ("About the user: Diet: pescatarian" was first for jake's diet).
    A chat's turns with named speakers keep their place (the speaker boost ranks those), and so
    do episodes and reflections (they retell a conversation; the live LoCoMo protocol lost
    R@5 0.660 → 0.653 when they moved); no candidate naming them leaves the list as it is.
    Scores are re-spread."""
    from .slots import asked_name, derived, names_person, slot_order, user_said

    name = asked_name(query)
    if name is None:
        return ranked
    head, tail = list(ranked[:window]), list(ranked[window:])
    ms = [memories[i] for i, _, _ in head]
    naming = [names_person(m, name) for m in ms]
    keep = [k for k, m in enumerate(ms)
            if naming[k] or not user_said(m) or (derived(m) and not m.is_profile)]
    if len(keep) == len(ms) or not any(naming):
        return ranked
    scores = sorted((r[1] for r in head), reverse=True)
    out = [(head[k][0], sc, {**head[k][2], "score": sc})
           for k, sc in zip(slot_order(len(head), keep), scores, strict=True)]
    return out + tail


def self_first(
    query: str, ranked: list[R.Ranked], memories: Mapping[str, Memory], *, window: int
) -> list[R.Ranked]:
    """For a question about the user themself ("which team am i on?": `slots.asks_about_user`),
    within the top `window`, the user's news of someone else (`slots.others_news_for`: "my
    coworker lucia moved over to the search team") ranked above the user's first statement of
    their own on the question's thing (`slots.own_answer_for`: "i'm on the payments team")
    moves just below it; nothing else moves. Episodes, reflections and a chat's named speakers
    keep their place. Scores are re-spread."""
    from .slots import (
        asks_about_user,
        derived,
        others_news_for,
        own_answer_for,
        tells_of_self,
        user_said,
    )

    if not asks_about_user(query):
        return ranked
    head, tail = list(ranked[:window]), list(ranked[window:])
    ms = [memories[i] for i, _, _ in head]
    personal = [user_said(m) and not derived(m) for m in ms]
    other = [p and others_news_for(m, query) for p, m in zip(personal, ms, strict=True)]
    rel = [e.get("relevance") if "formula" in e else None for _, _, e in head]  # a distance
    known = [r for r in rel if r is not None]
    floor = statistics.median(known) if len(known) >= 3 else None
    # the user's own statement on the question's thing: it says a thing the question names,
    # or answers it better than the candidates' median ("i'm a 9 to 5er" for "what are my
    # working hours?")
    first_own = next((k for k, m in enumerate(ms) if personal[k] and (
        own_answer_for(m, query) or (floor is not None and rel[k] is not None
                                     and rel[k] < floor and tells_of_self(m)))), None)
    if first_own is None or not any(other[:first_own]):
        return ranked
    moved = [k for k in range(first_own) if other[k]]
    order = ([k for k in range(first_own + 1) if not other[k]] + moved
             + list(range(first_own + 1, len(head))))
    scores = sorted((r[1] for r in head), reverse=True)
    out = [(head[k][0], sc, {**head[k][2], "score": sc})
           for k, sc in zip(order, scores, strict=True)]
    return out + tail


def update_gate(store: Any) -> Callable[[Memory, Memory], float]:
    """The cosine similarity at or above which two memories of the mind are close enough to be
    an update and the statement it replaces: its calibrated contradiction gate for the pair's
    forms (`embed.calibration`), design A's before any calibration."""
    from ..embed.calibration import DESIGN_A, form_of, known, pair_key, stored

    info = store.embedding_info()
    cal = stored(store) or (known(info) if info is not None else None)

    def gate(a: Memory, b: Memory) -> float:
        forms = {pair_key(form_of(a.content), form_of(b.content))}
        dist = cal.value("contradiction_distance", forms) if cal else DESIGN_A[
            "contradiction_distance"]
        return 1.0 - dist

    return gate


def answers_as_well(head: Sequence[R.Ranked]) -> Close | None:
    """`close(old, new, share)` for `update_first`: whether `new` rises above the median
    relevance of the candidates `head` by at least `share` × `old`'s rise — both answer the
    question well above the everyday chatter around them ("we've had to stretch the kitchen
    budget to about 22 thousand" next to "the budget for the kitchen renovation is 15k"), so
    when the newer one replaces the older, it should come first (`slots.updates_above` picks
    the share by how it found the pair; 0: above the median at all). None when the ranking
    reports no relevance (the RRF profiles): the path then needs a change word.

    `dense=True` measures both rises by the embeddings' cosine distance alone: the full-text
    part of the relevance rewards the older statement for repeating the question's words,
    which a newer one naming the new value ("went full neovim" for "what code editor do i
    use?") does not do; `slots.updates_above` asks it only of a newer statement that
    announces a change."""
    rel = {i: e["relevance"] for i, _, e in head if "formula" in e and "relevance" in e}
    if len(rel) < 3:
        return None
    floor = statistics.median(rel.values())
    cos = {i: e["cosine_distance"] for i, _, e in head if "cosine_distance" in e}
    cos_floor = statistics.median(cos.values()) if len(cos) >= 3 else None

    def close(old: Memory, new: Memory, share: float, *, dense: bool = False) -> bool:
        if old.id not in rel or new.id not in rel:
            return False
        lift_old, lift_new = floor - rel[old.id], floor - rel[new.id]
        if lift_old <= 0:  # an older statement at or below the median answers nothing
            return False
        if dense:  # the embeddings' view alone: the older one's words matched nothing more
            if cos_floor is None or old.id not in cos or new.id not in cos:
                return False
            lift_old, lift_new = cos_floor - cos[old.id], cos_floor - cos[new.id]
        return lift_old > 0 and lift_new > 0 and lift_new >= share * lift_old

    return close


def update_first(
    query: str,
    ranked: list[R.Ranked],
    memories: Mapping[str, Memory],
    similarity: Callable[[Memory, Memory], float | None],
    gate: Callable[[Memory, Memory], float],
    *,
    window: int,
    close: Close | None = None,
) -> list[R.Ranked]:
    """Within the top `window`, a newer memory that announces a change on an older
    candidate's topic (`slots.updates_above`: "gave up guitar tbh, doing piano lessons now"
    after "learning the guitar") takes the older one's place; the older one and those between
    follow. Marked `announces_update` / `older_on_topic` in the explanations; scores are
    re-spread so the list stays sorted. Claims-free, so it holds where the claims engine reads
    neither statement; the caller skips it for questions about the past."""
    from .slots import OLDER, UPDATE, updates_above

    head, tail = list(ranked[:window]), list(ranked[window:])
    above = updates_above([memories[i] for i, _, _ in head], similarity, gate, query=query,
                          close=close)
    if not above:
        return ranked
    for _ in range(len(head)):  # a memory only ever moves above an older one: this ends
        pos = {r[0]: k for k, r in enumerate(head)}
        move = next(((pos[o], pos[n]) for o, n in above.items()
                     if o in pos and n in pos and pos[n] > pos[o]), None)
        if move is None:
            break
        at, src = move
        newer = head.pop(src)
        head.insert(at, (newer[0], newer[1], {**newer[2], UPDATE: 1.0}))
        old = head[at + 1]
        head[at + 1] = (old[0], old[1], {**old[2], OLDER: 1.0})
    scores = sorted((r[1] for r in head), reverse=True)
    head = [(i, sc, {**e, "score": sc}) for (i, _, e), sc in zip(head, scores, strict=True)]
    return head + tail


def newer_wins(
    ranked: list[R.Ranked], memories: Mapping[str, Memory], *, window: int,
    claims_fn: KnownClaims | None = None,
) -> list[R.Ranked]:
    """Newer wins among the same slot (issue 14): within the top `window`, when a newer
    candidate contradicts an older one on a claim's slot ("I live in Leeds" / "I now live in
    Lisbon"), the newer takes the older one's place and the older follows it, marked `stale`
    (whether or not a supersession was ever recorded). Scores stay monotone."""
    from .slots import STALE, stale_ids

    head, tail = list(ranked[:window]), list(ranked[window:])
    ms = [memories[i] for i, _, _ in head]
    stale = stale_ids(ms) if claims_fn is None else stale_ids(ms, claims_fn=claims_fn.prime(ms))
    if not stale:
        return ranked
    for old_id, new_id in stale.items():
        pos = next((k for k, r in enumerate(head) if r[0] == old_id), None)
        new_pos = next((k for k, r in enumerate(head) if r[0] == new_id), None)
        if pos is None:
            continue
        old = head[pos]
        head[pos] = (old[0], old[1], {**old[2], STALE: 1.0})
        if new_pos is None or new_pos < pos:
            continue
        newer = head.pop(new_pos)
        head.insert(pos, (newer[0], head[pos][1], {**newer[2], "replaces_stale": 1.0}))
    # re-spread the scores so the list stays sorted: each takes the score of its place
    scores = sorted((r[1] for r in head), reverse=True)
    head = [(i, sc, {**e, "score": sc}) for (i, _, e), sc in zip(head, scores, strict=True)]
    return head + tail


def neighbour_slots(seeds: Sequence[Memory], window: int) -> dict[str, set[int]]:
    """session id -> the turn numbers within `window` of a seed of that session (seeds
    without a session or `t` have no neighbours). Pure."""
    out: dict[str, set[int]] = {}
    for m in seeds:
        if m.session_id is not None and m.t is not None:
            out.setdefault(m.session_id, set()).update(range(m.t - window, m.t + window + 1))
    return out


def runs(values: set[int]) -> list[tuple[int, int]]:
    """`values` as inclusive runs of consecutive integers, in order ({1, 2, 3, 7} →
    [(1, 3), (7, 7)]). Pure."""
    out: list[tuple[int, int]] = []
    for v in sorted(values):
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


def _neighbours(memories: Mapping[str, Memory], window: int) -> dict[str, list[str]]:
    """Candidates of the same session within `window` turns of each other."""
    by_session: dict[str, list[tuple[int, str]]] = {}
    for m in memories.values():
        if m.session_id is not None and m.t is not None:
            by_session.setdefault(m.session_id, []).append((m.t, m.id))
    out: dict[str, list[str]] = {}
    for turns in by_session.values():
        for t, mid in turns:
            out[mid] = [o for ot, o in turns if o != mid and abs(ot - t) <= window]
    return out


def _dedup(ranked: list[R.Ranked], memories: Mapping[str, Memory]) -> list[R.Ranked]:
    """Keep the best-ranked memory of each content hash, and of a message and a fact it said
    in passing (`Memory.said_in_passing`: one statement, one place in the results). Two facts of one
    message are two statements: both are kept."""
    seen: set[str] = set()
    out = []
    for r in ranked:
        m = memories[r[0]]
        if m.said_in_passing:  # a fact: not below its message
            mine, other = f"fact-of:{m.related_ids[0]}", f"message:{m.related_ids[0]}"
        else:  # a message: not below one of its facts
            mine, other = f"message:{m.id}", f"fact-of:{m.id}"
        if m.content_hash in seen or other in seen:
            continue
        seen |= {m.content_hash, mine}
        out.append(r)
    return out
