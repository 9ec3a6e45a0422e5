"""Text embedders: the packaged local models, HTTP providers, the hash fallback and the chain.

Start with `make_embedder(config)`. Importing this package loads no model and imports none of
numpy, onnxruntime, tokenizers or httpx; they are imported on first use.
"""

from .base import Embedder, EmbedderStatus, check_vectors, fit_dimension
from .e5 import E5Embedder
from .factory import (
    PROVIDER_NAMES,
    AutoEmbedder,
    EmbedderAvailability,
    FittedEmbedder,
    available_embedders,
    build_provider,
    make_embedder,
    probe,
    resolve_auto,
)
from .hash import DegradedEmbeddingWarning, HashEmbedder
from .http import OllamaEmbedder, OpenAIEmbedder
from .onnx import OnnxEmbedder, OnnxModelSpec

__all__ = [
    "PROVIDER_NAMES",
    "AutoEmbedder",
    "DegradedEmbeddingWarning",
    "E5Embedder",
    "Embedder",
    "EmbedderAvailability",
    "EmbedderStatus",
    "FittedEmbedder",
    "HashEmbedder",
    "OllamaEmbedder",
    "OnnxEmbedder",
    "OnnxModelSpec",
    "OpenAIEmbedder",
    "available_embedders",
    "build_provider",
    "check_vectors",
    "fit_dimension",
    "make_embedder",
    "probe",
    "resolve_auto",
]
