"""A *reconstructed* human cohort, rebuilt from the paper's published summary statistics. Not human data.

The study's raw answers are not public, so the replayed-human agent and the
metrics need a stand-in that ships with the package.  This module draws one
from an explicit generative model and calibrates it, word by word, to what the
paper publishes (Table 6: modal cell and Human Consistency; §2.3: cohort size,
15 words each, ≥ 20 answers per word, demographics).  Same seed, same bytes.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.humans.reconstruct``.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from huesenv.board import N_CELLS, N_COLS, N_ROWS, chebyshev_distance, format_coord, load_board, parse_coord
from huesenv.colourspace import colour_science, delta_e2000, linear_srgb_to_lab, srgb_decode
from huesenv.humans.consistency import word_consistency
from huesenv.humans.loader import EXPORT_COLUMNS, RECONSTRUCTION_PREFIX
from huesenv.reports import csv_safe
from huesenv.stats import chi2_threshold, loo_mahalanobis_d2
from huesenv.vocabulary import word_texts

DEFAULT_SEED = 20260325
N_TRICHROMATS = 316
N_CVD = 9
WORDS_PER_PARTICIPANT = 15
MIN_ANSWERS_PER_WORD = 20
POPULARITY_SHAPE = 5.0

AGE_BRACKETS: dict[str, float] = {
    "10-19": 0.40,
    "20-29": 0.33,
    "30-39": 0.11,
    "40-49": 0.08,
    "50-59": 0.06,
    "60+": 0.02,
}
GENDERS: dict[str, float] = {"male": 0.60, "female": 0.38, "other": 0.02}
LANGUAGES: dict[str, float] = {"es": 0.83, "en": 0.17}
CVD_MALE_SHARE = 0.9

CORE_SIGMAS: tuple[float, ...] = (0.6, 0.9, 1.2, 1.5)
SECONDARY_SIGMA = 0.8
SECONDARY_DISTANCE = (2, 5)
SECONDARY_SHARE = (0.05, 0.20)
MAX_SCATTER_SHARE = 0.4
TOLERANCE = 0.01
MAX_ATTEMPTS = 8
CVD_CORE_SIGMA = 1.2
CVD_CONFUSION_DE = 20.0

SESSION_START = pd.Timestamp("2025-02-01T00:00:00Z")
SESSION_SPREAD_DAYS = 150
ANSWER_GAP_S = (4, 40)


@dataclass(frozen=True)
class Reconstruction:
    """The cohort in export columns (:data:`huesenv.humans.loader.EXPORT_COLUMNS`) and the per-word calibration."""

    frame: pd.DataFrame
    calibration: pd.DataFrame
    seed: int


@dataclass(frozen=True)
class _WordFit:
    cells: np.ndarray
    consistency: float
    sigma: float
    n_core: int
    n_secondary: int
    n_scattered: int
    secondary_centre: int


def discretised_gaussian(centre: int, n: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """n cells around ``centre``: row/column offsets ~ N(0, σ²) in grid units, rounded and clipped."""
    row, col = divmod(int(centre), N_COLS)
    z = rng.normal(size=(n, 2)) * sigma
    rows = np.clip(np.rint(row + z[:, 0]), 0, N_ROWS - 1).astype(np.int64)
    cols = np.clip(np.rint(col + z[:, 1]), 0, N_COLS - 1).astype(np.int64)
    return rows * N_COLS + cols


def _has_unique_mode(cells: np.ndarray, mode: int) -> bool:
    counts = np.bincount(cells, minlength=N_CELLS)
    return bool(counts.argmax() == mode and (counts == counts[mode]).sum() == 1)


def _secondary_centres(mode: int, colour: str) -> np.ndarray:
    cats = np.asarray(load_board().categories)
    same = np.flatnonzero(cats == colour)
    if len(same) == 0:
        same = np.flatnonzero(cats == cats[mode])
    dist = chebyshev_distance(same, mode)
    lo, hi = SECONDARY_DISTANCE
    near = same[(dist >= lo) & (dist <= hi)]
    return near if len(near) else same[same != mode]


def calibrate_word(mode: int, colour: str, n: int, target: float, rng: np.random.Generator) -> _WordFit:
    """The answer set of one word closest to the published consistency (see the module docstring)."""
    xy = load_board().xy
    centres = _secondary_centres(mode, colour)
    best: tuple[float, int, _WordFit] | None = None
    for attempt in range(MAX_ATTEMPTS):
        last = attempt == MAX_ATTEMPTS - 1
        share = 0.0 if last else float(rng.uniform(*SECONDARY_SHARE))
        centre = int(rng.choice(centres))
        n_secondary = int(round(share * n))
        for sigma in CORE_SIGMAS:
            core = discretised_gaussian(mode, n, sigma, rng)
            secondary = discretised_gaussian(centre, n, SECONDARY_SIGMA, rng)
            scattered = rng.integers(0, N_CELLS, size=n)
            for k in range(int(MAX_SCATTER_SHARE * n) + 1):
                n_core = n - n_secondary - k
                if n_core <= 0:
                    break
                cells = np.concatenate([core[:n_core], secondary[:n_secondary], scattered[:k]])
                if not _has_unique_mode(cells, mode):
                    continue
                consistency = word_consistency(xy[cells])
                error = abs(consistency - target)
                if best is None or (error, k) < best[:2]:
                    best = (error, k, _WordFit(cells, consistency, sigma, n_core, n_secondary, k, centre))
        if best is not None and best[0] <= TOLERANCE:
            break
    if best is None:  # pragma: no cover - the core alone always has the unique mode for some σ
        raise RuntimeError(f"no answer set with modal cell {mode} found")
    return best[2]


def _assign_words(
    rng: np.random.Generator, n_people: int, trichromat: np.ndarray, n_words: int
) -> np.ndarray:
    """(n_people, 15) word indices: popularity-weighted draws, then trichromat counts repaired to ≥ 20.

    The repair moves one answer at a time from the most-answered word that has a
    donor (a trichromat who has it but not the least-answered word) to the
    least-answered word.  Only words above the floor donate, so each move lowers
    the total shortfall and the loop ends; when no move is possible (too few
    trichromats for ``n_words`` × 20 answers) it raises ``ValueError``.
    """
    weights = rng.gamma(POPULARITY_SHAPE, size=n_words)
    weights /= weights.sum()
    words = np.stack(
        [rng.choice(n_words, WORDS_PER_PARTICIPANT, replace=False, p=weights) for _ in range(n_people)]
    )
    people = np.flatnonzero(trichromat)
    while True:
        counts = np.bincount(words[people].ravel(), minlength=n_words)
        low = int(counts.argmin())
        if counts[low] >= MIN_ANSWERS_PER_WORD:
            return words
        swapped = False
        for high in np.argsort(-counts, kind="stable"):
            if counts[high] <= MIN_ANSWERS_PER_WORD:
                break  # giving an answer away would take this word below the floor
            donors = [p for p in people if high in words[p] and low not in words[p]]
            if donors:
                p = donors[0]
                words[p, int(np.flatnonzero(words[p] == high)[0])] = low
                swapped = True
                break
        if not swapped:
            raise ValueError(
                f"word assignment, field word {low}: {counts[low]} trichromat answers, expected ≥ "
                f"{MIN_ANSWERS_PER_WORD}, and no word above {MIN_ANSWERS_PER_WORD} answers has a participant "
                f"who could give one up ({len(people)} trichromats × {WORDS_PER_PARTICIPANT} words for "
                f"{n_words} words)"
            )


@lru_cache(maxsize=4)
def _cvd_lab(deficiency: str, severity: float) -> np.ndarray:
    """CIELAB of the board as simulated for a CVD observer (Machado et al. 2009 on linear sRGB)."""
    colour = colour_science()

    linear = srgb_decode(load_board().rgb)
    simulated = np.clip(linear @ colour.matrix_cvd_Machado2009(deficiency, severity).T, 0.0, 1.0)
    return linear_srgb_to_lab(simulated)


def _cvd_answer(mode: int, lab: np.ndarray, answers: np.ndarray, rng: np.random.Generator) -> int:
    """One CVD answer given the word's answers so far (flat cells); see the module docstring."""
    xy = load_board().xy
    meant = int(discretised_gaussian(mode, 1, CVD_CORE_SIGMA, rng)[0])
    delta = delta_e2000(lab[meant][None, :], lab).ravel()
    order = np.argsort(delta, kind="stable")
    confusion = order[delta[order] <= CVD_CONFUSION_DE]
    before = word_consistency(xy[answers])
    if len(confusion):  # the consistency with each candidate added, all candidates in one batched call
        sets = np.concatenate(
            [np.broadcast_to(xy[answers], (len(confusion), len(answers), 2)), xy[confusion][:, None, :]],
            axis=1,
        )
        after = 1.0 - (loo_mahalanobis_d2(sets) > chi2_threshold()).mean(axis=1)
        lower = np.flatnonzero(after < before - 1e-12)
        if len(lower):
            return int(confusion[lower[0]])
    return int(order[0])


