"""`salience mcp` through the CLI over stdio, and the streamable HTTP transport."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from salience.errors import InvalidInput
from salience.interfaces.mcp import run


async def _add_and_search(session: ClientSession) -> dict[str, Any]:
    await session.initialize()
    added = await session.call_tool("add_memory", {"content": "The garage code is 4711."})
    assert not added.is_error, added.content
    found = await session.call_tool("search_memories", {"query": "garage code"})
    assert not found.is_error, found.content
    return {"id": added.structured_content["id"], "found": found.structured_content["results"]}


def test_cli_mcp_over_stdio(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "salience.interfaces.cli", "mcp", "--mind", "home", "--create"],
        env={"SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash"},
    )

    async def main() -> dict[str, Any]:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                return await _add_and_search(session)

    out = anyio.run(main)
    assert out["found"][0]["id"] == out["id"]
    assert (tmp_path / "minds" / "home.db").exists()


def test_streamable_http_transport(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "salience.interfaces.mcp",
            "--mind",
            "web",
            "--create",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env={**os.environ, "SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):  # startup wait, not a timed assertion
            assert proc.poll() is None, "MCP server exited"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)

        async def main() -> dict[str, Any]:
            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
                ClientSession(read, write) as session,
            ):
                return await _add_and_search(session)

        out = anyio.run(main)
        assert out["found"][0]["id"] == out["id"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_http_transport_refuses_remote_hosts_without_flag(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="without authentication"):
        run("x", transport="http", host="0.0.0.0")
