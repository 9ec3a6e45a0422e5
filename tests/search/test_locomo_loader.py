"""The LoCoMo benchmark loader on a tiny synthetic file in LoCoMo's layout (not the real data)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import locomo


def write_sample(path: Path) -> None:
    sample = {
        "sample_id": "toy-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I got a kitten!"},
                {
                    "speaker": "Bob",
                    "dia_id": "D1:2",
                    "text": "Cute!",
                    "blip_caption": "a cat",
                    "img_url": ["http://example.invalid/x.jpg"],
                },
            ],
            "session_2_date_time": "10:05 am on 11 July, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:01", "text": "She is named Tom."}],
        },
        "qa": [
            {"question": "What pet?", "answer": "kitten", "evidence": ["D1:1"], "category": 4},
            {"question": "Name?", "answer": "Tom", "evidence": ["D1:1; D2:1"], "category": 1},
            {"question": "Odd", "answer": "", "evidence": ["D:2:1", "D"], "category": 2},
            {"question": "Trap", "adversarial_answer": "x", "evidence": [], "category": 5},
        ],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")


def test_loader_parses_layout(tmp_path: Path) -> None:
    p = tmp_path / "toy.json"
    write_sample(p)
    (conv,) = locomo.load(p)
    assert conv.sample_id == "toy-1"
    assert [s.index for s in conv.sessions] == [1, 2]
    assert conv.sessions[0].date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert conv.sessions[0].turns[1].content == "Bob: Cute! [image: a cat]"
    assert conv.sessions[1].turns[0].dia_id == "D2:1"
    assert [q.evidence for q in conv.questions] == [["D1:1"], ["D1:1", "D2:1"], ["D2:1"], []]


def test_evidence_and_selection_forms() -> None:
    assert locomo.parse_evidence("D9:1 D4:4 D4:6") == ["D9:1", "D4:4", "D4:6"]
    assert locomo.parse_evidence(["D30:05"]) == ["D30:5"]
    assert locomo.parse_selection("0-2,5", 10) == [0, 1, 2, 5]
    assert locomo.parse_selection(None, 3) == [0, 1, 2]
    assert locomo.parse_date("garbage") is None


def test_benchmark_scoring() -> None:
    r, n = locomo.score(["a", "x", "b"], {"a", "b"}, k=2)
    assert r == 0.5 and 0 < n < 1
    assert locomo.score(["a", "b"], {"a", "b"}, k=5) == (1.0, 1.0)


def test_peer_metrics() -> None:
    """hit@k (recall_any), all@k (recall_all) and LongMemEval's ndcg on one ranked list."""
    p = locomo.peer_scores(["x", "a", "y", "b"], {"a", "b"}, k=2)
    assert p["hit@2"] == 1.0 and p["all@2"] == 0.0
    assert p["ndcg_any@2"] == 0.5  # LongMemEval's DCG weighs ranks 1 and 2 alike
    assert locomo.peer_scores(["x", "a", "y", "b"], {"a", "b"}, k=4)["all@4"] == 1.0
    assert locomo.peer_scores(["x"], {"a"}, k=5)["hit@5"] == 0.0
    s = locomo.session_scores(["s1", "s1", "s2", "s3"], {"s2", "s9"}, k=2)
    assert s == {"sR@2": 0.5, "sHit@2": 1.0}


def test_end_to_end_hash(tmp_path: Path) -> None:
    p = tmp_path / "toy.json"
    write_sample(p)
    out = tmp_path / "r.json"
    locomo.main(
        [
            "--data",
            str(p),
            "--embedder",
            "hash",
            "--presets",
            "rrf,formula",
            "--json",
            str(out),
            "--no-brain",
        ]
    )
    res = json.loads(out.read_text())
    assert set(res["runs"]) == {"hash/rrf", "hash/formula"}
    assert res["runs"]["hash/rrf"]["overall"]["n"] == 3
