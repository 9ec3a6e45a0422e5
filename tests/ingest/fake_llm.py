"""A fake OpenAI-compatible server for the ingestion fault tests: a real HTTP server on
127.0.0.1 in a thread. Unlike a fixed script, it answers by call site (the `json_schema` name of
the request), so a drain of many items can be served; `mode` selects the fault to inject."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any, dict[str, str]]


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def valid_answer(schema: str, prompt: str) -> dict[str, Any]:
    """A schema-valid answer per call site (salience 6, nothing contradicted)."""
    if schema == "TriageAnswer":
        return {"salience": 6, "summary": "A fact worth keeping.", "memory_type": "fact",
                "tags": ["test"], "entities": [], "save": True}
    if schema == "QualityAnswer":
        return {"specificity": 0.5, "uniqueness": 0.5, "confidence": 0.8, "entities": []}
    if schema == "ContradictionAnswer":
        return {"verdicts": []}
    if schema == "DistillAnswer":
        return {"facts": []}
    return {}


class FakeLLMServer:
    """`mode` is one of: ok, malformed, wrong_schema, hang, 429, 500; or set `responder`
    to a callable (schema, prompt, n) -> Reply for anything else. Counts requests."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.responder: Callable[[str, str, int], Reply] | None = None
        self.requests = 0
        self.ok_replies = 0
        self._lock = threading.Lock()
        self._release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw or b"{}")
                fmt = body.get("response_format") or {}
                schema = (fmt.get("json_schema") or {}).get("name", "")
                prompt = "\n".join(str(m.get("content")) for m in body.get("messages", []))
                with fake._lock:
                    fake.requests += 1
                    n = fake.requests
                status, payload, headers = fake.reply(schema, prompt, n)
                if status == 0:  # hang: the client times out
                    fake._release.wait(10)
                    return
                data = json.dumps(payload).encode() if not isinstance(payload, bytes) else payload
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def reply(self, schema: str, prompt: str, n: int) -> Reply:
        if self.responder is not None:
            return self.responder(schema, prompt, n)
        mode = self.mode
        if mode == "malformed":
            return 200, completion('{"salience": 6, "summary": "unterminated'), {}
        if mode == "wrong_schema":
            return 200, completion(json.dumps({"score": "high", "verdict": 3})), {}
        if mode == "hang":
            return 0, None, {}
        if mode == "429":
            return 429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}
        if mode == "500":
            return 500, {"error": {"message": "boom"}}, {}
        with self._lock:
            self.ok_replies += 1
        return 200, completion(json.dumps(valid_answer(schema, prompt))), {}

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening: later connections are refused (a server that died)."""
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
