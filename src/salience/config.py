"""The one settings object. Built once (from arguments, `SALIENCE_*` env vars and defaults) and
passed down; nothing else reads the environment.

Every constant of the two design documents lives here with the design's default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

EmbedderName = Literal["auto", "e5", "minilm", "ollama", "openai", "hash"]


class Config(BaseSettings):
    """Salience settings. Environment variables use the prefix `SALIENCE_` (e.g. `SALIENCE_HOME`)."""

    model_config = SettingsConfigDict(
        env_prefix="SALIENCE_", extra="forbid", validate_assignment=True
    )

    # -- storage -------------------------------------------------------------------------------
    home: Path = Field(
        default_factory=lambda: Path("~/.salience").expanduser(),
        description="Data directory; SQLite minds live in <home>/minds/<name>.db",
    )
    backend: Literal["sqlite", "postgres"] = "sqlite"
    dsn: SecretStr | None = Field(default=None, description="PostgreSQL DSN (backend=postgres)")
    server_db: Literal["auto", "sqlite", "postgres"] = Field(
        default="auto",
        description="Where the HTTP server keeps keys, tenants and quota counters: auto = "
        "PostgreSQL (schema salience_server of `dsn`) with backend=postgres, else "
        "<home>/server.db",
    )
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    sqlite_vector_index: Literal["auto", "exact", "hnsw"] = Field(
        default="auto",
        description="SQLite vector search: exact (numpy), hnsw (usearch), or auto (exact until "
        "sqlite_hnsw_min_rows vectors, then hnsw)",
    )
    sqlite_hnsw_min_rows: int = Field(default=100_000, ge=0)
    sqlite_hnsw_dtype: Literal["i8", "f16", "f32"] = Field(
        default="i8", description="HNSW vector storage; results are re-scored on float32"
    )
    sqlite_hnsw_connectivity: int = Field(default=16, ge=2, le=128)
    # measured at 1M clustered 384-d vectors (docs/benchmarks.md): ef_construction 64 caps
    # recall@10 near 0.90 whatever ef_search; 200 reaches 0.99 at ef_search 256 in ~1 ms
    sqlite_hnsw_ef_construction: int = Field(default=200, ge=8)
    sqlite_hnsw_ef_search: int = Field(default=256, ge=8)
    # issue 21: full text of large SQLite minds through a tantivy index beside the file, its
    # candidates re-scored with the mind's BM25 (100k: top-50 identical to exact on 99 % of
    # queries at pool 100, docs/benchmarks.md "Full text at index speed")
    sqlite_text_index: Literal["auto", "exact", "tantivy"] = Field(
        default="auto",
        description="SQLite full text: exact (score every posting), tantivy (an index beside "
        "the mind, candidates re-scored exactly), or auto (exact until "
        "sqlite_text_index_min_rows memories, then tantivy)",
    )
    sqlite_text_index_min_rows: int = Field(default=50_000, ge=0)
    sqlite_text_index_pool: int = Field(
        default=100, ge=1, description="tantivy rows re-scored per search (at least 2 x limit)"
    )
    pg_pool_max: int = Field(default=10, ge=1)
    # issue 21 item 3: one table set keyed by mind (catalog independent of the number of minds)
    postgres_layout: Literal["schema", "shared"] = Field(
        default="schema",
        description="PostgreSQL minds: schema = one schema per mind; shared = one set of tables "
        "in schema `salience` keyed by mind (for many minds; docs/architecture.md, issue 21)",
    )
    pg_hnsw_ef_search: int = Field(default=100, ge=1)
    # issue 21: m 16 / ef_construction 64 gave recall@10 0.74 at 1M (ef_search 100); m 24 / 200: 1.000
    pg_hnsw_m: int = Field(default=24, ge=2, le=100)
    pg_hnsw_ef_construction: int = Field(default=200, ge=4, le=1000)

    # -- embeddings ----------------------------------------------------------------------------
    embedder: EmbedderName = "auto"
    embedder_threads: int = Field(default=2, ge=1)
    embed_batch_size: int = Field(default=64, ge=1)
    onnx_model_dir: Path | None = Field(
        default=None, description="A local ONNX sentence-embedding dir (model.onnx + tokenizer.json)"
    )
    ollama_url: str = "http://127.0.0.1:11434"
    ollama_embed_model: str = "nomic-embed-text"
    openai_base_url: str = "https://api.openai.com/v1"
    openai_api_key: SecretStr | None = None
    openai_embed_model: str = "text-embedding-3-small"
    embed_dim: int | None = Field(
        default=None, ge=1, description="Force this dimension (truncate/zero-pad, design B §10.4)"
    )
    http_timeout_s: float = Field(default=30.0, gt=0)
    calibrate_thresholds: bool = Field(
        default=True,
        description="Map design A's similarity thresholds (contradiction gate, episode "
        "clustering and dedup) onto the mind's embedder (salience.embed.calibration); "
        "thresholds set explicitly always win",
    )

    # -- LLM -------------------------------------------------------------------------------
    llm: Literal["heuristic", "openai"] = "heuristic"
    llm_base_url: str = "http://127.0.0.1:8080/v1"
    llm_model: str = "default"
    llm_api_key: SecretStr | None = None
    llm_grammar: bool = Field(default=False, description="Send GBNF grammars (llama.cpp server)")
    llm_max_retries: int = Field(default=3, ge=0)
    llm_thinking: dict[str, bool] = Field(
        default_factory=dict, description="Thinking on/off per call site (overrides design A's table)"
    )
    llm_thinking_control: Literal["auto", "chat_template_kwargs", "soft_switch", "none"] = Field(
        default="auto", description="How thinking on/off is sent to the server"
    )

    # -- ingestion (design A) ----------------------------------------------------------------
    max_content_bytes: int = Field(default=1_000_000, ge=1)
    chunk_bytes: int = Field(default=1200, ge=64, description="MaxChunkBytes")
    triage_threshold_grounded: float = Field(
        default=3.0, ge=1, le=10, description="Save tool-grounded conversation at salience >= this"
    )
    triage_threshold_parametric: float = Field(
        default=5.0, ge=1, le=10, description="Save unverified (parametric) answers at >= this"
    )
    triage_threshold_email: float = Field(default=1.0, ge=1, le=10)
    archive_raw_salience: float = Field(default=3.0, ge=1, le=10)
    distilled_fact_threshold: float = Field(default=5.0, ge=1, le=10)
    contradiction_distance: float = Field(
        default=0.3, gt=0, le=2,
        description="Cosine distance (design A's; calibrated to the embedder unless set)",
    )
    contradiction_candidates: int = Field(default=3, ge=0)
    paradigm_shift_salience: float = Field(
        default=7.0, ge=1, le=10, description="Superseding an identity/preference memory at >= "
        "this salience is a paradigm shift"
    )
    queue_max_attempts: int = Field(default=3, ge=1)
    queue_retry_base_s: float = Field(default=60.0, ge=0, description="Backoff: base * 2^(n-1)")
    import_max_body_bytes: int = Field(default=64_000, ge=256)
    max_query_bytes: int = Field(
        default=32_768, ge=64, description="Longest search query / topic (a prefetch message "
        "is cut to this); bounds full-text terms and entity n-grams (issue 17)"
    )
    server_max_open_minds: int = Field(
        default=64, ge=1, description="Minds a server keeps open (LRU; idle ones are closed)"
    )
    http_header_timeout_s: float = Field(
        default=10.0, gt=0, description="serve: close a connection whose headers take longer"
    )
    http_body_timeout_s: float = Field(
        default=30.0, gt=0, description="serve: 408 when a request body chunk takes longer"
    )
    tenant_max_minds: int = Field(
        default=100, ge=0, description="Minds one tenant may create over the HTTP API"
    )
    ai_interactions_retention_days: int = Field(
        default=180, ge=1, description="ai_interactions rows older than this are purged"
    )

    # -- recall ------------------------------------------------------------------------------
    search_preset: str = "relevance"  # static + live LoCoMo and the ranking suite (docs/benchmarks.md)
    # the RRF constant and the candidate pools are the preset's (`search.config.SearchConfig`)

    # -- maintenance (issue 7): decay, pruning, compaction, cognitive runs, heartbeat ----------
    decay_standard_rate: float = Field(
        default=0.977, gt=0, le=1, description="Salience x rate^days (~30-day half-life)"
    )
    decay_accelerated_rate: float = Field(
        default=0.954, gt=0, le=1, description="For never-retrieved memories (~15-day half-life)"
    )
    decay_accelerated_after_days: float = Field(default=14.0, ge=0)
    decay_floor: float = Field(default=1.0, ge=1, le=10)
    decay_skip_accessed_days: float = Field(
        default=1.0, ge=0, description="No decay within this long after a retrieval"
    )
    usefulness_regression_after_days: float = Field(default=30.0, ge=0)
    usefulness_regression_rate: float = Field(
        default=0.05, ge=0, le=1, description="Share of the gap to 0.5 closed per maintenance tick"
    )
    prune_max_salience: float = Field(default=1.0, ge=1, le=10)
    prune_staleness_days: float = Field(default=90.0, ge=0)
    superseded_grace_days: float = Field(default=7.0, ge=0, description="SUPERSEDED_GRACE_DAYS")
    prune_superseded: bool = Field(
        default=False,
        description="Delete superseded memories after the grace period (design A); off by "
        "default: superseded memories are history (as-of recall, `history()`)",
    )
    prune_exempt_types: list[str] = Field(
        default_factory=lambda: ["identity", "episode", "reflection"],
        description="Memory types never pruned or compacted",
    )
    prune_pinned: bool = Field(default=False, description="Allow pruning pinned memories")
    compact_temporary_days: float = Field(default=30.0, ge=0)
    compact_deprecated_days: float = Field(default=90.0, ge=0)
    compact_pframes_when: int = Field(default=10, ge=2, description="P-frames on one I-frame")
    compact_pframes_keep: int = Field(default=5, ge=0)
    maintenance_interval_s: float = Field(default=86_400.0, gt=0, description="Daily by default")
    cognitive_buffer_threshold: int = Field(default=20, ge=0, description="COGNITIVE_BUFFER_THRESHOLD")
    cognitive_lull_s: float = Field(default=1200.0, ge=0, description="LULL_DURATION (20 min)")
    cognitive_ceiling_s: float = Field(default=14_400.0, gt=0, description="COGNITIVE_CEILING (4 h)")
    consolidation_min_salience: float = Field(default=8.0, ge=1, le=10)
    consolidation_startup_min_salience: float = Field(default=5.0, ge=1, le=10)
    consolidation_limit: int = Field(default=50, ge=1)
    episode_window_h: float = Field(default=24.0, gt=0)
    episode_cluster_similarity: float = Field(
        default=0.7, ge=-1, le=1,
        description="Cosine similarity (design A's; calibrated to the embedder unless set)",
    )
    episode_min_cluster: int = Field(default=2, ge=2)
    episode_salience: float = Field(default=8.0, ge=1, le=10)
    episode_dedup_distance: float = Field(
        default=0.12, ge=0, le=2,
        description="EPISODE_DEDUP_THRESHOLD, cosine distance (calibrated unless set)",
    )
    reflection_every: int = Field(default=50, ge=1, description="New memories per reflection")
    reflection_min_group: int = Field(default=5, ge=1)
    reflection_salience: float = Field(default=9.0, ge=1, le=10)
    heartbeat_lease_s: float = Field(default=900.0, gt=0, description="A tick's DB lease expiry")
    heartbeat_drain_limit: int = Field(default=100, ge=1)

    # -- CLI (issue 19) ------------------------------------------------------------------------
    progress_interval_s: float = Field(
        default=5.0, ge=0, description="Without a TTY, long jobs print a progress line this often"
    )

    # -- agent records (issue 20, design B §11): signals, retention ----------------------------
    signal_threshold: int = Field(
        default=3, ge=1, description="An improvement signal seen this often is shown once"
    )
    trace_retention_days: int | None = Field(
        default=90, ge=1, description="execution_traces older than this are pruned by maintain"
    )
    trace_max_rows: int | None = Field(
        default=10_000, ge=1, description="maintain keeps at most this many (newest) traces"
    )
    ai_interactions_max_rows: int | None = Field(
        default=100_000, ge=1, description="maintain keeps at most this many ai_interactions"
    )

    @field_validator("home", mode="before")
    @classmethod
    def _home_not_empty(cls, v: object) -> object:
        if isinstance(v, str) and not v.strip():  # SALIENCE_HOME='' would mean "."
            raise ValueError("home is empty; unset SALIENCE_HOME to use ~/.salience")
        return v

    @field_validator("home", mode="after")
    @classmethod
    def _expand_home(cls, v: Path) -> Path:
        return v.expanduser()

    @property
    def minds_dir(self) -> Path:
        return self.home / "minds"
