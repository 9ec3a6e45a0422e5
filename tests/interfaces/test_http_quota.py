"""Tenant tiers and monthly embedding quotas (design B §10.2–10.3) through the HTTP API."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_http_live import Live, live_server

from salience.config import Config
from salience.errors import InvalidInput, ProviderUnavailable
from salience.interfaces.quotas import QUOTA_WARNING_FRACTION, Tier, tier_embedder

HEADER = "x-salience-quota-warning"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(tmp_path / "home") as srv:
        yield srv


def test_quota_counts_adds_and_searches_warns_then_refuses(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    h = live.key(tenant="acme")
    live.db.set_tenant("acme", "free", monthly_quota=10)
    assert live.client.post("/v1/minds", json={"name": "kb"}, headers=h).status_code == 201
    caplog.set_level(logging.WARNING, logger="salience.quota")

    items = [{"content": f"fact {i}"} for i in range(5)]
    r = live.client.post("/v1/minds/kb/memories/batch", json={"items": items}, headers=h)
    assert r.status_code == 201
    assert HEADER not in r.headers
    assert live.db.usage("acme") == 5

    r = live.client.post("/v1/minds/kb/search", json={"query": "fact 1"}, headers=h)
    assert r.status_code == 200
    used = live.db.usage("acme")
    assert 6 <= used <= 8  # the query, plus any query variations the deep search embeds
    for i in range(8 - used):
        assert HEADER not in r.headers
        r = live.client.post("/v1/minds/kb/memories", json={"content": f"more {i}"}, headers=h)
        assert r.status_code == 201
    assert live.db.usage("acme") == 8
    assert r.headers[HEADER] == "8/10 monthly embeddings used (tier free)"
    assert "acme" in caplog.text and "over 80%" in caplog.text

    r = live.client.post(
        "/v1/minds/kb/memories/batch",
        json={"items": [{"content": "a"}, {"content": "b"}, {"content": "c"}]},
        headers=h,
    )
    assert r.status_code == 429
    err = r.json()["error"]
    assert err["code"] == "quota_exceeded"
    assert err["details"] == {"tier": "free", "quota": 10, "current": 8, "requested": 3}
    assert live.db.usage("acme") == 8
    assert live.client.get("/v1/minds/kb/memories", headers=h).json()["items"]

    # reads that embed nothing still work; a new month starts from zero
    assert live.client.get("/v1/minds/kb/memories", headers=h).status_code == 200
    live.clock.advance(days=31)
    r = live.client.post(
        "/v1/minds/kb/memories/batch",
        json={"items": [{"content": "a"}, {"content": "b"}, {"content": "c"}]},
        headers=h,
    )
    assert r.status_code == 201
    assert live.db.usage("acme") == 3


def test_tier_quota_applies_without_override(live: Live) -> None:
    h = live.key(tenant="big")
    live.db.set_tenant("big", "enterprise")
    live.client.post("/v1/minds", json={"name": "big-kb"}, headers=h)
    r = live.client.post("/v1/minds/big-kb/memories", json={"content": "x"}, headers=h)
    assert r.status_code == 201
    assert HEADER not in r.headers
    assert live.db.usage("big") == 1


def test_no_tenant_means_no_quota(live: Live) -> None:
    h = live.key(mind="solo")
    items = [{"content": f"fact {i}"} for i in range(20)]
    r = live.client.post("/v1/minds/solo/memories/batch", json={"items": items}, headers=h)
    assert r.status_code == 201
    assert HEADER not in r.headers
    assert live.db.tenants() == []


def test_explicit_provider_outside_the_tier_is_refused(tmp_path: Path) -> None:
    with live_server(tmp_path / "home", config={"embedder": "openai"}) as live:
        h = live.key(tenant="small")
        live.client.post("/v1/minds", json={"name": "s"}, headers=h)
        r = live.client.post("/v1/minds/s/memories", json={"content": "x"}, headers=h)
        assert r.status_code == 403
        err = r.json()["error"]
        assert err["code"] == "tier_forbidden"
        assert err["details"] == {"tier": "free", "provider": "openai"}
        assert "not allowed for tier 'free'" in err["message"]


def test_auto_skips_providers_the_tier_disallows(tmp_path: Path) -> None:
    cfg = Config(home=tmp_path, embedder="auto")
    emb = tier_embedder(cfg, Tier("hash-only", frozenset({"hash"}), None))
    status = emb.status()
    assert status.provider == "hash"
    assert status.skipped["e5"] == "not allowed for tier 'hash-only'"
    assert status.skipped["openai"] == "not allowed for tier 'hash-only'"
    with pytest.raises(ProviderUnavailable, match="no embedding provider allowed"):
        tier_embedder(cfg, Tier("nothing", frozenset(), None))


def test_tenant_settings_are_validated(live: Live) -> None:
    with pytest.raises(InvalidInput, match="unknown tier"):
        live.db.set_tenant("t", "platinum")
    with pytest.raises(InvalidInput):
        live.db.set_tenant("t", "free", monthly_quota=-1)
    assert QUOTA_WARNING_FRACTION == 0.8
