"""Issue 17 fuzz stage: hypothesis-generated records (deep JSON, lone surrogates, NUL, extreme
and out-of-range dates, wrong types, huge numbers) through every write route — SDK add_many and
update, HTTP add / batch / patch, MCP add_memory, restore, the chat importer. Each write either
succeeds or fails typed (`SalienceError`, HTTP 4xx, MCP `ToolError`); afterwards every other
memory of the mind is still readable, searchable and exportable."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "interfaces"))
from test_http_live import Live, live_server

from salience.config import Config
from salience.errors import SalienceError
from salience.mind import Mind

GOOD = [f"good memory {i} about the lighthouse keeper" for i in range(4)]


def fuzz(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                               HealthCheck.data_too_large],
    )


# -- generated values -----------------------------------------------------------------------
_nasty_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec=None, min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1,
            max_size=3).map(lambda s: "x" + s),  # lone surrogates
    st.sampled_from(["", " ", "\x00", "a\x00b", "\ud800", "\udfff", "x" * 70_000, "é" * 300]),
)


def _deep(n: int) -> Any:
    node: Any = 1
    for _ in range(n):
        node = {"k": node} if n % 2 else [node]
    return node


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
              st.floats(allow_nan=True, allow_infinity=True), _nasty_text),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(_nasty_text, inner, max_size=4)),
    max_leaves=12,
)
_metadata = st.one_of(
    st.dictionaries(_nasty_text, _json, max_size=4),
    st.integers(min_value=20, max_value=400).map(lambda n: {"deep": _deep(n)}),
    _json,
)
_tz = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda m: timezone(timedelta(minutes=m))
)
_when = st.one_of(
    st.datetimes(timezones=_tz),  # years 1-9999 in any offset: UTC may fall in 0 or 10000
    st.sampled_from(["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00", "not a date",
                     "", "2026-13-45"]),
    st.integers(), st.floats(),
)
_field_values: dict[str, Any] = {
    "summary": _nasty_text,
    "metadata": _metadata,
    "tags": st.one_of(st.lists(_nasty_text, max_size=5), _nasty_text, st.integers()),
    "entities": st.one_of(st.lists(_nasty_text, max_size=5), st.lists(st.integers(), max_size=2)),
    "t": st.one_of(st.none(), st.integers(min_value=-(2**70), max_value=2**70), _nasty_text,
                   st.floats()),
    "occurred_at": _when,
    "salience": st.one_of(st.floats(), st.integers(), _nasty_text),
    "session_id": st.one_of(st.none(), _nasty_text, st.integers()),
    "pinned": st.one_of(st.booleans(), st.integers(), _nasty_text),
    "memory_type": st.one_of(st.sampled_from(["fact", "event"]), _nasty_text),
    "related_ids": st.one_of(st.lists(_nasty_text, max_size=3), _nasty_text),
    "superseded_by": st.one_of(st.none(), _nasty_text, st.just("0" * 32)),
}
_record = st.fixed_dictionaries(
    {"content": st.one_of(_nasty_text, st.just("a fuzzed memory about tides"))},
    optional=_field_values,
)


# -- the check every route ends with ---------------------------------------------------------
def _mind_intact(m: Mind) -> None:
    rows = m.list(limit=1000)
    contents = {r.content for r in rows}
    assert set(GOOD) <= contents
    for r in rows:
        json.dumps(r.to_dict())  # every row serialises (the HTTP/MCP/export encoders do this)
    assert any("lighthouse" in h.memory.content for h in m.search("lighthouse keeper", limit=10))
    m.catch_up(limit=5)
    buf = io.StringIO()
    m.export(buf, embeddings=False)
    assert sum(1 for line in buf.getvalue().splitlines() if '"memory"' in line) == len(rows)


@pytest.fixture
def mind(tmp_path: Path) -> Iterator[Mind]:
    with Mind.open("fuzz", config=Config(home=tmp_path / "home", embedder="hash")) as m:
        m.add_many(GOOD)
        yield m


def _typed(fn: Any, *args: Any, **kwargs: Any) -> None:
    try:
        fn(*args, **kwargs)
    except SalienceError:
        pass
    except TypeError as e:  # only a wrong keyword (a Python call error, not a bad value)
        assert "keyword argument" in str(e), e


@fuzz(50)
@given(rec=_record)
def test_fuzz_sdk_add_many_and_update(mind: Mind, rec: dict[str, Any]) -> None:
    _typed(mind.add_many, [rec])
    target = mind.list(limit=1, offset=1)[0]
    _typed(mind.update, target.id, **{k: v for k, v in rec.items() if k != "content"})
    _mind_intact(mind)


@fuzz(35)
@given(rec=_record)
def test_fuzz_restore(mind: Mind, rec: dict[str, Any]) -> None:
    header = {"kind": "header", "format": "salience-export", "version": 1, "mind": "x",
              "backend": "sqlite", "schema_version": 1, "embedding": None,
              "exported_at": "2026-01-01T00:00:00+00:00"}
    body = {**rec, "id": "c" * 32}
    for k, v in list(body.items()):
        if isinstance(v, datetime):
            body[k] = v.isoformat()
    try:
        line = json.dumps({"kind": "memory", "record": body})
    except (ValueError, TypeError):
        return  # not expressible as an export line
    _typed(mind.restore, io.StringIO(json.dumps(header) + "\n" + line + "\n"))
    got = mind.store.get("c" * 32)
    if got is not None:
        json.dumps(got.to_dict())
        mind.delete(got.id)
    _mind_intact(mind)


@fuzz(25)
@given(lines=st.lists(st.one_of(_json, _record), min_size=1, max_size=4))
def test_fuzz_chat_import(mind: Mind, lines: list[Any], tmp_path_factory: Any) -> None:
    path = tmp_path_factory.mktemp("chat") / "chat.jsonl"
    out = []
    for obj in lines:
        try:
            out.append(json.dumps(obj))
        except (ValueError, TypeError, RecursionError):
            out.append("{broken")
    path.write_text("\n".join(out) + "\n", encoding="utf-8", errors="surrogatepass")
    _typed(mind.import_chat, path)
    _mind_intact(mind)


# -- HTTP ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live_server(tmp_path_factory.mktemp("fuzzhttp") / "home") as srv:
        h = srv.key(mind="m")
        r = srv.client.post("/v1/minds/m/memories/batch",
                            json={"items": [{"content": c} for c in GOOD]}, headers=h)
        assert r.status_code == 201
        srv.client.headers.update(h)
        yield srv


def _body(obj: Any) -> bytes:
    """JSON bytes; lone surrogates travel as \\uXXXX escapes, as a hostile client sends them."""
    def default(o: Any) -> Any:
        return o.isoformat() if isinstance(o, datetime) else str(o)

    return json.dumps(obj, default=default, allow_nan=True).encode()


@fuzz(50)
@given(rec=_record)
def test_fuzz_http_write_routes(live: Live, rec: dict[str, Any]) -> None:
    hdr = {"content-type": "application/json"}
    try:
        payloads = [_body(rec), _body({"items": [{"content": "fine"}, rec]})]
    except (ValueError, RecursionError):
        return
    c = live.client
    mid = c.get("/v1/minds/m/memories", params={"limit": 1}).json()["items"][0]["id"]
    for method, path, body in (
        ("POST", "/v1/minds/m/memories", payloads[0]),
        ("POST", "/v1/minds/m/memories/batch", payloads[1]),
        ("PATCH", f"/v1/minds/m/memories/{mid}", payloads[0]),
    ):
        r = c.request(method, path, content=body, headers=hdr)
        assert r.status_code < 500, (path, r.status_code, r.text[:300])
    page = c.get("/v1/minds/m/memories", params={"limit": 100})
    assert page.status_code == 200, page.text[:300]
    assert c.post("/v1/minds/m/search", json={"query": "lighthouse"}).status_code == 200
    assert c.get("/v1/minds/m/catch-up").status_code == 200


# -- MCP -------------------------------------------------------------------------------------
@fuzz(20)
@given(rec=_record)
def test_fuzz_mcp_add_memory(mind: Mind, rec: dict[str, Any]) -> None:
    pytest.importorskip("mcp")
    from mcp.server.mcpserver.exceptions import ToolError

    from salience.interfaces.mcp import create_server

    server = create_server(mind)
    args = {k: v for k, v in rec.items() if k in ("content", "tags", "entities", "salience")}
    args.update({"memory_type": rec.get("memory_type", "general")})

    async def call() -> None:
        with contextlib.suppress(ToolError):
            await server.call_tool("add_memory", args)

    anyio.run(call)
    _mind_intact(mind)
