"""Ingestion: design A's four paths into memory and design B's harvest.

- `rules`: pure decisions (should_save thresholds, quality boost, importance, provenance,
  contradiction candidates, paradigm shifts, retry backoff);
- `pipeline.Ingestor`: the unified triage-and-save core, `save_memory` and the context archive;
- `queue`: durable deferred triage and distillation retries (enqueue, drain);
- `source` + `mbox` / `ics` / `chat`: importers with per-item harvest state;
- `service.IngestService`: what the `Mind` facade calls; `chunking`: MaxChunkBytes splitting.

Nothing here is imported by `import salience`.
"""
