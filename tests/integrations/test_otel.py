"""OpenTelemetry spans of a mind's operations, read with the SDK's in-memory exporter."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from salience import Config, Mind, NotFound
from salience.aio import AsyncMind
from salience.integrations import otel


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    yield InMemorySpanExporter()
    otel.uninstrument()


def _provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def _by_op(exporter: InMemorySpanExporter) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for s in exporter.get_finished_spans():
        out.setdefault(s.name.split(" ")[0], []).append(s)
    return out


def test_nothing_is_traced_until_instrumented() -> None:
    otel.uninstrument()
    assert not hasattr(Mind.search, "__salience_traced__")
    assert not otel.is_instrumented()


def test_memory_operations_follow_the_gen_ai_conventions(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    assert otel.instrument(tracer_provider=_provider(spans))
    with Mind.open("traced", config=Config(home=tmp_path / "home", embedder="hash")) as mind:
        mid = mind.add("Maya is allergic to penicillin.")
        mind.search("penicillin")
        mind.update(mid, salience=9)
        mind.remember_turn("I live in Leeds.")
        mind.heartbeat()
        mind.delete(mid)
        with pytest.raises(NotFound):
            mind.delete(mid)
    ops = _by_op(spans)
    assert {"create_memory_store", "update_memory", "search_memory", "delete_memory",
            "salience.remember_turn", "salience.heartbeat", "salience.triage"} <= set(ops)
    store = ops["create_memory_store"][0]
    assert store.name == "create_memory_store traced"
    assert store.attributes["gen_ai.operation.name"] == "create_memory_store"
    search = ops["search_memory"][0]
    assert search.attributes["gen_ai.memory.store.id"] == "traced"
    assert search.attributes["gen_ai.provider.name"] == "salience"
    assert search.attributes["salience.hits.count"] == 1
    assert "gen_ai.memory.query.text" not in search.attributes  # private by default
    assert "gen_ai.memory.records" not in search.attributes
    added = ops["update_memory"][0]
    assert added.attributes["gen_ai.memory.record.id"] == mid
    ok, failed = ops["delete_memory"]
    assert ok.attributes["gen_ai.memory.record.id"] == mid and ok.status.is_ok
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes["error.type"] == "not_found"
    assert ops["salience.remember_turn"][0].attributes["salience.deferred"] is True
    triage = ops["salience.triage"][0]
    assert triage.attributes["salience.triage.saved"] == 1
    assert triage.parent is not None  # the heartbeat's drain nests under the heartbeat span
    assert triage.parent.span_id == ops["salience.heartbeat"][0].context.span_id


def test_content_only_when_captured_and_async_spans_nest(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    provider = _provider(spans)
    otel.instrument(tracer_provider=provider, capture_content=True)
    tracer = provider.get_tracer("app")

    async def main() -> None:
        async with await AsyncMind.open("a", config=Config(home=tmp_path / "home", embedder="hash")) as m:
            await m.add("The garage code is 4711.")
            with tracer.start_as_current_span("handle request"):
                await m.search("garage code")

    asyncio.run(main())
    ops = _by_op(spans)
    search = ops["search_memory"][0]
    assert search.attributes["gen_ai.memory.query.text"] == "garage code"
    assert "4711" in search.attributes["gen_ai.memory.records"]
    request = ops["handle"][0]
    assert search.parent is not None and search.parent.span_id == request.context.span_id
    otel.uninstrument()
    assert not hasattr(Mind.search, "__salience_traced__")
