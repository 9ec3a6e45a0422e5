"""bench/live.py (the live LoCoMo benchmark): its pure parts, and an end-to-end run on a tiny
synthetic file in LoCoMo's layout (written here, not LoCoMo data) with a turn over 1,200 bytes
and dia_id prefixes that do not follow the session keys."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import live
import locomo
from salience.config import Config
from salience.models import Memory, MemoryFilter

LONG = " ".join(
    f"On day {i} of the Lisbon trip Maya walked from the Alfama hostel to the tile museum "
    f"and sketched azulejo pattern number {i} in her blue notebook."
    for i in range(1, 13)
)


def write_sample(path: Path, *, long: bool = True) -> None:
    """Three sessions; session_2 holds D1:… and D3:… ids, session_3 holds D2:…; D1:3 is over
    1,200 bytes unless `long` is false."""
    conv = {
        "speaker_a": "Maya",
        "speaker_b": "Theo",
        "session_1_date_time": "9:00 am on 2 March, 2024",
        "session_1": [
            {"speaker": "Maya", "dia_id": "D1:1",
             "text": "I adopted a border collie called Pixel from the shelter in Porto."},
            {"speaker": "Theo", "dia_id": "D1:2",
             "text": "My sister Ines starts her nursing degree at Coimbra in September."},
            {"speaker": "Maya", "dia_id": "D1:3",
             "text": LONG if long else "I sketched tiles at the azulejo museum in Lisbon."},
        ],
        "session_2_date_time": "6:30 pm on 20 March, 2024",
        "session_2": [
            {"speaker": "Theo", "dia_id": "D1:4",
             "text": "I signed up for the Lisbon half marathon on the 14th of April."},
            {"speaker": "Maya", "dia_id": "D3:1",
             "text": "Pixel learned to open the fridge door, so we bought a child lock.",
             "blip_caption": "a dog next to a fridge"},
        ],
        "session_3_date_time": "11:15 am on 2 June, 2024",
        "session_3": [
            {"speaker": "Maya", "dia_id": "D2:29",
             "text": "I finally repainted the kitchen in a pale sage green colour."},
            {"speaker": "Theo", "dia_id": "D2:30",
             "text": "I finished the half marathon in one hour and fifty two minutes."},
        ],
    }
    qa = [
        {"question": "What is the name of Maya's dog?", "evidence": ["D1:1"], "category": 4},
        {"question": "Which museum did Maya sketch in?", "evidence": ["D1:3"], "category": 4},
        {"question": "When is Theo's half marathon?", "evidence": ["D1:4", "D2:30"],
         "category": 2},
        {"question": "What colour is the kitchen?", "evidence": ["D2:29"], "category": 1},
        {"question": "What did Pixel open?", "evidence": ["D3:1"], "category": 3},
        {"question": "Adversarial", "evidence": ["D1:2"], "category": 5},
    ]
    path.write_text(json.dumps([{"sample_id": "synthetic-1", "conversation": conv, "qa": qa}]),
                    encoding="utf-8")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    p = tmp_path / "synthetic-locomo.json"
    write_sample(p)
    return p


# -- pure parts -------------------------------------------------------------------------------


def test_turn_message_rebuilds_the_turn_content() -> None:
    t = locomo.Turn("D1:2", "Bob", "Cute!", "a cat")
    assert live.turn_message(t) == "Cute! [image: a cat]"
    assert f"{t.speaker}: {live.turn_message(t)}" == t.content
    assert live.turn_message(locomo.Turn("D1:3", "Ann", "", "a map")) == "[image: a map]"


def test_tick_times_daily_capped_and_ending_before_the_next_session() -> None:
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    days = live.tick_times(start, start + timedelta(days=5))
    assert days == [start + timedelta(days=d) for d in range(1, 5)]
    assert live.tick_times(start, start + timedelta(hours=20)) == []
    assert live.tick_times(start, start - timedelta(days=3)) == []
    capped = live.tick_times(start, start + timedelta(days=200), cap=10)
    assert len(capped) == 10
    assert capped == sorted(set(capped))
    assert capped[-1] == start + timedelta(days=199)


def test_provenance_follows_related_ids_and_parents_recursively() -> None:
    chunk0 = Memory(content="a", metadata={"dia_id": "D1:3"})
    chunk1 = Memory(content="b", parent_id=chunk0.id)  # a later chunk without metadata
    fact = Memory(content="c", metadata={"dia_id": "D1:1"})
    episode = Memory(content="e", related_ids=[fact.id, chunk1.id, "gone"])
    reflection = Memory(content="r", related_ids=[episode.id], metadata={"dia_id": ["D9:9"]})
    index = {m.id: live.provenance_of(m) for m in (chunk0, chunk1, fact, episode, reflection)}
    assert live.covered_turns(chunk1.id, index) == {"D1:3"}
    assert live.covered_turns(episode.id, index) == {"D1:1", "D1:3"}
    assert live.covered_turns(reflection.id, index) == {"D1:1", "D1:3", "D9:9"}
    assert live.covered_turns("unknown", index) == frozenset()
    # a cycle terminates
    index["x"] = live.Provenance(frozenset({"D1:5"}), ("y",))
    index["y"] = live.Provenance(frozenset(), ("x",))
    assert live.covered_turns("y", index) == {"D1:5"}


def test_live_score_equals_static_score_with_one_memory_per_turn() -> None:
    ranked = ["m3", "m9", "m1", "m4"]
    evidence = {"m1", "m4", "m7"}
    for k in (1, 2, 3, 4):
        assert live.live_score([frozenset({m}) for m in ranked], evidence, k) == pytest.approx(
            locomo.score(ranked, evidence, k)
        )
    # a memory covering two evidence turns counts both for recall, once for NDCG; a second hit
    # covering the same turn is not relevant again
    r, n = live.live_score([frozenset({"a", "b"}), frozenset({"a"})], {"a", "b"}, 2)
    assert r == 1.0
    assert 0 < n < 1


def test_kept_counts() -> None:
    P = live.Provenance
    live_now = {"m1": P(frozenset({"D1:1"})), "m2": P(frozenset({"D1:2"})), "ep": P(frozenset(), ("m1",))}
    ever = {**live_now, "m3": P(frozenset({"D1:3"}))}
    k = live.kept_counts(
        ["D1:1", "D1:2", "D1:3", "D1:4"], ["D1:2", "D1:3", "D1:9"], live_now, ["m2"], ever, ["m3"]
    )
    assert k["turns"] == {"kept": 2, "total": 4}
    assert k["evidence_turns"] == {"kept": 1, "total": 2}  # D1:9 is not a turn
    assert (k["pruned"], k["superseded"]) == (1, 1)
    assert (k["turns_pruned"], k["evidence_turns_pruned"]) == (1, 1)
    assert (k["turns_superseded"], k["evidence_turns_superseded"]) == (1, 1)
    assert (k["turns_never_saved"], k["lost_evidence"]) == (1, ["D1:3"])
    total = live.merge_kept([k, k])
    assert total["turns"] == {"kept": 4, "total": 8, "rate": 0.5}
    assert total["pruned"] == 2


# -- the agent path, end to end ---------------------------------------------------------------


def test_replay_stores_the_turn_content_with_its_dia_id(sample: Path, tmp_path: Path) -> None:
    (conv,) = locomo.load(sample)
    emb = locomo.CachedEmbedder(locomo.make_embedder_for("hash"))
    run = live.replay(conv, emb, tmp_path, "c0", Config().search_preset)
    try:
        assert run.mind.queue_status()["pending_triage"] == 0
        memories = run.mind.list(MemoryFilter(include_superseded=True), limit=1000)
        by_turn: dict[str, list[Memory]] = {}
        for m in memories:
            for t in live.provenance_of(m).own:
                by_turn.setdefault(t, []).append(m)
        turns = [t for s in conv.sessions for t in s.turns]
        assert set(by_turn) >= {t.dia_id for t in turns}
        for t in turns:
            if t.dia_id != "D1:3":  # one chunk: the stored text is the static protocol's
                assert t.content in {m.content for m in by_turn[t.dia_id]}
        long_chunks = by_turn["D1:3"]
        assert len(long_chunks) >= 2  # over 1,200 bytes: chunked, every chunk keeps its dia_id
        ordered = [m.content for m in sorted(long_chunks, key=lambda m: m.chunk_index)]
        assert all(c.startswith("Maya: ") for c in ordered)  # every chunk says who speaks
        assert " ".join(c.removeprefix("Maya: ") for c in ordered) == LONG
        assert run.activity["ticks"] >= 3 and run.activity["maintenance_runs"] >= 1
        assert run.errors == []
    finally:
        run.mind.close()


def check_layout(r: dict) -> None:
    assert set(r) >= {"overall", "category", "group", "p50_ms", "p95_ms"}
    assert r["overall"]["n"] == 5  # categories 1-4 only
    assert set(r["category"]) == set(locomo.CATEGORIES.values())
    assert set(r["group"]) == {"0-4", "5-9"}
    for k in locomo.KS:
        assert 0.0 <= r["overall"][f"R@{k}"] <= 1.0


def test_main_end_to_end_writes_locomo_layout_with_kept_block(
    sample: Path, tmp_path: Path
) -> None:
    out = tmp_path / "live.json"
    md = tmp_path / "live.md"
    # --no-static: the static protocol cannot save a turn over 1,200 bytes yet (see below)
    rc = live.main(["--data", str(sample), "--embedder", "hash", "--cache", str(tmp_path / "c"),
                    "--json", str(out), "--markdown", str(md), "--no-static"])
    assert rc == 0
    res = json.loads(out.read_text(encoding="utf-8"))
    preset = Config().search_preset
    assert list(res["runs"]) == [f"hash/{preset}+live"]
    lv = res["runs"][f"hash/{preset}+live"]
    check_layout(lv)
    kept = lv["kept"]
    assert kept["turns"]["total"] == 7
    assert kept["evidence_turns"]["total"] == 6  # D1:2 is cited only by a category-5 question
    assert kept["evidence_turns"]["kept"] == 6
    assert kept["turns"]["kept"] == 7
    assert kept["pruned"] == 0 and kept["evidence_turns_pruned"] == 0
    assert kept["superseded"] >= 0 and kept["turns_never_saved"] == 0
    assert lv["errors"] == []
    assert "+live" in md.read_text(encoding="utf-8")


def test_main_puts_static_and_live_side_by_side(tmp_path: Path) -> None:
    data = tmp_path / "short.json"
    write_sample(data, long=False)
    out = tmp_path / "both.json"
    assert live.main(["--data", str(data), "--embedder", "hash", "--json", str(out)]) == 0
    res = json.loads(out.read_text(encoding="utf-8"))
    preset = Config().search_preset
    assert list(res["runs"]) == [f"hash/{preset}", f"hash/{preset}+live"]
    static, lv = res["runs"][f"hash/{preset}"], res["runs"][f"hash/{preset}+live"]
    check_layout(static)
    check_layout(lv)
    assert "kept" not in static
    assert lv["kept"]["evidence_turns"] == {"kept": 6, "total": 6, "rate": 1.0}


def test_static_protocol_saves_a_turn_over_1200_bytes(sample: Path, tmp_path: Path) -> None:
    """add_many of a turn over chunk_bytes with an explicit `t`: its chunks share the turn's
    `t` (they used to collide with each other)."""
    (conv,) = locomo.load(sample)
    mind, dia = locomo.build_mind(
        conv, locomo.make_embedder_for("hash"), tmp_path, "static"
    )
    try:
        first = mind.get(dia["D1:3"])
        chunks = [m for m in mind.store.list(limit=100) if m.parent_id == first.id]
        assert chunks and {m.t for m in chunks} == {first.t}
    finally:
        mind.close()


def test_replay_remembers_an_assistant_reply_with_the_message_it_answers(tmp_path: Path) -> None:
    """A chat with an AI assistant: "Assistant" is a reserved speaker for remember_turn, so the
    replay passes each reply with the message before it; nothing is refused, both ids kept."""
    conv = {
        "speaker_a": "Noor", "speaker_b": "Assistant",
        "session_1_date_time": "9:00 am on 2 March, 2024",
        "session_1": [
            {"speaker": "Assistant", "dia_id": "D1:1", "text": "Good morning! How can I help?"},
            {"speaker": "Noor", "dia_id": "D1:2",
             "text": "Please remember that my passport expires on 14 August 2025."},
            {"speaker": "Assistant", "dia_id": "D1:3",
             "text": "Noted: your passport expires on 14 August 2025. Renew it by June."},
            {"speaker": "Noor", "dia_id": "D1:4",
             "text": "Also my landlord Kemal raises the rent to 1,450 euros in May."},
        ],
    }
    qa = [{"question": "When does Noor's passport expire?", "evidence": ["D1:2"], "category": 4}]
    path = tmp_path / "assistant.json"
    path.write_text(json.dumps([{"sample_id": "a-1", "conversation": conv, "qa": qa}]))
    (c,) = locomo.load(path)
    emb = locomo.CachedEmbedder(locomo.make_embedder_for("hash"))
    run = live.replay(c, emb, tmp_path, "c0", Config().search_preset)
    try:
        assert run.errors == []
        assert run.rejected == ["D1:1"]  # an opener with no message to answer
        assert run.activity["assistant_without_message"] == 1
        memories = run.mind.list(MemoryFilter(include_superseded=True), limit=100)
        own = [live.provenance_of(m).own for m in memories]
        assert any({"D1:2", "D1:3"} <= ids for ids in own)  # the pair, one turn
        assert any("D1:4" in ids for ids in own)  # a last message with no reply is kept
        pair = next(m for m in memories if "D1:2" in live.provenance_of(m).own)
        assert pair.content.startswith("Noor: Please remember")
    finally:
        run.mind.close()
