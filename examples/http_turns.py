"""The agent path over HTTP: a conversation turn through triage (`POST …/turns`), the heartbeat
that drains the queue, a search — against a local server started here (insecure-local mode,
127.0.0.1 only; a real deployment uses `salience serve` and an API key).

    pip install 'salience[server]'
    python examples/http_turns.py
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import uvicorn
from _home import example_config

from salience.interfaces.http import create_app


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(example_config(), insecure_local=True),
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}/v1/minds/me"
    try:
        with httpx.Client(timeout=60) as http:
            print(http.post(f"{base}/turns", json={"user": "I live in Leeds.", "defer": False}).json())
            queued = http.post(f"{base}/turns", json={
                "user": "I moved to Lisbon last month.", "assistant": "Noted, Lisbon it is."})
            print(queued.status_code, queued.json())  # 202: queued for the heartbeat
            print(http.post(f"{base}/heartbeat").json()["steps"][0])
            hits = http.post(f"{base}/search", json={"query": "where does the user live"}).json()
            print("top hit:", hits["hits"][0]["memory"]["content"])
    finally:
        server.should_exit = True
        thread.join()


if __name__ == "__main__":
    main()
