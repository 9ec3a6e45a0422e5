"""The documentation people work from (issue 19): the HTTP and MCP references are current (they
are generated from the code: every route and tool with its parameters), and the site — the SDK
reference generated from the docstrings included — builds with warnings as errors."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("fastapi")
pytest.importorskip("mcp")


def _gen():
    spec = importlib.util.spec_from_file_location("gen_reference", ROOT / "docs/gen_reference.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sections(markdown: str) -> dict[str, set[str]]:
    """{"## heading": {parameter and field names}} of a generated reference page."""
    out: dict[str, set[str]] = {}
    current = None
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = line
            out[current] = set()
        elif current and line.startswith("| `"):
            out[current].add(line.split("`")[1])
    return out


def test_http_and_mcp_references_are_current():
    """Every route and tool of the code, with every parameter, is in the committed pages
    (descriptions and limits may lag; regenerate with `python docs/gen_reference.py`)."""
    gen = _gen()
    for page, text in (("http.md", gen.http_reference()), ("mcp.md", gen.mcp_reference())):
        committed = _sections((ROOT / "docs/reference" / page).read_text())
        for heading, params in _sections(text).items():
            assert heading in committed, f"{heading} is missing from docs/reference/{page}: " \
                "run `python docs/gen_reference.py`"
            missing = params - committed[heading]
            assert not missing, f"{heading}: {sorted(missing)} undocumented in {page}"
    http = (ROOT / "docs/reference/http.md").read_text()
    assert "## `POST /v1/minds/{mind}/awareness/{item_id}/complete`" in http
    assert "| `query` | string | yes |" in http  # a body field with its type
    mcp = (ROOT / "docs/reference/mcp.md").read_text()
    assert "## `complete_awareness`" in mcp and "`item_id`" in mcp


@pytest.mark.skipif(shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None,
                    reason="needs the dev extra (mkdocs, mkdocstrings-python)")
def test_docs_site_builds_strict(tmp_path: Path):
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    sdk = (tmp_path / "site" / "reference" / "sdk" / "index.html").read_text()
    assert "resolve_id" in sdk and "remember_turn" in sdk  # methods rendered from docstrings
