"""The emergent lexicon of a speaker/listener pair, measured against the human cohort.

Two views of one lexicon over the board's 480 cells and a vocabulary of ``V`` words.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.lexicon``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from huesenv import metrics
from huesenv.board import N_CELLS, format_coord, load_board
from huesenv.categories import MACRO_COLOURS
from huesenv.game.rules import DEFAULT_RULES
from huesenv.logs.schema import LogRecord
from huesenv.stats import chi2_threshold, mahalanobis_d2, sample_covariance
from huesenv.vocabulary import category_of, is_known


# -- partitions ---------------------------------------------------------------------------------------------------
def adjusted_rand_index(a: Sequence[Any] | np.ndarray, b: Sequence[Any] | np.ndarray) -> float:
    """Hubert & Arabie's ARI of two labelings of the same items (1 = same partition, ~0 = chance), by
    scikit-learn's ``adjusted_rand_score``."""
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(np.asarray(a), np.asarray(b)))


def normalised_mutual_information(a: Sequence[Any] | np.ndarray, b: Sequence[Any] | np.ndarray) -> float:
    """NMI with the arithmetic-mean normalisation, ``I(A;B) / ((H(A)+H(B))/2)``, by scikit-learn's
    ``normalized_mutual_info_score``.

    Choice documented: 0 when either labeling is constant (it carries no information about the other),
    where scikit-learn gives 1 for two constant labelings.
    """
    from sklearn.metrics import normalized_mutual_info_score

    a, b = np.asarray(a), np.asarray(b)
    if len(np.unique(a)) < 2 or len(np.unique(b)) < 2:
        return 0.0
    return float(normalized_mutual_info_score(a, b, average_method="arithmetic"))


def human_naming_map(humans: Any, vocabulary: Sequence[str], rules: Any = None) -> np.ndarray:
    """Each cell → index (into ``vocabulary``) of the word whose human answers fall most inside its 3×3 frame.

    Words weigh equally (each word's answers are normalised to sum to 1), so a
    word answered by more people does not win cells for that reason.
    """

    rules = rules or DEFAULT_RULES
    counts = np.zeros((len(vocabulary), N_CELLS))
    for i, w in enumerate(vocabulary):
        if w in set(humans.words):
            cells = humans.cells(w)
            counts[i] = np.bincount(cells, minlength=N_CELLS) / max(len(cells), 1)
    share = counts @ np.asarray(rules.in_frame_matrix, dtype=np.float64).T  # [word, cell]
    return np.argmax(share, axis=0)


