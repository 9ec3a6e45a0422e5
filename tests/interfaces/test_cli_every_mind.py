"""`salience heartbeat` and `salience minds list|drop` see every mind of the backend (issue 16
item 5): on PostgreSQL, not only `default` (`store.catalog.list_minds` / `drop_mind`)."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from salience.interfaces.cli import app


@pytest.fixture
def env(tmp_path, pg_server) -> dict[str, str]:
    """SALIENCE_* for PostgreSQL, in a database of its own (so the heartbeat ticks only this
    test's minds) when the test server can create one. SQLite's listing is the catalog's
    contract test (tests/store/test_contract_catalog.py)."""
    try:
        dsn = pg_server.create_database(f"every_mind_{os.getpid()}")
    except Exception:  # an external server: share its database
        dsn = str(pg_server.dsn)
    return {
        "SALIENCE_HOME": str(tmp_path / "home"), "SALIENCE_EMBEDDER": "hash",
        "SALIENCE_BACKEND": "postgres", "SALIENCE_DSN": dsn,
    }


def cli(env: dict[str, str], *args: str):
    return CliRunner().invoke(app, list(args), env=env)


def test_heartbeat_and_minds_cover_every_mind(env: dict[str, str]) -> None:
    names = ["every-alpha", "every-beta"]
    for name in names:
        r = cli(env, "add", f"a memory of {name}", "--mind", name)
        assert r.exit_code == 0, r.output
    r = cli(env, "minds", "list", "--json")
    assert r.exit_code == 0, r.output
    listed = {m["name"] if isinstance(m, dict) else m for m in json.loads(r.stdout)}
    assert set(names) <= listed and "default" not in listed
    r = cli(env, "heartbeat", "--json")
    assert r.exit_code == 0, r.output
    ticked = {t["mind"] for t in json.loads(r.stdout)}
    assert set(names) <= ticked  # every mind, not only `default`
    r = cli(env, "minds", "drop", "every-alpha", "--yes")
    assert r.exit_code == 0, r.output
    r = cli(env, "heartbeat", "--json")
    ticked = {t["mind"] for t in json.loads(r.stdout)}
    assert "every-beta" in ticked and "every-alpha" not in ticked
    cli(env, "minds", "drop", "every-beta", "--yes")

