"""Fixtures of the embedding tests: the real local models (loaded once per session) and a small
fake embedding server on 127.0.0.1 (the only fake: it stands at the network edge)."""

from __future__ import annotations

import importlib.util
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from salience.embed import E5Embedder, OnnxEmbedder


@pytest.fixture(autouse=True)
def _no_salience_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Config() reads SALIENCE_* variables: the developer's own settings must not leak in."""
    for var in list(os.environ):
        if var.startswith("SALIENCE_"):
            monkeypatch.delenv(var)


@pytest.fixture
def hide(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Make packages look uninstalled to `importlib.util.find_spec` (the edge providers check)."""

    def hide(*names: str) -> None:
        real = importlib.util.find_spec

        def find_spec(name: str, package: str | None = None) -> Any:
            return None if name in names else real(name, package)

        monkeypatch.setattr(importlib.util, "find_spec", find_spec)

    return hide


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    embedder = E5Embedder(threads=2, batch_size=8)
    embedder.load()
    return embedder


@pytest.fixture(scope="session")
def minilm() -> OnnxEmbedder:
    embedder = OnnxEmbedder.minilm(threads=2, batch_size=8)
    embedder.load()
    return embedder


Reply = tuple[int, Any, float]  # status, JSON-able body or raw str, delay in seconds


@dataclass
class FakeServer:
    """What the fake server answers, and what it received."""

    url: str
    dim: int = 8
    requests: list[dict[str, Any]] = field(default_factory=list)
    # (path, json body) -> Reply; None means the default well-behaved answer
    respond: Callable[[str, dict[str, Any]], Reply | None] = lambda path, body: None

    def vector(self, text: str) -> list[float]:
        """A deterministic, text-dependent vector (not normalised, like many servers' output)."""
        seed = sum(ord(c) for c in text) + len(text)
        return [1.0 + (seed * (i + 3)) % 97 for i in range(self.dim)]

    def expected(self, texts: list[str]) -> Any:
        """What an embedder should return for `texts`: the vectors, L2-normalised."""
        import numpy as np

        raw = np.array([self.vector(t) for t in texts], dtype=np.float32)
        return raw / np.linalg.norm(raw, axis=1, keepdims=True)

    def default_reply(self, path: str, body: dict[str, Any]) -> Reply:
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else inputs
        vectors = [self.vector(t) for t in inputs]
        if path.endswith("/api/embed"):
            return 200, {"model": body.get("model"), "embeddings": vectors}, 0.0
        if path.endswith("/embeddings"):
            data = [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
            ]
            data.reverse()  # servers may answer out of order; "index" is authoritative
            return 200, {"object": "list", "data": data, "model": body.get("model")}, 0.0
        return 404, {"error": "404 page not found"}, 0.0


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.loads(raw or b"{}")
        fake.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
        status, payload, delay = fake.respond(self.path, body) or fake.default_reply(
            self.path, body
        )
        if delay:
            time.sleep(delay)
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def fake_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.fake = FakeServer(url=f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server.fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
