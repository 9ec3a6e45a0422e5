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
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    pg_pool_max: int = Field(default=10, ge=1)
    pg_hnsw_ef_search: int = Field(default=100, ge=1)

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

    # -- LLM -------------------------------------------------------------------------------
    llm: Literal["heuristic", "openai"] = "heuristic"
    llm_base_url: str = "http://127.0.0.1:8080/v1"
    llm_model: str = "default"
    llm_api_key: SecretStr | None = None
    llm_grammar: bool = Field(default=False, description="Send GBNF grammars (llama.cpp server)")
    llm_max_retries: int = Field(default=3, ge=0)

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
    contradiction_distance: float = Field(default=0.3, gt=0, le=2, description="Cosine distance")
    contradiction_candidates: int = Field(default=3, ge=0)
    paradigm_shift_salience: float = Field(
        default=7.0, ge=1, le=10, description="Superseding an identity/preference memory at >= "
        "this salience is a paradigm shift"
    )
    queue_max_attempts: int = Field(default=3, ge=1)
    queue_retry_base_s: float = Field(default=60.0, ge=0, description="Backoff: base * 2^(n-1)")
    import_max_body_bytes: int = Field(default=64_000, ge=256)
    ai_interactions_retention_days: int = Field(
        default=180, ge=1, description="ai_interactions rows older than this are purged"
    )

    # -- recall ------------------------------------------------------------------------------
    search_preset: str = "rrf-balanced"
    rrf_k: int = Field(default=60, ge=1)
    candidate_pool: int = Field(default=50, ge=1)

    @field_validator("home", mode="after")
    @classmethod
    def _expand_home(cls, v: Path) -> Path:
        return v.expanduser()

    @property
    def minds_dir(self) -> Path:
        return self.home / "minds"
