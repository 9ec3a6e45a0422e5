"""OpenTelemetry spans of a mind's operations (gen_ai memory conventions), printed by the
SDK's console exporter.

    pip install 'salience[otel]'
    python examples/otel_traces.py
"""

from __future__ import annotations

from _home import example_config
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from salience import Mind
from salience.integrations.otel import instrument, uninstrument


def main() -> None:
    exporter = InMemorySpanExporter()  # swap for an OTLP exporter in production
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(tracer_provider=provider)  # capture_content=True adds query texts and records
    try:
        with Mind.open("otel-example", config=example_config()) as mind:
            mind.add("The garage code is 4711.")
            mind.search("garage code")
            mind.remember_turn("I live in Leeds.")
            mind.heartbeat()
    finally:
        uninstrument()
    for span in exporter.get_finished_spans():
        print(span.name, dict(span.attributes))


if __name__ == "__main__":
    main()
