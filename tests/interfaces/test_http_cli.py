"""`salience keys ...` and `salience serve` (a real server process on a free loopback port)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

pytest.importorskip("fastapi")

from salience.interfaces.auth import ServerDB
from salience.interfaces.cli import app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash"}


@contextmanager
def process(args: list[str], home: Path, port: int) -> Iterator[str]:
    """Run `python -m salience.interfaces.cli ARGS` until its /v1/health (or port) answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "salience.interfaces.cli", *args],
        env=env_for(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # startup wait (≤ 60 s), not a timed assertion
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_keys_create_prints_the_key_once(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"SALIENCE_HOME": str(tmp_path)}
    r = runner.invoke(app, ["keys", "create", "--mind", "a", "--scope", "read"], env=env)
    assert r.exit_code == 0, r.output
    key = r.stdout.strip().splitlines()[-1]
    db = ServerDB.at_home(tmp_path)
    p = db.authenticate(key)
    assert (p.mind, p.scope, p.tenant) == ("a", "read", None)

    r = runner.invoke(app, ["keys", "list", "--json"], env=env)
    listed = json.loads(r.stdout)
    assert [k["key_id"] for k in listed] == [p.key_id]
    assert key not in r.stdout

    r = runner.invoke(
        app, ["keys", "create", "--tenant", "acme", "--scope", "write", "--json"], env=env
    )
    assert json.loads(r.stdout)["tenant"] == "acme"
    r = runner.invoke(
        app, ["keys", "tenant", "acme", "--tier", "pro", "--quota", "50", "--json"], env=env
    )
    assert json.loads(r.stdout) == {
        "tenant": "acme",
        "tier": "pro",
        "monthly_quota": 50,
        "used_this_month": 0,
    }

    r = runner.invoke(app, ["keys", "revoke", p.key_id], env=env)
    assert r.exit_code == 0
    with pytest.raises(Exception, match="invalid API key"):
        db.authenticate(key)
    db.close()


@pytest.mark.parametrize(
    "args",
    [
        ["keys", "create", "--scope", "admin", "--mind", "a"],
        ["keys", "create", "--scope", "read"],
        ["keys", "create", "--scope", "read", "--mind", "../x"],
        ["keys", "tenant", "t", "--tier", "platinum"],
        ["keys", "revoke", "nope"],
    ],
)
def test_keys_bad_input_is_a_clear_error(tmp_path: Path, args: list[str]) -> None:
    r = CliRunner().invoke(app, args, env={"SALIENCE_HOME": str(tmp_path)})
    assert r.exit_code == 2
    assert "error" in r.output


def test_insecure_local_refuses_other_hosts(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        app,
        ["serve", "--insecure-local", "--host", "0.0.0.0"],
        env={"SALIENCE_HOME": str(tmp_path)},
    )
    assert r.exit_code == 2
    assert "127.0.0.1" in r.output


def test_serve_with_keys(tmp_path: Path) -> None:
    db = ServerDB.at_home(tmp_path)
    key, _ = db.create_key(scope="write", mind="notes")
    db.close()
    port = free_port()
    with process(["serve", "--port", str(port), "--log-level", "warning"], tmp_path, port) as url:
        h = {"Authorization": f"Bearer {key}"}
        assert (
            httpx.post(f"{url}/v1/minds/notes/memories", json={"content": "hi"}).status_code == 401
        )
        r = httpx.post(f"{url}/v1/minds/notes/memories", json={"content": "hi there"}, headers=h)
        assert r.status_code == 201
        hits = httpx.post(f"{url}/v1/minds/notes/search", json={"query": "hi"}, headers=h).json()
        assert hits["hits"][0]["memory"]["content"] == "hi there"


def test_serve_insecure_local(tmp_path: Path) -> None:
    port = free_port()
    args = ["serve", "--insecure-local", "--port", str(port), "--log-level", "warning"]
    with process(args, tmp_path, port) as url:
        r = httpx.post(f"{url}/v1/minds/local/memories", json={"content": "no key"})
        assert r.status_code == 201
