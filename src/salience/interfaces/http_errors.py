"""Errors as JSON (`{"error": {"code", "message", "details"}}`) with stable codes mapped from
`SalienceError` types, and the ASGI middlewares: request body limit, quota warning header."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    AmbiguousId,
    ConflictError,
    ContentTooLarge,
    EmbedderMismatch,
    EmbeddingError,
    InvalidInput,
    LLMError,
    NotFound,
    ProviderUnavailable,
    SalienceError,
    StoreError,
    public_message,
)
from .auth import Forbidden, Unauthorized
from .quotas import QuotaExceeded, TierError

logger = logging.getLogger("salience.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# most specific first: the first class in an error's MRO that is listed here decides
STATUS: dict[type[SalienceError], int] = {
    ContentTooLarge: 413,
    AmbiguousId: 409,  # an id prefix matching several records (the message lists them)
    InvalidInput: 422,
    NotFound: 404,
    EmbedderMismatch: 409,
    ConflictError: 409,
    Unauthorized: 401,
    Forbidden: 403,
    TierError: 403,
    QuotaExceeded: 429,
    ProviderUnavailable: 503,
    EmbeddingError: 502,
    LLMError: 502,
    StoreError: 503,
}
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
}
QUOTA_HEADER = "x-salience-quota-warning"
TENANT_STATE = "salience_tenant"


def status_for(error: SalienceError) -> int:
    """HTTP status of a Salience error (500 for an unlisted type)."""
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def error_response(
    status: int, code: str, message: str, details: Any = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def _salience_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SalienceError)
    status = status_for(exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status >= 500:
        logger.warning("%s: %s", exc.code, exc)
    return error_response(
        status, exc.code, public_message(exc), getattr(exc, "details", None), headers
    )


def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    details = [
        {
            "loc": [str(p) for p in e.get("loc", ())],
            "msg": str(e.get("msg", "")),
            "type": e.get("type"),
        }
        for e in errors[:20]
    ]
    if any(e.get("type") == "json_invalid" for e in errors):
        return error_response(400, "malformed_json", "the request body is not valid JSON", details)
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    where = ".".join(first["loc"]) or "request"
    return error_response(422, "invalid_request", f"{where}: {first['msg']}", details)


def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail), headers=exc.headers)


def _internal_error(_: Request, exc: Exception) -> JSONResponse:
    logger.error("unhandled error", exc_info=exc)
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    """Register the JSON error handlers on `app`."""
    app.add_exception_handler(SalienceError, _salience_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)


class _TooLarge(Exception):
    pass


async def _send_json(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """Rejects request bodies over `max_bytes` with 413 before anything parses them.

    A declared Content-Length over the limit is refused at once; otherwise the body is read
    (at most `max_bytes` + one chunk) and replayed to the app.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s  # longest wait for one body chunk (None: no limit)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request body over the {self.max_bytes:,}-byte limit"
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _send_json(send, 400, "bad_request", "invalid Content-Length header")
                    return
                if declared > self.max_bytes:
                    await _send_json(send, 413, "payload_too_large", too_large)
                    return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            try:
                message = await asyncio.wait_for(receive(), self.timeout_s)
            except TimeoutError:  # a declared body that never comes: free the worker
                await _send_json(send, 408, "request_timeout", "the request body stalled")
                return
            if message["type"] != "http.request":  # disconnect
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_json(send, 413, "payload_too_large", too_large)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class QuotaHeaderMiddleware:
    """Adds `X-Salience-Quota-Warning` to responses for a tenant at ≥ 80% of its monthly
    embedding quota (the route's mind dependency records the tenant in the request state)."""

    def __init__(self, app: ASGIApp, warning: Callable[[str], str | None]) -> None:
        self.app = app
        self.warning = warning

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                tenant = scope["state"].get(TENANT_STATE)
                text = self.warning(tenant) if tenant else None
                if text:
                    message["headers"] = [
                        *message.get("headers", []),
                        (QUOTA_HEADER.encode(), text.encode()),
                    ]
            await send(message)

        await self.app(scope, receive, send_with_header)
