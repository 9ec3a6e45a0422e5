"""OpenAI-compatible chat-completions client (OpenAI, vLLM, LiteLLM, llama.cpp server, Ollama /v1).

- JSON answers use `response_format: {"type": "json_schema", ...}`; with `grammar=True`
  (llama.cpp server) a GBNF `grammar` is sent instead when the caller supplies one.
- Thinking on/off per call site is sent as `chat_template_kwargs: {"enable_thinking": bool}`
  (vLLM, SGLang, llama.cpp server; Qwen3-style templates), or as a `/think` / `/no_think`
  suffix (`thinking_control="soft_switch"`, e.g. Qwen3 on Ollama), or not at all (`"none"`;
  the default for api.openai.com, which rejects unknown fields).
- Retries with exponential backoff and jitter on 429 (honouring `Retry-After`), 5xx,
  timeouts and connection errors, up to `max_retries` retries.
- Malformed JSON gets one local repair attempt (`salience.llm.jsonfix`), then `LLMError`;
  JSON of the wrong shape raises `LLMError` with the validation message.
- The API key is sent only in the Authorization header; it is never logged or put in errors.

httpx is imported here, and this module is imported only when an `openai` LLM is built.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, SecretStr

from ..errors import LLMError
from .base import (
    THINKING_BY_CALL_SITE,
    InteractionRecord,
    LLMStatus,
    LLMUnavailable,
    Recorder,
    emit,
)
from .jsonfix import parse_model_output, strip_thinking

if TYPE_CHECKING:
    from ..clock import Clock
    from ..config import Config

log = logging.getLogger("salience.llm")
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

ThinkingControl = Literal["auto", "chat_template_kwargs", "soft_switch", "none"]
THINKING_CONTROLS: tuple[str, ...] = ("auto", "chat_template_kwargs", "soft_switch", "none")


def safe_url(url: str) -> str:
    """`url` without user:password (safe to log and to show in errors)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class _Retry(Exception):
    """Internal: a retryable failure, with the delay the server asked for (if any)."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, unavailable: bool = False
    ):
        super().__init__(message)
        self.retry_after = retry_after
        self.unavailable = unavailable


class OpenAICompatibleLLM:
    """The `LLM` protocol over an OpenAI-compatible `/chat/completions` endpoint.

    Args:
        base_url: API root including `/v1` (e.g. `http://127.0.0.1:8080/v1`).
        model: model name sent in each request.
        api_key: sent as `Authorization: Bearer …` when given.
        grammar: send GBNF grammars (llama.cpp server) instead of JSON schemas when available.
        max_retries: retries after the first attempt (so `max_retries + 1` attempts at most).
        timeout_s: per-request timeout.
        thinking_control: how thinking on/off is signalled (see the module docstring).
        temperature: sent with structured (JSON/grammar) calls; None leaves the server default.
        max_tokens: optional completion budget sent with every call.
        on_call: recorder of one `InteractionRecord` per call (not per attempt).
        clock: stamps `InteractionRecord.started_at` and dates in `Retry-After`.
        sleep, rng: injected for tests (backoff without waiting, deterministic jitter).
        backoff_base_s, backoff_max_s: exponential backoff base and cap.
        max_retry_after_s: a `Retry-After` longer than this fails the call at once (the
            durable queues retry later) instead of blocking.
        transport: an httpx transport (tests).
    """

    provider = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | SecretStr | None = None,
        grammar: bool = False,
        max_retries: int = 3,
        timeout_s: float = 30.0,
        thinking_control: ThinkingControl = "auto",
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        on_call: Recorder | None = None,
        clock: Clock | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        max_retry_after_s: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if thinking_control not in THINKING_CONTROLS:
            raise ValueError(f"thinking_control must be one of {THINKING_CONTROLS}")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = (
            api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        )
        self.grammar = grammar
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        if thinking_control == "auto":
            host = (urlsplit(self.base_url).hostname or "").lower()
            thinking_control = "none" if host.endswith("openai.com") else "chat_template_kwargs"
        self.thinking_control: ThinkingControl = thinking_control
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._on_call = on_call
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.max_retry_after_s = max_retry_after_s
        self._transport = transport
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        on_call: Recorder | None = None,
        clock: Clock | None = None,
        **kw: Any,
    ) -> OpenAICompatibleLLM:
        """Build from `Config` (`llm_base_url`, `llm_model`, `llm_api_key`, `llm_grammar`,
        `llm_max_retries`, `http_timeout_s`, and `llm_thinking_control` when present)."""
        kw.setdefault("thinking_control", getattr(config, "llm_thinking_control", "auto"))
        return cls(
            base_url=config.llm_base_url,
            model=config.llm_model,
            api_key=config.llm_api_key,
            grammar=config.llm_grammar,
            max_retries=config.llm_max_retries,
            timeout_s=config.http_timeout_s,
            on_call=on_call,
            clock=clock,
            **kw,
        )

    def __repr__(self) -> str:  # never the key
        return f"OpenAICompatibleLLM(base_url={safe_url(self.base_url)!r}, model={self.model!r})"

    # -- lifecycle ----------------------------------------------------------------------------

    def _http(self) -> httpx.Client:
        with self._client_lock:
            return self._http_locked()

    def _http_locked(self) -> httpx.Client:
        if self._client is None:
            headers = {"Content-Type": "application/json", "Accept": "application/json"}
            if self._api_key is not None and self._api_key.get_secret_value():
                headers["Authorization"] = f"Bearer {self._api_key.get_secret_value()}"
            self._client = httpx.Client(
                timeout=httpx.Timeout(self.timeout_s), headers=headers, transport=self._transport
            )
        return self._client

    def close(self) -> None:
        """Close the HTTP connection pool (a later call opens a new one)."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> OpenAICompatibleLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def status(self) -> LLMStatus:
        """Provider, model, endpoint (without credentials), grammar use and the thinking table."""
        return LLMStatus(
            provider=self.provider,
            model=self.model,
            heuristic=False,
            base_url=safe_url(self.base_url),
            grammar=self.grammar,
            thinking={str(k): v for k, v in THINKING_BY_CALL_SITE.items()},
            detail=f"OpenAI-compatible chat completions; thinking control: {self.thinking_control}",
        )

    # -- the LLM protocol -----------------------------------------------------------------------

    def complete(
        self, prompt: str, *, system: str | None = None, thinking: bool, call_site: str
    ) -> str:
        """Free-text completion; `<think>` blocks are removed from the answer."""
        body = self._body(prompt, system, thinking, structured=False)
        return self._call(call_site, body, thinking, strip_thinking)

    def complete_json(
        self,
        prompt: str,
        schema: type[M],
        *,
        call_site: str,
        thinking: bool = False,
        system: str | None = None,
        grammar: str | None = None,
    ) -> M:
        """JSON constrained by `schema` (or by `grammar` when grammars are enabled)."""
        body = self._body(prompt, system, thinking, structured=True)
        if grammar is not None and self.grammar:
            body["grammar"] = grammar
        else:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema.__name__,
                    "schema": schema.model_json_schema(),
                    "strict": False,
                },
            }
        return self._call(call_site, body, thinking, lambda text: parse_model_output(text, schema))

    def complete_grammar(
        self, prompt: str, grammar: str, *, call_site: str, system: str | None = None
    ) -> str:
        """GBNF-constrained completion (llama.cpp server); thinking is off."""
        body = self._body(prompt, system, False, structured=True)
        body["grammar"] = grammar
        return self._call(call_site, body, False, strip_thinking)

    # -- internals ----------------------------------------------------------------------------

    def _body(
        self, prompt: str, system: str | None, thinking: bool, *, structured: bool
    ) -> dict[str, Any]:
        if self.thinking_control == "soft_switch":
            prompt = f"{prompt}\n{'/think' if thinking else '/no_think'}"
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.thinking_control == "chat_template_kwargs":
            body["chat_template_kwargs"] = {"enable_thinking": bool(thinking)}
        if structured and self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def _call(
        self, call_site: str, body: dict[str, Any], thinking: bool, parse: Callable[[str], T]
    ) -> T:
        started_at = self._clock.now() if self._clock is not None else None
        prompt_chars = sum(len(m["content"]) for m in body["messages"])
        t0 = time.perf_counter()
        stats: dict[str, Any] = {"attempts": 0, "usage": {}, "output": ""}

        def record(outcome: Literal["ok", "error"], error: str | None = None) -> None:
            usage = stats["usage"] if isinstance(stats["usage"], dict) else {}
            emit(
                self._on_call,
                InteractionRecord(
                    call_site=str(call_site),
                    provider=self.provider,
                    model=self.model,
                    prompt_chars=prompt_chars,
                    output_chars=len(stats["output"]),
                    latency_ms=(time.perf_counter() - t0) * 1000,
                    outcome=outcome,
                    error=error,
                    prompt_tokens=_int(usage.get("prompt_tokens")),
                    completion_tokens=_int(usage.get("completion_tokens")),
                    total_tokens=_int(usage.get("total_tokens")),
                    thinking=thinking,
                    attempts=max(1, stats["attempts"]),
                    started_at=started_at,
                ),
            )

        try:
            data = self._post(body, call_site, stats)
            content, finish = _content(data)
            stats["output"] = content
            stats["usage"] = data.get("usage") or {}
            try:
                result = parse(content)
            except LLMError as e:
                if finish == "length":
                    raise LLMError(f"{e} (the answer was cut off at max_tokens)") from None
                raise
        except LLMError as e:
            record("error", str(e))
            raise
        record("ok")
        return result

    def _post(self, body: dict[str, Any], call_site: str, stats: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        shown = safe_url(url)
        for attempt in range(self.max_retries + 1):
            stats["attempts"] = attempt + 1
            try:
                return self._attempt(url, shown, body, call_site, attempt)
            except _Retry as r:
                if attempt >= self.max_retries:
                    tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
                    cls = LLMUnavailable if r.unavailable else LLMError
                    raise cls(f"{r} (gave up after {tries})") from None
                delay = r.retry_after if r.retry_after is not None else self._backoff(attempt)
                if delay > self.max_retry_after_s:
                    raise LLMError(
                        f"{r}; the server asks to retry after {delay:.0f} s, longer than "
                        f"max_retry_after_s={self.max_retry_after_s:.0f}"
                    ) from None
                log.info("LLM %s: %s; retrying in %.2f s", call_site, r, delay)
                self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(
        self, url: str, shown: str, body: dict[str, Any], call_site: str, attempt: int
    ) -> dict[str, Any]:
        log.debug("POST %s (call site %s, attempt %d)", shown, call_site, attempt + 1)
        try:
            resp = self._http().post(url, json=body)
        except httpx.TimeoutException:
            raise _Retry(
                f"{shown} timed out after {self.timeout_s:g} s", unavailable=True
            ) from None
        except httpx.TransportError as e:
            raise _Retry(f"cannot reach {shown}: {type(e).__name__}", unavailable=True) from None
        code = resp.status_code
        if code == 429:
            raise _Retry(
                f"{shown} rate-limited the request (HTTP 429)", retry_after=self._retry_after(resp)
            )
        if code >= 500:
            raise _Retry(f"{shown} failed with HTTP {code}: {self._redact(_error_text(resp))}")
        if code >= 400:
            detail = self._redact(_error_text(resp))
            raise LLMError(f"{shown} rejected the request with HTTP {code}: {detail}")
        try:
            data = resp.json()
        except ValueError:
            raise LLMError(f"{shown} answered HTTP {code} with a body that is not JSON") from None
        if not isinstance(data, dict):
            raise LLMError(f"{shown} answered with JSON that is not an object")
        return data

    def _redact(self, text: str) -> str:
        """`text` with the API key (should a server echo it) replaced by ***."""
        if self._api_key is not None:
            key = self._api_key.get_secret_value()
            if key:
                text = text.replace(key, "***")
        return text

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with equal jitter: half the step fixed, half random."""
        step = min(self.backoff_max_s, self.backoff_base_s * (2**attempt))
        return step / 2 + self._rng.uniform(0, step / 2)

    def _retry_after(self, resp: httpx.Response) -> float | None:
        value = resp.headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        if self._clock is not None:
            now = self._clock.now()
        else:
            from ..clock import SystemClock

            now = SystemClock().now()
        return max(0.0, (when - now).total_seconds())


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _content(data: dict[str, Any]) -> tuple[str, str | None]:
    """(answer text, finish_reason) of a chat-completions response."""
    try:
        choice = data["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise LLMError("the server's response has no choices[0].message") from None
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        hint = (
            " (only reasoning was returned; raise max_tokens or turn thinking off)"
            if message.get("reasoning_content")
            else ""
        )
        raise LLMError(f"the model returned no content{hint}")
    return content, choice.get("finish_reason")


def _error_text(resp: httpx.Response, limit: int = 300) -> str:
    try:
        data = resp.json()
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                err = err.get("message") or err
            return str(err)[:limit]
    except ValueError:
        pass
    return (resp.text or resp.reason_phrase or "")[:limit].strip()