def reference_partitions(k: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Two ``k``-part partitions of the board to read NMI/ARI against: k-means on the cells' grid
    positions (contiguous regions that know nothing of colour) and on their CIELAB colours."""
    from scipy.cluster.vq import kmeans2

    board = load_board()
    pos = np.stack([np.asarray(board.rows, float), np.asarray(board.cols, float)], axis=1)
    out = {}
    for name, feats in (("position", pos), ("colour", np.asarray(board.lab, dtype=np.float64))):
        z = (feats - feats.mean(0)) / feats.std(0)
        _, labels = kmeans2(z, int(k), seed=seed, minit="++")
        out[name] = labels
    return out


def best_relabelling_null(fails: np.ndarray, n_words: int, rng: np.random.Generator, n: int = 20) -> float:
    """The best-relabelling fail rate of ``n_words`` uniformly random cells (mean of ``n`` draws): the floor
    that renaming reaches by chance, since it picks the luckiest of many words for each human word."""
    return float(
        np.mean([best_relabelling_fail_rate(fails, rng.integers(N_CELLS, size=n_words)) for _ in range(n)])
    )


# -- label-bound --------------------------------------------------------------------------------------------------
def fail_matrix(humans: Any, words: Sequence[str], alpha: float = 0.05) -> np.ndarray:
    """``(W, 480)`` bool: is a top-1 answer on each cell a Mahalanobis outlier for each word's human cloud?"""
    xy = load_board().xy
    threshold = chi2_threshold(alpha, dof=2)
    out = np.ones((len(words), N_CELLS), dtype=bool)
    for i, w in enumerate(words):
        pts = humans.xy(w)
        if len(pts) >= 3:
            out[i] = mahalanobis_d2(xy, pts.mean(axis=0), sample_covariance(pts)) > threshold
    return out


def permutation_null(
    fails: np.ndarray, top1: np.ndarray, rng: np.random.Generator, n: int = 200
) -> np.ndarray:
    """Fail rates of the map ``word i → top1[i]`` with the word labels shuffled ``n`` times."""
    idx = np.arange(len(top1))
    return np.array([fails[idx, top1[rng.permutation(len(top1))]].mean() for _ in range(n)])


def best_relabelling_fail_rate(fails: np.ndarray, top1: np.ndarray) -> float:
    """The lowest fail rate over one-to-one renamings of the emergent words (Hungarian assignment)."""
    from scipy.optimize import linear_sum_assignment

    cost = fails[:, top1].astype(np.float64)  # [human word, emergent word]
    r, c = linear_sum_assignment(cost)
    return float(cost[r, c].mean())


# -- everything ---------------------------------------------------------------------------------------------------
def lexicon_metrics(
    speaker: np.ndarray,
    listener_probs: np.ndarray,
    vocabulary: Sequence[str],
    humans: Any,
    *,
    alpha: float = 0.05,
    top_k: int = 5,
    n_permutations: int = 200,
    seed: int = 0,
    word_records: Sequence[Any] | None = None,
) -> tuple[dict[str, float], dict[str, pd.DataFrame]]:
    """Scalar metrics and tables of one lexicon (see the module docstring).

    ``speaker``: ``(480,)`` word index per cell; ``listener_probs``: ``(V, 480)``
    cell distribution per word.  ``word_records``: the listener's ``word_query``
    records (from :func:`huesenv.agents.evaluate_words`); built from
    ``listener_probs`` when not given.
    """

    board = load_board()
    vocab = tuple(vocabulary)
    speaker = np.asarray(speaker, dtype=np.int64)
    probs = np.asarray(listener_probs, dtype=np.float64)
    out: dict[str, float] = {}
    tables: dict[str, pd.DataFrame] = {}

    # usage
    counts = np.bincount(speaker, minlength=len(vocab))
    used = counts > 0
    p = counts[used] / counts.sum()
    entropy = float(-(p * np.log2(p)).sum())
    out.update(
        words_used=int(used.sum()),
        cells_per_word_mean=float(counts[used].mean()),
        cells_per_word_max=int(counts.max()),
        usage_entropy_bits=entropy,
        effective_words=float(2**entropy),
    )
    cats = np.asarray(board.categories)
    region_rows = []
    for cat in MACRO_COLOURS:
        in_cat = speaker[cats == cat]
        if in_cat.size == 0:
            continue
        wc = np.bincount(in_cat, minlength=len(vocab))
        top = int(np.argmax(wc))
        region_rows.append(
            {
                "region": cat,
                "cells": int(in_cat.size),
                "words": int((wc > 0).sum()),
                "top_word": vocab[top],
                "purity": float(wc[top] / in_cat.size),
            }
        )
    tables["regions"] = pd.DataFrame(region_rows)
    out["words_per_region_mean"] = float(tables["regions"]["words"].mean())
    out["region_purity_mean"] = float(tables["regions"]["purity"].mean())
    word_rows = [
        {"word": w, "cells": int(counts[i]), "listener_top1": int(np.argmax(probs[i]))}
        for i, w in enumerate(vocab)
    ]
    tables["words"] = pd.DataFrame(word_rows)

    # label-free agreement
    human_vocab = [w for w in vocab if w in set(humans.words)]
    naming = human_naming_map(humans, human_vocab)
    out["ari_macro_colour"] = adjusted_rand_index(speaker, cats)
    out["nmi_macro_colour"] = normalised_mutual_information(speaker, cats)
    out["ari_human_naming"] = adjusted_rand_index(speaker, naming)
    out["nmi_human_naming"] = normalised_mutual_information(speaker, naming)
    human_counts = np.bincount(naming, minlength=len(human_vocab))
    out["human_words_used"] = int((human_counts > 0).sum())
    if out["words_used"] > 1:
        for name, labels in reference_partitions(int(out["words_used"]), seed).items():
            out[f"nmi_macro_colour_{name}_kmeans"] = normalised_mutual_information(labels, cats)

    # label-bound agreement (words people answered)
    rows = [vocab.index(w) for w in human_vocab]
    top1 = np.argmax(probs[rows], axis=1)
    fails = fail_matrix(humans, human_vocab, alpha)
    null = permutation_null(fails, top1, np.random.default_rng(seed), n_permutations)
    if word_records is None:
        word_records = listener_records(probs, vocab, top_k=top_k)
    word_df = metrics.word_level(list(word_records), humans, alpha=alpha, top_k=top_k)
    agent = metrics.agent_level(word_df).iloc[0]
    out.update(
        mahalanobis_fail_rate=float(agent["mahalanobis_fail_rate"]),
        hotelling_fail_rate=float(agent["hotelling_fail_rate"]),
        colour_match_rate=float(agent["colour_match_rate"]),
        human_fail_rate=float(agent["human_fail_rate"]),
        null_fail_rate_mean=float(null.mean()),
        null_fail_rate_p05=float(np.quantile(null, 0.05)),
        null_fail_rate_p95=float(np.quantile(null, 0.95)),
        p_value_below_null=float((np.sum(null <= agent["mahalanobis_fail_rate"]) + 1) / (len(null) + 1)),
        best_relabelling_fail_rate=best_relabelling_fail_rate(fails, top1),
        best_relabelling_null=best_relabelling_null(fails, len(top1), np.random.default_rng(seed)),
    )
    # the words the speaker actually uses (an unused word's listener meaning is never trained)
    used_rows = [i for i, w in enumerate(human_vocab) if used[vocab.index(w)]]
    if used_rows:
        sub = fails[used_rows][:, top1[used_rows]]
        diag = np.diag(sub)
        out["used_words_scored"] = len(used_rows)
        out["used_words_fail_rate"] = float(diag.mean())
        out["used_words_null_fail_rate"] = float(
            permutation_null(
                fails[used_rows], top1[used_rows], np.random.default_rng(seed), n_permutations
            ).mean()
        )
    tables["wordlevel"] = word_df
    return out, tables


def listener_records(
    probs: np.ndarray, vocabulary: Sequence[str], top_k: int = 5, agent_id: str = "selfplay"
):
    """``word_query`` records of a listener's cell distributions (top-k cells per word, best first)."""

    records = []
    for i, w in enumerate(vocabulary):
        order = np.argsort(-probs[i], kind="stable")[:top_k]
        cells = [format_coord(int(c)) for c in order]
        records.append(
            LogRecord.create(
                kind="word_query",
                run_id="lexicon",
                agent_id=agent_id,
                seed=None,
                step=i,
                word=w,
                category=category_of(w) if is_known(w) else "Nonsense",
                cells=cells,
                scores=[float(probs[i, c]) for c in order],
                answer=cells[0],
                valid=True,
                extra={"top_k": top_k, "sampled": False},
            )
        )
    return records
