"""OpenTelemetry traces of a mind's operations, following the GenAI memory semantic
conventions (`gen_ai.operation.name` = `create_memory_store`, `search_memory`, `update_memory`,
`delete_memory`; `gen_ai.memory.store.id`, `gen_ai.memory.record.id`), plus Salience's own
`salience.remember_turn`, `salience.triage` and `salience.heartbeat` spans.

    from salience.integrations.otel import instrument
    instrument()                          # every Mind from now on, the global tracer provider
    instrument(capture_content=True)      # also gen_ai.memory.query.text / gen_ai.memory.records

Nothing is traced until `instrument()` is called: the core never imports OpenTelemetry, so
without the `otel` extra (or without calling it) tracing costs nothing. `instrument()` without
the extra installed does nothing and returns False. Query texts and memory contents are
personal data: they are recorded only with `capture_content=True`. `uninstrument()` restores
the plain methods. Spans of `AsyncMind` calls nest under the caller's span (its pool carries
the context into the worker thread).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from ..mind import Mind

PROVIDER = "salience"
_ORIGINAL: dict[str, Any] = {}

#: Mind method → (span operation, gen_ai.operation.name)
OPERATIONS: dict[str, tuple[str, str]] = {
    "open": ("create_memory_store", "create_memory_store"),
    "add_many": ("update_memory", "update_memory"),
    "update": ("update_memory", "update_memory"),
    "save_memory": ("update_memory", "update_memory"),
    "delete": ("delete_memory", "delete_memory"),
    "search": ("search_memory", "search_memory"),
    "search_as_of": ("search_memory", "search_memory"),
    "recall": ("search_memory", "search_memory"),
    "prefetch": ("search_memory", "search_memory"),
    "catch_up": ("search_memory", "search_memory"),
    "remember_turn": ("salience.remember_turn", "update_memory"),
    "drain_pending_triage": ("salience.triage", "update_memory"),
    "heartbeat": ("salience.heartbeat", "salience.heartbeat"),
}


def available() -> bool:
    """Whether the OpenTelemetry API is installed."""
    try:
        import opentelemetry.trace  # noqa: F401
    except ImportError:
        return False
    return True


def _record_ids(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> list[str]:
    if name in ("update", "delete"):
        mid = args[0] if args else kwargs.get("memory_id")
        return [str(mid)] if mid else []
    if name == "add_many" and isinstance(out, list):
        return [str(i) for i in out]
    saved = getattr(out, "saved", None)
    return [str(i) for i in saved] if isinstance(saved, list) else []


def _query(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    if name in ("search", "search_as_of", "recall"):
        return str(args[0]) if args else kwargs.get("query")
    if name == "prefetch":
        return str(args[1]) if len(args) > 1 else kwargs.get("current")
    return None


def _wrap(name: str, fn: Callable[..., Any], tracer: Any, capture: bool) -> Callable[..., Any]:
    from opentelemetry.trace import SpanKind, Status, StatusCode

    span_name, operation = OPERATIONS[name]
    is_open = name == "open"

    @functools.wraps(fn)
    def traced(*args: Any, **kwargs: Any) -> Any:
        mind = None if is_open else args[0]
        call_args = args if is_open else args[1:]
        store_id = str(call_args[0] if is_open and call_args else kwargs.get(
            "name_or_path", "default")) if is_open else mind.name
        with tracer.start_as_current_span(
            f"{span_name} {store_id}", kind=SpanKind.CLIENT
        ) as span:
            span.set_attribute("gen_ai.operation.name", operation)
            span.set_attribute("gen_ai.provider.name", PROVIDER)
            span.set_attribute("gen_ai.memory.store.id", store_id)
            if not is_open:
                span.set_attribute("salience.backend", mind.store.backend)
            q = _query(name, call_args, kwargs)
            if capture and q:
                span.set_attribute("gen_ai.memory.query.text", q)
            try:
                out = fn(*args, **kwargs)
            except Exception as e:
                span.record_exception(e)
                span.set_status(Status(StatusCode.ERROR, str(e)[:200]))
                span.set_attribute("error.type", getattr(e, "code", None) or type(e).__name__)
                raise
            _describe(span, name, call_args, kwargs, out, capture)
            return out

    traced.__salience_traced__ = True  # type: ignore[attr-defined]
    return traced


def _describe(span: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any,
              capture: bool) -> None:
    """Result attributes: record ids, hit counts, triage outcomes (content only if captured)."""
    ids = _record_ids(name, args, kwargs, out)
    if len(ids) == 1:
        span.set_attribute("gen_ai.memory.record.id", ids[0])
    if ids:
        span.set_attribute("salience.record.count", len(ids))
    if name == "remember_turn":
        span.set_attribute("salience.deferred", isinstance(out, int))
        if getattr(out, "skipped", None):
            span.set_attribute("salience.triage.skipped", out.skipped)
        if getattr(out, "superseded", None):
            span.set_attribute("salience.superseded.count", len(out.superseded))
    if name == "drain_pending_triage":
        for key in ("processed", "saved", "skipped", "failed"):
            span.set_attribute(f"salience.triage.{key}", int(getattr(out, key, 0)))
    if name == "heartbeat":
        span.set_attribute("salience.heartbeat.ran", bool(getattr(out, "ran", False)))
        failed = getattr(out, "failed", [])
        if failed:
            span.set_attribute("salience.heartbeat.failed", list(failed))
    if isinstance(out, list) and out and hasattr(out[0], "memory"):
        span.set_attribute("salience.hits.count", len(out))
        if capture:
            records = [{"id": h.memory.id, "content": h.memory.content, "score": h.score}
                       for h in out]
            span.set_attribute("gen_ai.memory.records", json.dumps(records, ensure_ascii=False))


def instrument(*, tracer_provider: Any = None, capture_content: bool = False) -> bool:
    """Trace every `Mind` operation listed in `OPERATIONS`. Returns False (and does nothing)
    when OpenTelemetry is not installed. Calling it again re-instruments with the new
    settings."""
    if not available():
        return False
    from opentelemetry import trace

    from .. import __version__

    uninstrument()
    tracer = trace.get_tracer("salience", __version__, tracer_provider=tracer_provider)
    for name in OPERATIONS:
        original = Mind.__dict__[name]
        _ORIGINAL[name] = original
        if isinstance(original, classmethod):
            wrapped = _wrap(name, original.__func__.__get__(Mind, Mind), tracer, capture_content)
            setattr(Mind, name, classmethod(lambda cls, *a, _w=wrapped, **k: _w(*a, **k)))
        else:
            setattr(Mind, name, _wrap(name, original, tracer, capture_content))
    return True


def uninstrument() -> None:
    """Restore the untraced methods."""
    for name, original in _ORIGINAL.items():
        setattr(Mind, name, original)
    _ORIGINAL.clear()


def is_instrumented() -> bool:
    return bool(_ORIGINAL)


__all__ = ["OPERATIONS", "available", "instrument", "is_instrumented", "uninstrument"]
