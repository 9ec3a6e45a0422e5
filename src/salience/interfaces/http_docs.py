"""`/docs` (Swagger UI) and `/redoc` served from packaged assets, so they work offline.

FastAPI's defaults load Swagger UI and ReDoc from a CDN: on a machine without internet the
pages stay blank. The assets come from the `fastapi-offline` package (Swagger UI 5, which reads
the OpenAPI 3.1 document FastAPI writes), part of the `server` extra.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from ..errors import MissingExtra

ASSETS_URL = "/docs-assets"


def assets_dir() -> Path:
    """The packaged Swagger UI / ReDoc files. Raises `MissingExtra` without the server extra."""
    try:
        import fastapi_offline
    except ImportError as e:
        raise MissingExtra("fastapi-offline", "server") from e
    return Path(fastapi_offline.__file__).parent / "static"


def install_offline_docs(app: FastAPI) -> None:
    """Serve `/docs` and `/redoc` from local assets (build the app with `docs_url=None,
    redoc_url=None`)."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")
    title = f"{app.title} API"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=title,
            swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_URL}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=title,
            redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        )
