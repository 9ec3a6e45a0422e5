"""The OpenAI-compatible and Ollama providers against a fake server on 127.0.0.1."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from salience.embed import OllamaEmbedder, OpenAIEmbedder
from salience.errors import EmbeddingError, ProviderUnavailable

if TYPE_CHECKING:
    from conftest import FakeServer

KEY = "sk-test-SECRET-0123456789"


def openai(server: FakeServer, **kw: Any) -> OpenAIEmbedder:
    args: dict[str, Any] = {
        "base_url": server.url + "/v1",
        "model_name": "text-embedding-test",
        "api_key": KEY,
        "timeout_s": 5.0,
    }
    return OpenAIEmbedder(**(args | kw))


def ollama(server: FakeServer, **kw: Any) -> OllamaEmbedder:
    args: dict[str, Any] = {"url": server.url, "model_name": "all-minilm", "timeout_s": 5.0}
    return OllamaEmbedder(**(args | kw))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- success -----------------------------------------------------------------------------------
def test_openai_success_probes_dimension_batches_and_keeps_order(fake_server: FakeServer) -> None:
    emb = openai(fake_server, batch_size=2)
    assert emb.status().dim == 0  # status() makes no request
    assert fake_server.requests == []
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    vecs = emb.embed_passages(texts)
    np.testing.assert_allclose(
        vecs, fake_server.expected(texts), rtol=1e-6
    )  # the server answers reversed
    assert emb.dim == 8
    assert emb.model == "openai/text-embedding-test"
    probe, *batches = fake_server.requests
    assert probe["body"]["input"] == ["salience embedding probe"]
    assert [r["body"]["input"] for r in batches] == [
        ["alpha", "beta"],
        ["gamma", "delta"],
        ["epsilon"],
    ]
    assert all(r["path"] == "/v1/embeddings" for r in fake_server.requests)
    assert batches[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    assert batches[0]["body"]["model"] == "text-embedding-test"
    assert emb.status().dim == 8
    emb.close()


def test_openai_configured_dimension_skips_the_probe(fake_server: FakeServer) -> None:
    emb = openai(fake_server, dim=8, api_key=None)
    emb.embed_queries(["x"])
    assert len(fake_server.requests) == 1
    assert "Authorization" not in fake_server.requests[0]["headers"]


def test_ollama_success(fake_server: FakeServer) -> None:
    fake_server.dim = 12
    emb = ollama(fake_server)
    vecs = emb.embed_queries(["one", "two"])
    np.testing.assert_allclose(vecs, fake_server.expected(["one", "two"]), rtol=1e-6)
    assert emb.model == "ollama/all-minilm:latest"
    assert fake_server.requests[-1]["path"] == "/api/embed"
    assert fake_server.requests[-1]["body"] == {
        "model": "all-minilm",
        "input": ["one", "two"],
        "truncate": True,
    }
    assert emb.embed_passages([]).shape == (0, 12)


def test_known_task_prefixes_are_added(fake_server: FakeServer) -> None:
    emb = ollama(fake_server, model_name="nomic-embed-text:v1.5", dim=8)
    emb.embed_queries(["where is it"])
    emb.embed_passages(["it is here"])
    assert [r["body"]["input"] for r in fake_server.requests] == [
        ["search_query: where is it"],
        ["search_document: it is here"],
    ]
    assert "search_query" in emb.status().detail


# -- bad payloads --------------------------------------------------------------------------------
def test_wrong_dimension_after_the_probe(fake_server: FakeServer) -> None:
    emb = openai(fake_server)
    emb.embed_queries(["probe first"])
    fake_server.dim = 7
    with pytest.raises(EmbeddingError, match=r"7-dimensional vectors; expected 8") as err:
        emb.embed_queries(["now shorter"])
    assert fake_server.url in str(err.value)


def test_nan_in_payload(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (
        200,
        '{"embeddings": [[0.1, NaN, 0.3]]}',
        0.0,
    )
    with pytest.raises(EmbeddingError, match="NaN or infinite"):
        ollama(fake_server, dim=3).embed_queries(["x"])


def test_wrong_count_and_shape_of_payload(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (
        200,
        {"data": [{"index": 0, "embedding": [1.0]}]},
        0.0,
    )
    with pytest.raises(EmbeddingError, match="returned 1 embeddings for 2 inputs"):
        openai(fake_server, dim=1).embed_queries(["a", "b"])
    fake_server.respond = lambda path, body: (200, {"object": "list"}, 0.0)
    with pytest.raises(EmbeddingError, match="no 'data' list"):
        openai(fake_server, dim=1).embed_queries(["a"])
    fake_server.respond = lambda path, body: (200, "<html>proxy page</html>", 0.0)
    with pytest.raises(EmbeddingError, match="not JSON"):
        ollama(fake_server, dim=1).embed_queries(["a"])


# -- HTTP errors -----------------------------------------------------------------------------------
def test_server_error_names_the_url_and_redacts_the_key(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (500, {"error": f"boom while using key {KEY}"}, 0.0)
    with pytest.raises(EmbeddingError, match="answered HTTP 500") as err:
        openai(fake_server, dim=8).embed_queries(["x"])
    message = str(err.value)
    assert f"{fake_server.url}/v1/embeddings" in message
    assert KEY not in message and "***" in message


def test_rejected_key_is_unavailable_and_never_echoed(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (
        401,
        {"error": f"Incorrect API key provided: {KEY}"},
        0.0,
    )
    with pytest.raises(ProviderUnavailable, match="rejected the credentials") as err:
        openai(fake_server).embed_queries(["x"])
    assert KEY not in str(err.value)


def test_url_credentials_are_not_shown(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (503, {"error": "overloaded"}, 0.0)
    url = fake_server.url.replace("http://", "http://user:hunter2@")
    with pytest.raises(EmbeddingError, match="HTTP 503") as err:
        OpenAIEmbedder(base_url=url + "/v1", model_name="m", dim=2).embed_queries(["x"])
    assert "hunter2" not in str(err.value)


def test_ollama_missing_model(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (
        404,
        {"error": f'model "{body["model"]}" not found, try pulling it first'},
        0.0,
    )
    with pytest.raises(ProviderUnavailable, match=r"not found, try pulling it first.*'ghost'"):
        ollama(fake_server, model_name="ghost").embed_queries(["x"])


def test_timeout(fake_server: FakeServer) -> None:
    fake_server.respond = lambda path, body: (200, {"embeddings": [[1.0]]}, 2.0)
    with pytest.raises(EmbeddingError, match=r"did not answer within 0\.3 s") as err:
        ollama(fake_server, timeout_s=0.3, dim=1).embed_queries(["slow"])
    assert fake_server.url in str(err.value)


def test_connection_refused() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(ProviderUnavailable, match=rf"cannot reach the Ollama server at {url}"):
        OllamaEmbedder(url=url, model_name="m").embed_queries(["x"])
    with pytest.raises(ProviderUnavailable, match="cannot reach the OpenAI-compatible"):
        OpenAIEmbedder(base_url=url + "/v1", model_name="m", api_key=KEY).embed_queries(["x"])


def test_url_without_scheme_is_a_clear_configuration_error() -> None:
    with pytest.raises(ProviderUnavailable, match=r"invalid URL .*missing an 'http://'"):
        OpenAIEmbedder(base_url="localhost:8000/v1", model_name="m", api_key=KEY).embed_queries(
            ["x"]
        )
