"""Issue 17 item 9: a connection whose headers never finish is closed, a request body that
stalls is answered 408; the server keeps serving others meanwhile. Real uvicorn, loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn

from salience.config import Config
from salience.interfaces.http import create_app
from salience.interfaces.http_server import timed_protocol


@contextmanager
def _server(tmp_path: Path) -> Iterator[int]:
    config = Config(home=tmp_path / "home", embedder="hash", http_body_timeout_s=0.5)
    app = create_app(config, insecure_local=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", http=timed_protocol(0.5), lifespan="on")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:  # startup wait, not an assertion
        time.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


def _read_all(s: socket.socket) -> bytes:
    s.settimeout(60)  # a guard against a hang, not a measured bound
    out = b""
    while chunk := s.recv(4096):
        out += chunk
    return out


def test_partial_headers_are_closed_and_a_stalled_body_is_408(tmp_path: Path) -> None:
    with _server(tmp_path) as port:
        slow = []
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")  # headers never finish
            slow.append(s)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:
            assert c.get("/v1/health").status_code == 200
        for s in slow:
            assert _read_all(s) == b""  # closed by the server
            s.close()
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(
            b"POST /v1/minds/m/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
            b"\r\nContent-Length: 100\r\n\r\n{\"content\": "
        )
        reply = _read_all(s)
        s.close()
        assert reply.startswith(b"HTTP/1.1 408"), reply[:200]


@pytest.mark.parametrize("value", ["", "   "])
def test_empty_salience_home_is_an_error(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv("SALIENCE_HOME", value)
    with pytest.raises(ValidationError, match="home is empty"):
        Config()
