"""Issue 17 items 4a, 4c, 5 and 6: the server's resources are bounded per tenant, quotas hold
under concurrency, huge queries are refused or bounded, and read keys never write."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "interfaces"))
import httpx
from test_http_live import live_server, serve

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed.hash import HashEmbedder
from salience.errors import ContentTooLarge
from salience.interfaces.auth import ServerDB
from salience.interfaces.http import create_app
from salience.interfaces.quotas import QuotaEmbedder, QuotaExceeded
from salience.mind import Mind
from salience.search.candidates import MAX_ENTITY_GRAMS, entity_ngrams


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


# -- 4a: LRU pool and per-tenant mind quota ----------------------------------------------------
def test_minds_per_tenant_are_capped_and_the_pool_stays_bounded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = Config(home=home, embedder="hash", server_max_open_minds=3, tenant_max_minds=20)
    db = ServerDB.at_home(home, clock=FrozenClock())
    with Mind.open("bystander", config=config) as m:  # another tenant's, never opened by the server
        m.add("calm data")
    app = create_app(config, server_db=db)
    pool = app.state.pool
    key_a, _ = db.create_key(scope="write", tenant="greedy")
    key_b, _ = db.create_key(scope="write", mind="bystander", tenant="calm")
    ha, hb = ({"Authorization": f"Bearer {k}"} for k in (key_a, key_b))
    try:
        with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
            before = _fds()
            for i in range(20):
                r = client.post("/v1/minds", json={"name": f"g{i}"}, headers=ha)
                assert r.status_code == 201, r.text
                r = client.post(f"/v1/minds/g{i}/memories", json={"content": f"n {i}"}, headers=ha)
                assert r.status_code == 201, r.text
                assert pool.open_count() <= 3
            grown = _fds() - before
            r = client.post("/v1/minds", json={"name": "g20"}, headers=ha)
            assert r.status_code == 403, r.text
            assert r.json()["error"]["code"] == "mind_quota_exceeded"
            # evicted minds reopen on demand; the other tenant is unaffected
            for i in (0, 7, 19):
                r = client.get(f"/v1/minds/g{i}/memories", headers=ha)
                assert r.status_code == 200 and r.json()["items"][0]["content"] == f"n {i}"
            r = client.get("/v1/minds/bystander/memories", headers=hb)
            assert r.status_code == 200 and r.json()["items"][0]["content"] == "calm data"
            r = client.post("/v1/minds/bystander/memories", json={"content": "ok"}, headers=hb)
            assert r.status_code == 201, r.text
            assert pool.open_count() <= 3
    finally:
        db.close()
    assert grown < 30, f"{grown} descriptors for 20 minds with at most 3 open"


@pytest.mark.slow
def test_mind_quota_and_pool_on_postgres(pg_dsn: str, tmp_path: Path) -> None:
    """4a on PostgreSQL (minds are schemas, the key database is PostgreSQL's `salience_server`):
    the tenant's quota refuses a third mind, at most one mind stays open, the evicted one
    reopens. (Open PostgreSQL minds share one connection pool: no descriptor per mind.)"""
    import uuid

    from pydantic import SecretStr

    tag = uuid.uuid4().hex[:8]
    config = Config(home=tmp_path / "home", embedder="hash", backend="postgres",
                    dsn=SecretStr(pg_dsn), server_max_open_minds=1, tenant_max_minds=2)
    db = ServerDB.for_config(config, clock=FrozenClock())
    app = create_app(config, server_db=db)
    key, _ = db.create_key(scope="write", tenant=f"greedy-{tag}")
    h = {"Authorization": f"Bearer {key}"}
    names = [f"pq{i}-{tag}" for i in range(2)]

    try:
        with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
            for name in names:
                assert client.post("/v1/minds", json={"name": name}, headers=h).status_code == 201
                r = client.post(f"/v1/minds/{name}/memories", json={"content": name}, headers=h)
                assert r.status_code == 201, r.text
                assert app.state.pool.open_count() <= 1
            r = client.post("/v1/minds", json={"name": f"pq2-{tag}"}, headers=h)
            assert r.status_code == 403 and r.json()["error"]["code"] == "mind_quota_exceeded"
            for name in names:  # the first was evicted by the second: it reopens
                r = client.get(f"/v1/minds/{name}/memories", headers=h)
                assert r.status_code == 200 and r.json()["items"][0]["content"] == name
                assert app.state.pool.open_count() <= 1
    finally:
        db.close()
        for name in names:
            with Mind.open(name, config=config) as m:
                m.store.drop_mind()  # type: ignore[attr-defined]


# -- 4c: huge queries ------------------------------------------------------------------------
def test_huge_queries_are_refused_or_bounded(backend_config: Config) -> None:
    import uuid

    with Mind.open(f"q{uuid.uuid4().hex[:8]}", config=backend_config) as m:
        try:
            m.add_many([f"note {i} about word{i} and more" for i in range(20)])
            huge = " ".join(f"word{i}" for i in range(70_000))
            with pytest.raises(ContentTooLarge):
                m.search(huge)
            with pytest.raises(ContentTooLarge):
                m.catch_up(huge)
            # just under the limit: thousands of distinct words still answer
            big = " ".join(f"w{i}" for i in range(6_000))[: backend_config.max_query_bytes - 10]
            assert isinstance(m.search(big, limit=5), list)
            assert isinstance(m.prefetch([], huge, limit=3), list)  # a message is cut, not refused
        finally:
            drop = getattr(m.store, "drop_mind", None)
            if drop is not None:
                drop()


def test_entity_ngrams_are_capped() -> None:
    grams = entity_ngrams(" ".join(f"w{i}" for i in range(50_000)))
    assert len(grams) == MAX_ENTITY_GRAMS


# -- 5: quota race ----------------------------------------------------------------------------
class _SlowHash(HashEmbedder):
    """The hash embedder, holding each call open briefly so concurrent calls overlap."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__(dim=16)
        self.fail = fail
        self.barrier = threading.Barrier(2, timeout=5)

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        with contextlib.suppress(threading.BrokenBarrierError):
            self.barrier.wait()  # calls pair up in flight: the check-then-record window
        if self.fail:
            raise RuntimeError("provider down")
        return super().embed_passages(texts)


def test_quota_holds_under_200_concurrent_embeds(backend_config: Config) -> None:
    """On the server database `backend_config` selects: an SQLite file, or PostgreSQL's
    `salience_server` schema (pooled connections, the advisory write lock)."""
    import uuid

    db = ServerDB.for_config(backend_config, clock=FrozenClock())
    tenant = f"t-{uuid.uuid4().hex[:8]}"  # PostgreSQL's server schema is shared by the session
    db.set_tenant(tenant, "free", monthly_quota=50)
    emb = QuotaEmbedder(_SlowHash(), db, tenant)
    accepted, refused = [], []

    def one() -> None:
        try:
            out = emb.embed_passages(["a memory"])
            assert isinstance(out, np.ndarray)
            accepted.append(1)
        except QuotaExceeded:
            refused.append(1)

    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    emb.inner.barrier.abort()
    assert len(accepted) == 50, (len(accepted), len(refused))
    assert db.usage(tenant) == 50
    db.close()


def test_a_failed_embed_is_refunded(tmp_path: Path) -> None:
    db = ServerDB(tmp_path / "server.db", clock=FrozenClock())
    db.set_tenant("t", "free", monthly_quota=50)
    inner = _SlowHash(fail=True)
    inner.barrier = threading.Barrier(1)
    emb = QuotaEmbedder(inner, db, "t")
    for _ in range(60):
        with pytest.raises(RuntimeError):
            emb.embed_passages(["x", "y"])
    assert db.usage("t") == 0
    db.close()


# -- 6: read keys never write -----------------------------------------------------------------
def test_read_keys_do_not_move_salience_or_retrieval_counts(
    backend_config: Config, tmp_path: Path
) -> None:
    """On SQLite and PostgreSQL (whose retrieval counters live in a side table)."""
    import uuid

    m = f"rk{uuid.uuid4().hex[:8]}"  # PostgreSQL's database is shared by the session
    kw = {"backend": backend_config.backend, "dsn": backend_config.dsn}
    try:
        with live_server(tmp_path / "home", config=kw) as live:
            w, r = live.key(mind=m), live.key("read", mind=m)
            mid = live.client.post(
                f"/v1/minds/{m}/memories",
                json={"content": "Maya is allergic to penicillin", "salience": 2.0},
                headers=w,
            ).json()["id"]
            calls = [
                ("POST", f"/v1/minds/{m}/search", {"json": {"query": "penicillin allergy"}}),
                ("POST", f"/v1/minds/{m}/prefetch", {"json": {"current": "is Maya allergic?"}}),
                ("GET", f"/v1/minds/{m}/catch-up", {}),
                ("POST", f"/v1/minds/{m}/recall", {"json": {"query": "penicillin"}}),
                ("POST", f"/v1/minds/{m}/context", {"json": {"query": "penicillin"}}),
            ]
            for _ in range(3):  # 15 reads (read_only() undone: salience 2.0 -> 4.45)
                for method, path, req in calls:
                    resp = live.client.request(method, path, headers=r, **req)
                    assert resp.status_code in (200, 404), (path, resp.text)
            assert live.app.state.pool.settle(60)  # any after-response write has run
            got = live.client.get(f"/v1/minds/{m}/memories/{mid}", headers=r).json()
            assert got["salience"] == 2.0 and got["retrieval_count"] == 0, got
            assert got["last_retrieved_at"] is None
            assert live.client.post(
                f"/v1/minds/{m}/feedback", json={"ids": [mid], "useful": True}, headers=r
            ).status_code == 403
            # the same search with a write key does count: the test can fail
            live.client.post(f"/v1/minds/{m}/search", json={"query": "penicillin"}, headers=w)
            assert live.app.state.pool.settle(60)  # the bump is written after the response
            got = live.client.get(f"/v1/minds/{m}/memories/{mid}", headers=w).json()
            assert got["retrieval_count"] == 1 and got["salience"] > 2.0
    finally:
        if backend_config.backend == "postgres":
            with Mind.open(m, config=backend_config) as mind:
                mind.store.drop_mind()  # type: ignore[attr-defined]