def _draw(rng: np.random.Generator, table: dict[str, float], size: int) -> np.ndarray:
    keys = list(table)
    p = np.asarray([table[k] for k in keys])
    return np.asarray(keys, dtype=object)[rng.choice(len(keys), size=size, p=p / p.sum())]


def reference_table() -> pd.DataFrame:
    """The vendored Table 6 (word, category, human_consistency, human_coord, human_color, ...)."""
    ref = resources.files("huesenv") / "data" / "reference" / "paper_table6_word_level.csv"
    with ref.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh)


def reconstruct_cohort(seed: int = DEFAULT_SEED) -> Reconstruction:
    """Draw and calibrate the 325-participant cohort (see the module docstring). Deterministic in ``seed``."""
    table = reference_table()
    vocab = list(word_texts())
    if list(table["word"]) != vocab:
        raise ValueError("paper_table6_word_level.csv: words differ from the packaged vocabulary")
    rng = np.random.default_rng([seed, 0])
    n_people = N_TRICHROMATS + N_CVD
    cvd = np.zeros(n_people, dtype=bool)
    cvd[rng.choice(n_people, N_CVD, replace=False)] = True
    words = _assign_words(rng, n_people, ~cvd, len(vocab))
    ages = _draw(rng, AGE_BRACKETS, n_people)
    genders = _draw(rng, GENDERS, n_people)
    genders[cvd] = np.where(rng.random(N_CVD) < CVD_MALE_SHARE, "male", "female")
    languages = _draw(rng, LANGUAGES, n_people)
    starts = SESSION_START + pd.to_timedelta(rng.integers(0, SESSION_SPREAD_DAYS * 86400, n_people), unit="s")
    gaps = rng.integers(ANSWER_GAP_S[0], ANSWER_GAP_S[1] + 1, size=(n_people, WORDS_PER_PARTICIPANT))
    deficiency = np.where(rng.random(n_people) < 0.75, "Deuteranomaly", "Protanomaly")
    severity = np.round(rng.uniform(0.6, 1.0, n_people), 1)

    answers = np.full(words.shape, -1, dtype=np.int64)
    calibration = []
    for w, row in enumerate(table.itertuples(index=False)):
        mode = parse_coord(row.human_coord)
        holders = np.flatnonzero((words == w).any(axis=1) & ~cvd)
        word_rng = np.random.default_rng([seed, 1, w])
        fit = calibrate_word(mode, row.human_color, len(holders), float(row.human_consistency), word_rng)
        order = word_rng.permutation(len(holders))
        for person, cell in zip(holders.tolist(), fit.cells[order]):
            answers[person, int(np.flatnonzero(words[person] == w)[0])] = cell
        so_far = fit.cells.copy()
        for person in map(int, np.flatnonzero((words == w).any(axis=1) & cvd)):
            lab = _cvd_lab(str(deficiency[person]), float(severity[person]))
            cell = _cvd_answer(mode, lab, so_far, word_rng)
            answers[person, int(np.flatnonzero(words[person] == w)[0])] = cell
            so_far = np.append(so_far, cell)
        calibration.append(
            {
                "word": row.word,
                "category": row.category,
                "n": len(holders),
                "mode_coord": row.human_coord,
                "target": float(row.human_consistency),
                "consistency": fit.consistency,
                "error": fit.consistency - float(row.human_consistency),
                "core_sigma": fit.sigma,
                "n_core": fit.n_core,
                "n_secondary": fit.n_secondary,
                "n_scattered": fit.n_scattered,
                "secondary_centre": format_coord(fit.secondary_centre),
            }
        )

    width = len(str(n_people))
    records = []
    for person in range(n_people):
        stamp = starts[person]
        for j in range(WORDS_PER_PARTICIPANT):
            stamp = stamp + pd.Timedelta(seconds=int(gaps[person, j]))
            w = int(words[person, j])
            records.append(
                (
                    f"{RECONSTRUCTION_PREFIX}{person + 1:0{width}d}",
                    stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    table["category"].iat[w],
                    w,
                    vocab[w],
                    format_coord(int(answers[person, j])),
                    languages[person],
                    genders[person],
                    ages[person],
                    "true" if cvd[person] else "false",
                )
            )
    frame = pd.DataFrame(records, columns=list(EXPORT_COLUMNS))
    return Reconstruction(frame=frame, calibration=pd.DataFrame(calibration), seed=seed)


def write_export(frame: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write an export table as ``.csv``, ``.csv.gz`` or ``.parquet``.

    The gzip header gets no timestamp or file name, so the same table gives the same bytes every run.
    """
    path = Path(path)
    name = path.name.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if name.endswith(".parquet"):
        frame.to_parquet(path, index=False)
    elif name.endswith(".csv.gz"):
        data = csv_safe(frame).to_csv(index=False, lineterminator="\n").encode("utf-8")
        with (
            open(path, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz,
        ):
            gz.write(data)
    elif name.endswith(".csv"):
        path.write_text(csv_safe(frame).to_csv(index=False, lineterminator="\n"), encoding="utf-8")
    else:
        raise ValueError(f"{path}: unknown file type; expected .csv, .csv.gz or .parquet")
    return path
