"""Neighbouring-turn context (issue 15): the turns next to the top candidates join the pool and
borrow their relevance above the candidates' median (hash embedder; quality is measured in
bench/locomo.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from salience.config import Config
from salience.mind import Mind
from salience.models import Memory, MemoryFilter
from salience.search import rank as R
from salience.search.config import get_preset
from salience.search.pipeline import neighbour_slots, runs


def test_spread_context_floor_lends_only_above_it() -> None:
    ranked = [("a", 0.9, {}), ("b", 0.5, {}), ("c", 0.4, {}), ("d", 0.45, {})]
    out = dict((i, s) for i, s, _ in R.spread_context(
        ranked, {"c": ["a"], "d": ["b"]}, 0.5, floor=0.5))
    assert out["c"] == pytest.approx(0.4 + 0.5 * 0.4)  # a is 0.4 above the floor
    assert out["d"] == pytest.approx(0.45)  # b is at the floor: lends nothing


def test_median_score() -> None:
    assert R.median_score([]) == 0.0
    assert R.median_score([("a", 3.0, {}), ("b", 1.0, {}), ("c", 2.0, {})]) == 2.0
    assert R.median_score([("a", 3.0, {}), ("b", 1.0, {})]) == 2.0


def test_neighbour_slots_by_session_and_turn() -> None:
    seeds = [
        Memory(content="x", session_id="s1", t=5),
        Memory(content="y", session_id="s1", t=9),
        Memory(content="z", session_id="s2", t=0),
        Memory(content="no session"),
    ]
    assert neighbour_slots(seeds, 1) == {"s1": {4, 5, 6, 8, 9, 10}, "s2": {-1, 0, 1}}
    assert runs({4, 5, 6, 8, 9, 10}) == [(4, 6), (8, 10)]
    assert runs({7, 1, 2, 3}) == [(1, 3), (7, 7)]
    assert runs(set()) == []


def test_reply_found_through_the_turn_it_answers(config: Config, tmp_path) -> None:
    """The reply shares no word with the question: without context it never enters the
    candidates (pool of 1); with context it joins as the top hit's neighbour, the filter
    still applies, and a turn two away stays out at window 1."""
    mind = Mind.open(tmp_path / "c.db", config=config, embedder="hash")
    try:
        mind.add_many([f"filler note {i} on groceries and errands" for i in range(20)])
        ids = mind.add_many([
            {"content": "Melanie: what did you think of the book Becoming Nicole?",
             "session_id": "s", "t": 0, "tags": ["asked"]},
            {"content": "Caroline: it taught me self-acceptance and hope", "session_id": "s",
             "t": 1},
            {"content": "Caroline: anyway, lunch tomorrow?", "session_id": "s", "t": 2},
        ])
        ask, reply, later = ids
        base = replace(get_preset("relevance"), pool=1, rewrites=0, entity_hops=False,
                       context_window=0)
        on = replace(base, context_window=1, context_weight=0.3, context_seeds=1)
        q = "What did Caroline take away from the book Becoming Nicole?"
        off_ids = [h.memory.id for h in mind.search(q, preset=base, feedback=False)]
        assert ask in off_ids and reply not in off_ids
        hits = mind.search(q, preset=on, feedback=False)
        got = [h.memory.id for h in hits]
        assert got[0] == ask and reply in got and later not in got
        assert next(h for h in hits if h.memory.id == reply).explanation["context_bonus"] > 0
        only_asked = MemoryFilter(tags=["asked"])
        assert [h.memory.id for h in mind.search(q, preset=on, flt=only_asked, feedback=False)] \
            == [ask]
    finally:
        mind.close()


def test_neighbours_scored_alone_rank_as_scoring_all_again(
    config: Config, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search scores only the neighbours that joined and merges them in: hits, scores
    and explanations are those of scoring every candidate again (the ranking before the
    change), for queries naming a participant, a time, or neither."""
    from datetime import UTC, datetime

    from salience.clock import FrozenClock
    from salience.search.pipeline import Recall

    clock = FrozenClock(datetime(2026, 5, 4, 12, tzinfo=UTC))
    mind = Mind.open(tmp_path / "r.db", config=config, embedder="hash", clock=clock)
    try:
        speakers = ("Caroline", "Melanie", "Jon")
        topics = ("painting", "the book club", "a camping trip", "adoption papers", "pottery")
        mind.add_many([
            {"content": f"{speakers[(s + t) % 3]}: about {topics[(s * 7 + t) % 5]}, turn {t} "
                        f"of chat {s} (note {s * 31 + t})",
             "session_id": f"s{s}", "t": t}
            for s in range(6) for t in range(12)
        ])
        queries = ["What did Caroline say about pottery?", "painting last week",
                   "camping trip plans", "Who filed the adoption papers?"]
        cfg = replace(get_preset("relevance"), pool=8, context_seeds=4)
        fast = [mind.search(q, preset=cfg, feedback=False) for q in queries]

        def rescore_all(score, memories, cfg, scored, added):
            return score(memories)

        monkeypatch.setattr(Recall, "_rescore", staticmethod(rescore_all))
        again = [mind.search(q, preset=cfg, feedback=False) for q in queries]
        assert any("context_bonus" in h.explanation and h.explanation["context_bonus"] > 0
                   for hits in fast for h in hits)
        for a, b in zip(fast, again, strict=True):
            assert [(h.memory.id, h.score, h.explanation) for h in a] == \
                [(h.memory.id, h.score, h.explanation) for h in b]
    finally:
        mind.close()
