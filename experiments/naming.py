"""Every colour-naming system that exists on the board, built as an encoder for :mod:`huesenv.metrics.naming`.

A system is named by a spec (``huesenv metrics naming --systems …``).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.naming``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents import make_agent
from huesenv.agents.clip_agent import BASIC_COLOUR_TERMS
from huesenv.agents.text_embedding import dictionary_words
from huesenv.board import N_CELLS, load_board, parse_coord
from huesenv.humans import load_humans
from huesenv.metrics import naming as ib
from huesenv.trust import read_user_text

COHORT_ALPHA = 1.0 / N_CELLS
KMEANS_STARTS = 5


@dataclass(frozen=True)
class NamingSystem:
    """One naming system: a name for the table, its words, and its ``(480, W)`` encoder ``q(w | cell)``."""

    name: str
    words: tuple[str, ...]
    encoder: np.ndarray
    kind: str


def from_labels(name: str, labels: Sequence[Any], kind: str) -> NamingSystem:
    q, words = ib.encoder_from_labels(np.asarray([str(x) for x in labels]))
    return NamingSystem(name, tuple(str(w) for w in words), q, kind)


def macro_system() -> NamingSystem:
    return from_labels("macro", load_board().categories, "macro")


def kmeans_system(k: int, seed: int = 0) -> NamingSystem:
    """k-means (scipy) with ``k`` parts on raw CIELAB (the metric the meanings use); lowest inertia of 5 starts."""
    from scipy.cluster.vq import kmeans2

    if not 1 <= int(k) <= N_CELLS:
        raise ValueError(f"kmeans:{k}: expected 1-{N_CELLS} parts")
    lab = np.asarray(load_board().lab, dtype=np.float64)
    best, best_inertia = None, np.inf
    for start in range(KMEANS_STARTS):
        centres, labels = kmeans2(lab, int(k), seed=seed * 1000 + start, minit="++")
        inertia = float(((lab - centres[labels]) ** 2).sum())
        if inertia < best_inertia:
            best, best_inertia = labels, inertia
    assert best is not None
    return from_labels(f"kmeans-{int(k)}", best, "kmeans")


def colour_term_words(words: Sequence[str]) -> list[str]:
    """The words that are XKCD colour-survey names (the text-embedding agent's dictionary)."""
    return dictionary_words(words)


def cohort_counts(humans: Any, words: Sequence[str]) -> np.ndarray:
    """``(W, 480)`` answer counts of each word on each cell."""
    return np.stack([np.bincount(np.asarray(humans.cells(w)), minlength=N_CELLS) for w in words]).astype(
        float
    )


def cohort_system(humans: Any, colour_terms: bool = False) -> NamingSystem:
    """The cohort's comprehension data inverted into a naming system (module docstring)."""
    words = list(humans.words)
    if colour_terms:
        words = colour_term_words(words)
        if not words:
            raise ValueError("cohort-colour-terms: the cohort has no word that is a colour name")
    counts = cohort_counts(humans, words)
    p_c_given_w = (counts + COHORT_ALPHA) / (counts.sum(1, keepdims=True) + N_CELLS * COHORT_ALPHA)
    q = p_c_given_w.T / p_c_given_w.T.sum(1, keepdims=True)  # uniform p(w)
    return NamingSystem("cohort-colour-terms" if colour_terms else "cohort", tuple(words), q, "cohort")


MAX_LABELS_BYTES = 16 << 20


def _read_cell_labels(path: Path, label_columns: Sequence[str]) -> list[str]:
    """One label per cell from a CSV with a ``coord`` (or ``cell``) column: every cell exactly once."""
    labels: dict[int, str] = {}
    text = read_user_text(path, expected="a CSV of cell labels", max_bytes=MAX_LABELS_BYTES)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    where = next((c for c in ("coord", "cell") if c in header), None)
    label = next((c for c in label_columns if c in header), None)
    if where is None or label is None:
        raise ValueError(
            f"{path}: line 1: expected columns coord (or cell) and {' or '.join(label_columns)}, got {header}"
        )
    for line, row in enumerate(reader, start=2):
        try:
            cell = parse_coord(row[where])
        except ValueError as err:
            raise ValueError(f"{path}: line {line}: {where}: {err}") from None
        text = (row[label] or "").strip()
        if not text:
            raise ValueError(f"{path}: line {line}: {label}: expected a non-empty label")
        if cell in labels:
            raise ValueError(f"{path}: line {line}: {where}: cell {row[where]} given twice")
        labels[cell] = text
    if len(labels) != N_CELLS:
        raise ValueError(f"{path}: expected a label for each of the {N_CELLS} cells, got {len(labels)}")
    return [labels[i] for i in range(N_CELLS)]


def lexicon_system(path: str | Path) -> NamingSystem:
    """An emergent lexicon: ``lexicon_map.csv`` of a self-play run (a folder) or that CSV itself."""
    p = Path(path)
    csv_path = p / "lexicon_map.csv" if p.is_dir() else p
    if not csv_path.is_file():
        raise ValueError(f"lexicon:{path}: expected a self-play run folder with lexicon_map.csv, or that CSV")
    name = p.name if p.is_dir() else p.stem
    return from_labels(f"lexicon-{name}", _read_cell_labels(csv_path, ("word",)), "lexicon")


def consensus_system(path: str | Path) -> NamingSystem:
    """A tessellation consensus (collect app): one category per cell."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"consensus:{path}: expected a CSV file")
    return from_labels(
        f"consensus-{p.stem}", _read_cell_labels(p, ("category", "label", "word")), "consensus"
    )


def model_system(spec: str, **agent_kwargs: Any) -> NamingSystem:
    """A text-embedding or CLIP agent naming each cell by its highest-scoring basic colour term."""
    agent: Any = make_agent(spec, **agent_kwargs)
    scores = np.asarray(agent.cell_scores(list(BASIC_COLOUR_TERMS)), dtype=np.float64)  # (terms, 480)
    if scores.shape != (len(BASIC_COLOUR_TERMS), N_CELLS):
        raise ValueError(
            f"{spec}: expected ({len(BASIC_COLOUR_TERMS)}, {N_CELLS}) scores, got {scores.shape}"
        )
    labels = [BASIC_COLOUR_TERMS[i] for i in np.argmax(scores, axis=0)]
    return from_labels(spec, labels, spec.split(":", 1)[0])


def build_system(spec: str, *, humans: Any = None, seed: int = 0, **agent_kwargs: Any) -> NamingSystem:
    """The system a spec names (module docstring); ``ValueError`` for an unknown spec."""
    kind, _, arg = spec.partition(":")
    if kind == "macro" and not arg:
        return macro_system()
    if kind in ("cohort", "cohort-colour-terms") and not arg:
        if humans is None:
            humans = load_humans()
        return cohort_system(humans, colour_terms=kind == "cohort-colour-terms")
    if kind == "kmeans":
        try:
            k = int(arg)
        except ValueError:
            raise ValueError(f"--systems {spec}: expected kmeans:K with K a positive integer") from None
        return kmeans_system(k, seed=seed)
    if kind == "lexicon" and arg:
        return lexicon_system(arg)
    if kind == "consensus" and arg:
        return consensus_system(arg)
    if kind in ("text-embedding", "clip"):
        if kind == "clip" and not arg:
            raise ValueError(f"--systems {spec}: expected clip:MODEL")
        return model_system(spec, **agent_kwargs)
    raise ValueError(
        f"--systems {spec}: expected macro, cohort, cohort-colour-terms, kmeans:K, lexicon:PATH, "
        "consensus:PATH, text-embedding[:MODEL] or clip:MODEL"
    )


def analyse(
    systems: Sequence[NamingSystem],
    *,
    sigma2: float = ib.DEFAULT_SIGMA2,
    need: str = "uniform",
    humans: Any = None,
    betas: np.ndarray | None = None,
    cache_dir: Any = None,
) -> tuple[Any, ib.Frontier, ib.IBModel]:
    """The IB table (one row per system), the frontier and the model used."""
    import pandas as pd

    model = naming_model(sigma2, need, humans)
    front = ib.frontier(model, betas, cache_dir=cache_dir)
    rows = []
    for system in systems:
        eff = ib.efficiency(model, system.encoder, front, source=system.name)
        rows.append(
            {
                "system": system.name,
                "kind": system.kind,
                "words": eff.words,
                "complexity_bits": eff.complexity_bits,
                "accuracy_bits": eff.accuracy_bits,
                "efficiency_loss": eff.efficiency_loss,
                "gnid": eff.gnid,
                "beta": eff.beta,
                "frontier_accuracy_bits": eff.frontier_accuracy_bits,
                "sigma2": model.sigma2,
                "need": model.need_name,
            }
        )
    return pd.DataFrame(rows), front, model


def naming_model(sigma2: float, need: str, humans: Any = None) -> ib.IBModel:
    """The board's IB model with need ``uniform`` or ``cohort`` (the cohort's answers per cell, smoothed)."""
    if need == "uniform":
        return ib.ib_model(sigma2=sigma2)
    if need == "cohort":
        if humans is None:
            humans = load_humans()
        counts = cohort_counts(humans, list(humans.words)).sum(0)
        return ib.ib_model(sigma2=sigma2, need=ib.need_from_counts(counts), need_name="cohort")
    raise ValueError(f"--need {need}: expected uniform or cohort")
