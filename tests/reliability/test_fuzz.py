"""Property-based fuzzing (hypothesis): chunking, full-text query sanitising on both backends,
ranking, the config parser and the importers. Nothing here may raise anything but a clear
`SalienceError` (or, for config, a pydantic validation error)."""

from __future__ import annotations

import json
import os
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from salience.config import Config
from salience.errors import SalienceError
from salience.ingest.chunking import chunk_text
from salience.mind import Mind
from salience.models import Candidate, Importance, Memory
from salience.search.config import PROFILES
from salience.search.query import query_terms
from salience.search.rank import formula_rank, rrf_fuse, rrf_rank, spread_context


def fuzz(examples: int) -> settings:
    """Hypothesis settings of this suite: no deadline (shared CI machines), no example
    database, `examples` generated cases."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )


# -- chunking: extends tests/core/test_chunking.py with adversarial alphabets --------------------
_MULTIBYTE = st.characters(
    codec="utf-8", categories=["Lo", "So", "Mn", "Zs", "Cc", "Sk", "Nd", "Po"]
)
_hard_text = st.lists(
    st.one_of(
        st.text(_MULTIBYTE, min_size=1, max_size=400),
        st.sampled_from(["\n\n", "\n", ". ", "。", "! ", "… ", " ", "\t", "\u3000", "\u200b"]),
        st.text(st.sampled_from("😀👍🏽é̃𝔸中"), min_size=50, max_size=600),  # long words of 2–4 B
    ),
    max_size=30,
).map("".join)


@fuzz(150)
@given(_hard_text, st.integers(min_value=8, max_value=300))
def test_chunking_adversarial(text: str, limit: int) -> None:
    chunks = chunk_text(text, limit)
    assert chunk_text(text, limit) == chunks  # deterministic
    for c in chunks:
        raw = c.encode("utf-8")
        assert c and c == c.strip() and len(raw) <= limit
        assert raw.decode("utf-8") == c
        assert chunk_text(c, limit) == [c]  # a chunk is a fixed point
    assert "".join("".join(chunks).split()) == "".join(text.split())  # round trip
    if len(text.strip().encode("utf-8")) <= limit:
        assert chunks == ([text.strip()] if text.strip() else [])


# -- FTS query sanitising --------------------------------------------------------------------------
_NASTY = [
    '"',
    "'",
    '""',
    "''",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b, 2)",
    "*",
    "-",
    "^",
    ":",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "col:",
    "content:",
    "\\",
    ";",
    "--",
    "/*",
    "*/",
    "' OR 1=1 --",
    '"; DROP TABLE memories; --',
    "%",
    "_",
    "?",
    "$1",
    "\u202e",
    "\ufeff",
    "ﬁ",
    "İ",
    "ß",
    "\x01",
    "\x1b[31m",
    "\t",
    "\r\n",
    "&",
    "|",
    "!",
    "<->",
    "@@",
    "::",
    "e'\\x00'",
    "\u0301",
]
_query = st.one_of(
    st.text(max_size=80),
    st.lists(st.one_of(st.sampled_from(_NASTY), st.text(max_size=12)), max_size=12).map(" ".join),
    st.text(st.characters(codec="utf-8"), min_size=500, max_size=2500),
)
QUERIES_PER_EXAMPLE = 25  # 400 examples × 25 = 10,000 queries per backend


def _seed(mind: Mind) -> None:
    mind.add_many(
        [
            f'the {w} harbour light number {i} AND NEAR * said "quote" o\'clock'
            for i, w in enumerate(
                ["red", "green", "blue", "ferry", "tide", "OR", "NOT", "café", "中文", "ß"]
            )
        ]
    )


@pytest.fixture(scope="module")
def sqlite_mind(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mind]:
    home = tmp_path_factory.mktemp("fuzz")
    with Mind.open(home / "fuzz.db", config=Config(home=home, embedder="hash")) as m:
        _seed(m)
        yield m


@pytest.fixture(scope="module")
def pg_mind(pg_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mind]:
    cfg = Config(home=tmp_path_factory.mktemp("fuzzpg"), embedder="hash")
    with Mind.open(f"fuzz-{uuid.uuid4().hex[:8]}", config=cfg, dsn=pg_dsn) as m:
        _seed(m)
        try:
            yield m
        finally:
            m.store.drop_mind()  # type: ignore[attr-defined]


def _fuzz_queries(mind: Mind, queries: list[str]) -> None:
    for q in queries:
        # the store path: any terms, no exception of any kind
        mind.store.search_text([*q.split(" "), q], limit=5)
        mind.store.search_text(query_terms(q), limit=5)
    for q in queries[:1]:
        # the whole pipeline (one query per example: it embeds and ranks, so it is slower): only a clear InvalidInput (empty query, NUL, ...) is allowed
        try:
            mind.search(q, limit=5, feedback=False)
        except SalienceError as e:
            assert e.code == "invalid_input", e


@fuzz(400)
@given(st.lists(_query, min_size=QUERIES_PER_EXAMPLE, max_size=QUERIES_PER_EXAMPLE))
def test_fts_queries_sqlite(sqlite_mind: Mind, queries: list[str]) -> None:
    _fuzz_queries(sqlite_mind, queries)


@pytest.mark.slow
@fuzz(400)
@given(st.lists(_query, min_size=QUERIES_PER_EXAMPLE, max_size=QUERIES_PER_EXAMPLE))
def test_fts_queries_postgres(pg_mind: Mind, queries: list[str]) -> None:
    _fuzz_queries(pg_mind, queries)


def test_fts_nul_and_surrogates_are_rejected_cleanly(sqlite_mind: Mind) -> None:
    """Text that is not valid Unicode is refused by `Mind` (the store expects valid text)."""
    for q in ["a\x00b", "\ud800 lone surrogate", "\udcff"]:
        with pytest.raises(SalienceError) as info:
            sqlite_mind.search(q, limit=3, feedback=False)
        assert info.value.code == "invalid_input"
    assert sqlite_mind.store.search_text(["a\x00b"], limit=3) is not None


# -- ranking ---------------------------------------------------------------------------------------
NOW = datetime(2026, 3, 1, tzinfo=UTC)
_when = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
)
_memory = st.builds(
    lambda sal, use, conf, count, created, last, imp: Memory(
        content="x",
        salience=sal,
        usefulness=use,
        confidence=conf,
        retrieval_count=count,
        created_at=created,
        updated_at=created,
        last_retrieved_at=last,
        importance=imp,
    ),
    st.floats(1, 10),
    st.floats(0, 1),
    st.floats(0, 1),
    st.integers(0, 10**12),
    _when,
    st.none() | _when,
    st.sampled_from(list(Importance)),
)


def _cands(ids: list[str], scores: list[float]) -> list[Candidate]:
    return [
        Candidate(id=i, rank=r, score=s)
        for r, (i, s) in enumerate(zip(ids, scores, strict=True), 1)
    ]


@fuzz(300)
@given(
    st.lists(_memory, min_size=1, max_size=40),
    st.data(),
    st.sampled_from(sorted(PROFILES)),
)
def test_ranking_finite_sorted_and_order_independent(
    mems: list[Memory], data: st.DataObject, profile: str
) -> None:
    ids = [f"m{i:03d}" for i in range(len(mems))]
    memories = dict(zip(ids, mems, strict=True))
    pick = st.lists(st.sampled_from(ids), unique=True, max_size=len(ids))
    text_ids, vec_ids = data.draw(pick), data.draw(pick)
    bm25 = data.draw(st.lists(st.floats(0, 0.9999), min_size=len(text_ids), max_size=len(text_ids)))
    cos = data.draw(st.lists(st.floats(-1, 1), min_size=len(vec_ids), max_size=len(vec_ids)))
    sources = {"text": _cands(text_ids, bm25), "vector": _cands(vec_ids, cos)}
    dist = {i: data.draw(st.integers(0, 6)) for i in data.draw(pick)}

    fused = rrf_fuse(sources)
    results = [
        rrf_rank(fused, memories, PROFILES[profile], NOW, dist),
        formula_rank(
            memories,
            cosine=dict(zip(vec_ids, cos, strict=True)),
            bm25=dict(zip(text_ids, bm25, strict=True)),
            entity_ids=set(text_ids[:2]),
            now=NOW,
        ),
    ]
    neigh = {i: [ids[(k + 1) % len(ids)]] for k, i in enumerate(ids)}
    results.append(spread_context(results[0], neigh, 0.3))
    for ranked in results:
        for _, score, expl in ranked:
            assert score == score and abs(score) != float("inf")
            assert all(v == v and abs(v) != float("inf") for v in expl.values())
        keys = [(-s, i) for i, s, _ in ranked]
        assert keys == sorted(keys)  # best first, ties broken by id
    # same input in another order: the same ranking
    shuffled = list(memories.items())
    random.Random(len(ids)).shuffle(shuffled)
    again = formula_rank(
        dict(shuffled),
        cosine=dict(zip(vec_ids, cos, strict=True)),
        bm25=dict(zip(text_ids, bm25, strict=True)),
        entity_ids=set(text_ids[:2]),
        now=NOW,
    )
    assert [(i, s) for i, s, _ in again] == [(i, s) for i, s, _ in results[1]]
    assert rrf_fuse(dict(reversed(list(sources.items())))) == fused


# -- the config parser ---------------------------------------------------------------------------
_FIELDS = sorted(Config.model_fields)
_junk = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=60),
    st.sampled_from(
        [
            "-1",
            "0",
            "nan",
            "inf",
            "-inf",
            "1e999",
            "[]",
            "{}",
            "[1,",
            "null",
            "true",
            "~/../../etc",
            "sqlite",
            "postgres",
            '{"a": [}',
            "9" * 400,
        ]
    ),
)


@contextmanager
def _env(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@fuzz(400)
@given(st.dictionaries(st.sampled_from(_FIELDS), _junk, min_size=1, max_size=4))
def test_config_env_junk_is_a_validation_error(values: dict[str, str]) -> None:
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    env = {f"SALIENCE_{k.upper()}": v for k, v in values.items()}
    env.setdefault("SALIENCE_HOME", "/tmp/salience-fuzz-home")
    with _env(env):
        try:
            cfg = Config()
        except (ValidationError, SettingsError):
            return
        assert isinstance(cfg.home, Path)


# -- importers -------------------------------------------------------------------------------------
_MBOX = (
    b"From ana@example.com Tue Feb  3 09:30:00 2026\n"
    b"Subject: =?utf-8?q?Flight_to_Lisbon?=\nFrom: Ana <ana@example.com>\nTo: me@example.com\n"
    b"Date: Tue, 03 Feb 2026 09:30:00 +0100\nMessage-ID: <a1@example.com>\n"
    b"Content-Type: text/plain; charset=utf-8\n\nYour flight TP123 leaves at 10:00.\n\n"
    b"From bob@example.com Tue Feb  3 10:30:00 2026\n"
    b"Subject: Dinner\nDate: Tue, 03 Feb 2026 10:30:00 +0100\n"
    b"Content-Type: multipart/alternative; boundary=XX\n\n--XX\nContent-Type: text/html\n\n"
    b"<p>Dinner on <b>Friday</b></p>\n--XX--\n"
)
_ICS = (
    b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:e1@x\r\n"
    b"DTSTART:20260303T100000Z\r\nDTEND:20260303T110000Z\r\nSUMMARY:Dentist\r\n"
    b"ATTENDEE;CN=Ana:mailto:ana@example.com\r\nLOCATION:Rua 1\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n"
    b"END:VEVENT\r\nBEGIN:VEVENT\r\nUID:e2@x\r\nDTSTART;VALUE=DATE:20260304\r\n"
    b"SUMMARY:Holiday\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
_JSONL = (
    json.dumps(
        {
            "conversation": "c1",
            "messages": [
                {
                    "role": "user",
                    "content": "My sister lives in Porto",
                    "timestamp": "2026-02-01T10:00Z",
                },
                {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
                {"role": "tool", "content": "ok"},
            ],
        }
    ).encode()
    + b"\n"
    + json.dumps({"role": "user", "content": "I like green tea"}).encode()
    + b"\n"
    + json.dumps({"role": "assistant", "content": "Got it", "created_at": 1767225600}).encode()
    + b"\n"
)
_SEEDS = {"mbox": _MBOX, "ics": _ICS, "chat": _JSONL}
_TOKENS = [
    b"\n",
    b"\r\n",
    b":",
    b";",
    b"=",
    b"\x00",
    b"\xff\xfe",
    b"{",
    b"}",
    b"[",
    b'"',
    b"BEGIN:VEVENT\r\n",
    b"END:VCALENDAR",
    b"From x\n",
    b"--XX\n",
    b"=?utf-8?b?@@?=",
    b"DTSTART:99999999T",
    b"null",
    b"9" * 50,
    "é中😀".encode(),
]


@st.composite
def _mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "dup"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from(_TOKENS) | st.binary(max_size=20))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 40))]
        elif op == "truncate":
            del data[pos:]
        else:
            end = pos + draw(st.integers(1, 200))
            data[pos:pos] = data[pos:end]
    return bytes(data)


@pytest.fixture(scope="module")
def import_mind(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mind]:
    home = tmp_path_factory.mktemp("imp")
    with Mind.open(home / "imp.db", config=Config(home=home, embedder="hash")) as m:
        yield m


@pytest.mark.parametrize("kind", ["mbox", "ics", "chat"])
def test_importers_survive_mutations(
    kind: str, import_mind: Mind, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp(f"mut-{kind}")
    importer = {
        "mbox": import_mind.import_mbox,
        "ics": import_mind.import_ics,
        "chat": import_mind.import_chat,
    }[kind]
    outcomes = {"ok": 0, "error": 0}

    @fuzz(60)
    @given(_mutated(_SEEDS[kind]))
    def run(blob: bytes) -> None:
        path = folder / f"{uuid.uuid4().hex}.{kind}"
        path.write_bytes(blob)
        try:
            report = importer(path)
        except SalienceError as e:
            assert str(e)  # a clear message
            outcomes["error"] += 1
            return
        assert report.items >= report.saved + report.skipped + report.invalid - report.queued
        outcomes["ok"] += 1

    run()
    assert outcomes["ok"] + outcomes["error"] > 0


def test_importer_on_the_unmutated_seeds(import_mind: Mind, tmp_path: Path) -> None:
    for kind, blob in _SEEDS.items():
        p = tmp_path / f"seed.{kind}"
        p.write_bytes(blob)
        rep = import_mind._ingest().import_file(kind, p)
        assert rep.items >= 2, (kind, rep)
