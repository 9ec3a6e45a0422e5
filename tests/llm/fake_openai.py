"""A small fake OpenAI-compatible server: a real HTTP server on 127.0.0.1 in a thread that
answers `POST /v1/chat/completions` from a script of responses, and records every request."""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Scripted:
    """One scripted reply. `hang=True` blocks until the server stops (a timeout)."""

    status: int = 200
    body: Any = None  # dict -> JSON; str/bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def completion(
    content: str | None, *, usage: dict[str, int] | None = None, finish: str = "stop"
) -> dict[str, Any]:
    """A chat-completions response body carrying `content`."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": usage
        if usage is not None
        else {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


class FakeOpenAI:
    """Start with `start()`, script replies with `reply()` / `reply_json()`, stop with `stop()`."""

    def __init__(self) -> None:
        self.script: deque[Scripted] = deque()
        self.requests: list[Received] = []
        self._release = threading.Event()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with fake._lock:
                    fake.requests.append(
                        Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    item = (
                        fake.script.popleft()
                        if fake.script
                        else Scripted(500, {"error": {"message": "no scripted reply"}})
                    )
                if item.hang:
                    fake._release.wait(30)
                    return
                if isinstance(item.body, dict | list):
                    payload = json.dumps(item.body).encode()
                    ctype = "application/json"
                elif isinstance(item.body, bytes):
                    payload, ctype = item.body, "text/plain"
                else:
                    payload, ctype = str(item.body or "").encode(), "text/plain"
                try:
                    self.send_response(item.status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in item.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def reply(
        self,
        status: int = 200,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        hang: bool = False,
    ) -> None:
        self.script.append(Scripted(status, body, headers or {}, hang))

    def reply_content(self, content: str | None, **kw: Any) -> None:
        """A 200 chat completion whose message content is `content`."""
        self.reply(200, completion(content, **kw))

    def reply_json(self, obj: Any, **kw: Any) -> None:
        """A 200 chat completion whose content is `obj` as JSON text."""
        self.reply_content(json.dumps(obj), **kw)


def free_port_refusing() -> int:
    """A local port with nothing listening (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
