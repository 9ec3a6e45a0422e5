"""`/docs` works offline (issue 19): Swagger UI from packaged assets, checked over loopback HTTP
and rendered by headless Chromium with no network but the loopback server."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from test_http_live import live_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_docs_pages_use_no_cdn(tmp_path: Path):
    with live_server(tmp_path) as live:
        for page in ("/docs", "/redoc"):
            r = live.client.get(page)
            assert r.status_code == 200
            assert "cdn." not in r.text and "googleapis" not in r.text, page
        html = live.client.get("/docs").text
        for asset in ("/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"):
            assert asset in html
            got = live.client.get(asset)
            assert got.status_code == 200 and len(got.content) > 10_000


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package")
def test_docs_render_in_headless_chromium_offline(tmp_path: Path):
    with live_server(tmp_path) as live:
        url = f"{live.url}/docs"
        # every host but the loopback server resolves nowhere: a CDN request would fail
        out = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--virtual-time-budget=15000", "--dump-dom", url],
            capture_output=True, text=True, timeout=180,
        )
    assert out.returncode == 0, out.stderr[-2000:]
    dom = out.stdout
    assert "opblock" in dom, dom[:2000]  # Swagger UI rendered the operations
    assert "/v1/minds/{mind}/search" in dom
    assert "/v1/minds/{mind}/awareness/{item_id}/complete" in dom
