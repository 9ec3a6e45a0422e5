"""Malformed requests get a 4xx with a clear JSON message, never a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_http_live import Live, live_server

MAX_BODY = 64 * 1024


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(
        tmp_path / "home", max_body_bytes=MAX_BODY, config={"max_content_bytes": 4096}
    ) as srv:
        yield srv


@pytest.fixture
def h(live: Live) -> dict[str, str]:
    return live.key(mind="m")


def _error(r: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["message"]
    if code is not None:
        assert err["code"] == code
    return dict(err)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": 123}, "content"),
        ({"content": ["a"]}, "content"),
        ({"content": None}, "content"),
        ({}, "content"),
        ({"content": "x", "salience": "high"}, "salience"),
        ({"content": "x", "salience": 11}, "salience"),
        ({"content": "x", "tags": "not-a-list"}, "tags"),
        ({"content": "x", "tags": [1, 2]}, "tags"),
        ({"content": "x", "memory_type": "gossip"}, "memory_type"),
        ({"content": "x", "metadata": [1]}, "metadata"),
        ({"content": "x", "occurred_at": "yesterday-ish"}, "occurred_at"),
        ({"content": "x", "related_ids": ["../../etc"]}, "related_ids"),
        ({"content": "x", "unknown_field": 1}, "unknown_field"),
    ],
)
def test_wrong_types_are_422_naming_the_field(
    live: Live, h: dict[str, str], body: dict[str, Any], field: str
) -> None:
    r = live.client.post("/v1/minds/m/memories", json=body, headers=h)
    err = _error(r, 422, "invalid_request")
    assert field in err["message"]
    assert any(field in ".".join(d["loc"]) for d in err["details"])


@pytest.mark.parametrize(
    "raw",
    [b"{bad json", b'{"content": "x",}', b"\xff\xfe\x00garbage", b"", b"[" * 60_000],
)
def test_bad_json_is_400(live: Live, h: dict[str, str], raw: bytes) -> None:
    r = live.client.post(
        "/v1/minds/m/memories", content=raw, headers={**h, "content-type": "application/json"}
    )
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["error"]["code"] in ("malformed_json", "invalid_request", "bad_request")


def test_non_json_content_type(live: Live, h: dict[str, str]) -> None:
    r = live.client.post(
        "/v1/minds/m/memories", content=b"content=x", headers={**h, "content-type": "text/plain"}
    )
    assert 400 <= r.status_code < 500


def test_nan_and_infinity_rejected(live: Live, h: dict[str, str]) -> None:
    for raw in (b'{"content": "x", "salience": NaN}', b'{"content": "x", "confidence": Infinity}'):
        r = live.client.post(
            "/v1/minds/m/memories", content=raw, headers={**h, "content-type": "application/json"}
        )
        _error(r, 422)


def test_body_over_the_limit_is_413_before_parsing(live: Live, h: dict[str, str]) -> None:
    r = live.client.post("/v1/minds/m/memories", json={"content": "x" * MAX_BODY}, headers=h)
    _error(r, 413, "payload_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: streamed, chunked encoding
        yield b'{"content": "'
        for _ in range(MAX_BODY // 1024 + 2):
            yield b"y" * 1024
        yield b'"}'

    r = live.client.post(
        "/v1/minds/m/memories", content=chunks(), headers={**h, "content-type": "application/json"}
    )
    _error(r, 413, "payload_too_large")
    # nothing was stored: the mind was never even created (reads never create one)
    _error(live.client.get("/v1/minds/m/stats", headers=h), 404, "mind_not_found")


def test_content_over_the_configured_max_is_413(live: Live, h: dict[str, str]) -> None:
    r = live.client.post("/v1/minds/m/memories", json={"content": "z" * 5000}, headers=h)
    err = _error(r, 413, "content_too_large")
    assert "4,096" in err["message"]


@pytest.mark.parametrize("content", ["\x00nul", "   ", "\ud800 lone surrogate"])
def test_bad_text_is_422(live: Live, h: dict[str, str], content: str) -> None:
    raw = json.dumps({"content": content}).encode()  # ASCII escapes, so a lone \ud800 fits
    r = live.client.post(
        "/v1/minds/m/memories", content=raw, headers={**h, "content-type": "application/json"}
    )
    assert r.status_code == 422, r.text


def test_batch_limits(live: Live, h: dict[str, str]) -> None:
    _error(live.client.post("/v1/minds/m/memories/batch", json={"items": []}, headers=h), 422)
    items = [{"content": f"{i}"} for i in range(501)]
    _error(live.client.post("/v1/minds/m/memories/batch", json={"items": items}, headers=h), 422)


def test_bad_query_and_path_values(live: Live, h: dict[str, str]) -> None:
    live.client.post("/v1/minds/m/memories", json={"content": "x"}, headers=h)  # reads need a mind
    for params in (
        {"limit": 0},
        {"limit": "ten"},
        {"offset": -1},
        {"order": "random"},
        {"memory_type": "gossip"},
    ):
        _error(live.client.get("/v1/minds/m/memories", params=params, headers=h), 422)
    _error(live.client.get("/v1/minds/m/memories/not-an-id", headers=h), 404, "not_found")
    r = live.client.patch("/v1/minds/m/memories/" + "0" * 32, json={"salience": 5}, headers=h)
    _error(r, 404, "not_found")


def test_patch_rejects_nulls_for_required_fields(live: Live, h: dict[str, str]) -> None:
    mid = live.client.post("/v1/minds/m/memories", json={"content": "x"}, headers=h).json()["id"]
    for body in ({"content": None}, {"salience": None}, {"tags": None}, {"content": ""}):
        _error(live.client.patch(f"/v1/minds/m/memories/{mid}", json=body, headers=h), 422)
    assert live.client.get(f"/v1/minds/m/memories/{mid}", headers=h).json()["content"] == "x"


def test_search_bodies(live: Live, h: dict[str, str]) -> None:
    live.client.post("/v1/minds/m/memories", json={"content": "x"}, headers=h)  # reads need a mind
    for body in (
        {"query": ""},
        {"query": 5},
        {"query": "x", "filter": {"since": "soon"}},
        {"query": "x", "filter": {"min_salience": 50}},
        {"query": "x", "limit": -1},
    ):
        _error(live.client.post("/v1/minds/m/search", json=body, headers=h), 422)
    r = live.client.post("/v1/minds/m/search", json={"query": "\x00"}, headers=h)
    _error(r, 422, "invalid_input")
