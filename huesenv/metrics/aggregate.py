"""Word-, agent-, category- and family-level alignment tables (the shape of the paper's Table 3).

:func:`word_level` has a row for every agent × word the agent answered, except
the nonsense inputs (no human answers by design: see
:mod:`huesenv.metrics.nonsense`); a word the human reference lacks altogether
is a skipped word with ``n_human = 0`` (below).  The human reference is any object with the
``HumanResponses`` interface of :mod:`huesenv.humans` (``words``,
``xy(word)``, ``mode_cell(word)``); its per-word Human Fail Rate comes from
``huesenv.humans.consistency_table`` unless a table with ``word, fail_rate``
columns is passed in.

**Words with too few human answers are reported and skipped.**  Both tests
need a human covariance: Mahalanobis (top-1) and Hotelling (cloud) are run on
a word only when it has at least :data:`MIN_HUMAN_ANSWERS` = 3 human answers.
Two answers give a rank-one covariance (its second axis would be the floor
alone) and one answer none at all; 3 is also the minimum of the leave-one-out
Human Consistency (:data:`huesenv.humans.consistency.MIN_ANSWERS`), so every
word a model is scored on has a Human Fail Rate to compare with.  (Hotelling's
own minimum, n₁ + n₂ > p + 1, is weaker; the common threshold keeps both tests
on the same words.)  Such a word keeps its row in :func:`word_level` — top-1
cell, macro-colours and severity need only the humans' modal cell — with NaN
statistics and ``<NA>`` fail flags; :func:`skipped_words` lists them with the
reason, every fail rate is a mean over the *scored* words only (``n_scored``),
and an agent or group with no scored word gets NaN rates, never a crash.

**No valid answer = failure.**  A word the agent was asked but answered only
invalidly (unparseable, empty) has no top-1 cell, so D² and T² stay NaN, but
both flags are set (``mahalanobis_outlier = hotelling_fail = True``): leaving
the word out of the mean would score a model that cannot answer hard words
better than one that answers them wrongly.  ``n_invalid`` still reports how
many answers were unusable.

**The Human Fail Rate's own false alarms.**  ``human_implied_false_alarm`` is,
beside ``human_fail_rate``, the rate the χ²₂ leave-one-out test flags on exactly
normal answers at that word's n (:func:`huesenv.stats.loo_false_alarm`): above
5 % on small words, so part of a word's Human Fail Rate is its answer count.

**Human Fail Rate over several words** (per agent, per category, overall) is
*pooled over answers*, as in :func:`huesenv.humans.consistency_by_category`
and the paper: outliers of all the words over all their answers
(``Σ fail_rate·n_human / Σ n_human``, each word once, words below
:data:`MIN_HUMAN_ANSWERS` answers left out) — not an unweighted mean over
words — so the metrics tables agree with ``huesenv humans summary``.

Aggregation follows the paper's three steps: per-word fail flags → per agent
(and category) mean → per group mean ± standard error *across agents*
(``std(ddof=1)/√n``; NaN for a single agent).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from huesenv.board import category_of_cell, cells_to_xy, format_coord, is_neutral
from huesenv.humans import consistency_table
from huesenv.logs.schema import LogRecord
from huesenv.metrics.collect import SampledCloud, answer_sets, as_records
from huesenv.metrics.distributional import hotelling_cloud
from huesenv.metrics.families import families_of
from huesenv.metrics.pointwise import mahalanobis_lab_top1, mahalanobis_top1
from huesenv.metrics.severity import severity
from huesenv.vocabulary import NONSENSE_CATEGORY, normalise_word

MIN_HUMAN_ANSWERS = 3

WORD_COLUMNS = [
    "agent",
    "word",
    "category",
    "top1_coord",
    "mahalanobis_d2",
    "mahalanobis_outlier",
    "mahalanobis_lab_d2",
    "mahalanobis_lab_outlier",
    "hotelling_t2",
    "hotelling_p",
    "hotelling_fail",
    "agent_color",
    "human_color",
    "human_fail_rate",
    "human_mode_coord",
    "agent_neutral",
    "severity",
    "n_cloud",
    "n_answers",
    "n_invalid",
    "n_human",
    "agent_id",
    "architecture_family",
    "data_family",
    "cloud_tie",
    "human_implied_false_alarm",
]


def human_fail_table(humans, alpha: float = 0.05) -> pd.DataFrame:
    """The humans' per-word consistency table (``huesenv.humans.consistency_table``)."""
    return consistency_table(humans, alpha=alpha)


def word_level(
    records_or_frame: Sequence[LogRecord] | pd.DataFrame,
    humans,
    alpha: float = 0.05,
    top_k: int = 5,
    human_table: pd.DataFrame | None = None,
    sampled_cloud: SampledCloud = "top-k",
) -> pd.DataFrame:
    """One row per agent × word with both metrics, macro-colours, severity and the Human Fail Rate.

    ``top_k`` is the size of the Hotelling cloud for every agent kind: a
    ranking's first k cells, or a sampled agent's k most frequent distinct
    cells (``sampled_cloud="all"``: every sample; see :mod:`huesenv.metrics.collect`).
    """
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}")
    table = human_fail_table(humans, alpha) if human_table is None else human_table
    fail_by_word = {normalise_word(w): float(f) for w, f in zip(table["word"], table["fail_rate"])}
    implied = table["implied_false_alarm"] if "implied_false_alarm" in table else [np.nan] * len(table)
    false_alarm = {normalise_word(w): float(f) for w, f in zip(table["word"], implied)}
    human_words = {normalise_word(w) for w in humans.words}
    human_cache: dict[str, tuple[np.ndarray, int | None]] = {}
    rows = []
    for (agent, word), entry in sorted(answer_sets(as_records(records_or_frame)).items()):
        if word not in human_words and entry.category == NONSENSE_CATEGORY:
            continue  # no human reference by design: see huesenv.metrics.nonsense
        if word not in human_cache:
            human_cache[word] = (
                (np.asarray(humans.xy(word), dtype=np.float64), int(humans.mode_cell(word)))
                if word in human_words
                else (np.empty((0, 2)), None)  # a word nobody in the cohort answered: reported, skipped
            )
        human_xy, human_mode = human_cache[word]
        top1 = entry.top1()
        cloud = entry.cloud(top_k, sampled_cloud)
        arch, data = families_of(entry.agent_id)
        row = {
            "agent": agent,
            "word": word,
            "category": entry.category,
            "top1_coord": format_coord(top1) if top1 is not None else None,
            "mahalanobis_d2": np.nan,
            "mahalanobis_outlier": np.nan,
            "mahalanobis_lab_d2": np.nan,
            "mahalanobis_lab_outlier": np.nan,
            "hotelling_t2": np.nan,
            "hotelling_p": np.nan,
            "hotelling_fail": np.nan,
            "agent_color": category_of_cell(top1) if top1 is not None else None,
            "human_color": category_of_cell(human_mode) if human_mode is not None else None,
            "human_fail_rate": fail_by_word.get(word, np.nan),
            "human_mode_coord": format_coord(human_mode) if human_mode is not None else None,
            "agent_neutral": bool(is_neutral(top1)) if top1 is not None else None,
            "severity": severity(top1, human_mode) if top1 is not None and human_mode is not None else None,
            "n_cloud": len(cloud),
            "n_answers": entry.n_answers,
            "n_invalid": entry.n_invalid,
            "n_human": len(human_xy),
            "agent_id": entry.agent_id,
            "architecture_family": arch,
            "data_family": data,
            "cloud_tie": entry.cut_in_tie(top_k) if sampled_cloud == "top-k" else False,
            # the Human Fail Rate a normal word with this many answers would show (huesenv.stats)
            "human_implied_false_alarm": false_alarm.get(word, np.nan),
        }
        if (
            top1 is None and len(human_xy) >= MIN_HUMAN_ANSWERS
        ):  # asked, no valid answer: a failure of both tests
            row.update(mahalanobis_outlier=True, mahalanobis_lab_outlier=True, hotelling_fail=True)
        elif top1 is not None and len(human_xy) >= MIN_HUMAN_ANSWERS:
            point = mahalanobis_top1(cells_to_xy([top1]), human_xy, alpha)
            row.update(mahalanobis_d2=point.d2, mahalanobis_outlier=point.outlier)
            lab = mahalanobis_lab_top1(top1, humans.cells(word), alpha)
            row.update(mahalanobis_lab_d2=lab.d2, mahalanobis_lab_outlier=lab.outlier)
            dist = hotelling_cloud(cells_to_xy(cloud), human_xy, alpha)
            row.update(hotelling_t2=dist.t2, hotelling_p=dist.p_value, hotelling_fail=dist.fail)
        rows.append(row)
    frame = pd.DataFrame(rows, columns=WORD_COLUMNS)
    for col in ("mahalanobis_outlier", "mahalanobis_lab_outlier", "hotelling_fail"):
        frame[col] = frame[col].astype("boolean")
    return frame


SKIPPED_COLUMNS = ["word", "category", "n_human", "min_human_answers", "reason"]


def skipped_words(word_df: pd.DataFrame) -> pd.DataFrame:
    """The words of a word table left unscored for lack of human answers (one row per word).

    Columns :data:`SKIPPED_COLUMNS`; ``reason`` names the tests skipped and the threshold.
    """
    if not len(word_df) or "n_human" not in word_df.columns:
        return pd.DataFrame(columns=SKIPPED_COLUMNS)
    words = word_df.drop_duplicates("word")
    short = words[words["n_human"].astype(int) < MIN_HUMAN_ANSWERS]
    rows = [
        {
            "word": r.word,
            "category": r.category,
            "n_human": int(r.n_human),
            "min_human_answers": MIN_HUMAN_ANSWERS,
            "reason": (
                f"{int(r.n_human)} human answer(s), Mahalanobis, Hotelling and Human Consistency need "
                f"≥ {MIN_HUMAN_ANSWERS}"
            ),
        }
        for r in short.itertuples(index=False)
    ]
    return pd.DataFrame(rows, columns=SKIPPED_COLUMNS)


def _mean(values: pd.Series) -> float:
    """Mean over the non-missing values as a float; NaN when none (a nullable mean would be ``<NA>``)."""
    values = pd.to_numeric(values.astype("Float64"), errors="coerce").dropna().astype(float)
    return float(values.mean()) if len(values) else float("nan")


def pooled_human_fail_rate(word_df: pd.DataFrame) -> float:
    """Human Fail Rate pooled over the answers of the frame's words (each word once; see the module docstring)."""
    if "n_human" not in word_df.columns:
        raise ValueError(
            "pooled_human_fail_rate: the word table needs an 'n_human' column (as word_level writes)"
        )
    words = word_df.drop_duplicates("word")
    n = words["n_human"].astype(float)
    fail = words["human_fail_rate"].astype(float)
    use = fail.notna() & (n >= MIN_HUMAN_ANSWERS)
    total = float(n[use].sum())
    return float((fail[use] * n[use]).sum() / total) if total else float("nan")


def _se(values: pd.Series) -> float:
    values = pd.to_numeric(values.astype("Float64"), errors="coerce").dropna().astype(float)
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def agent_level(word_df: pd.DataFrame, invalid: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per agent: fail rates (mean ± SE over words), the same words' pooled Human Fail Rate, severity rates, invalid answers."""
    rows = []
    for agent, group in word_df.groupby("agent", sort=True):
        maha = group["mahalanobis_outlier"].astype("Float64")
        hot = group["hotelling_fail"].astype("Float64")
        sev = group["severity"]
        rows.append(
            {
                "agent": agent,
                "agent_id": group["agent_id"].iloc[0] if "agent_id" in group.columns else agent,
                "architecture_family": group["architecture_family"].iloc[0],
                "data_family": group["data_family"].iloc[0],
                "n_words": int(len(group)),
                "n_scored": int(maha.notna().sum()),
                "mahalanobis_fail_rate": _mean(maha),
                "mahalanobis_fail_err": _se(maha),
                "mahalanobis_lab_fail_rate": _mean(group["mahalanobis_lab_outlier"].astype("Float64"))
                if "mahalanobis_lab_outlier" in group
                else float("nan"),
                "hotelling_fail_rate": _mean(hot),
                "hotelling_fail_err": _se(hot),
                "human_fail_rate": pooled_human_fail_rate(group),
                "median_mahalanobis_d2": float(group["mahalanobis_d2"].median()),
                "colour_match_rate": float((sev == "match").mean()),
                "semantic_bleeding_rate": float((sev == "semantic_bleeding").mean()),
                "uncertainty_collapse_rate": float((sev == "uncertainty_collapse").mean()),
                "n_answers": int(group["n_answers"].sum()),
                "n_invalid": int(group["n_invalid"].sum()),
            }
        )
    return pd.DataFrame(rows)


def category_level(word_df: pd.DataFrame, by: str = "architecture_family") -> pd.DataFrame:
    """Table 3: per semantic category × group (``by`` = a family column, or ``"agent"``), mean ± SE.

    Per agent and category the word fail flags are averaged; those per-agent
    rates are then averaged over the group's agents (SE across agents).  With
    ``by="agent"`` the SE is across the category's words instead.  The
    ``human_fail_rate`` column is the category's Human Fail Rate pooled over
    answers (all the category's scored words, whatever the group), the same
    figure as ``huesenv.humans.consistency_by_category``.
    """
    if by not in word_df.columns:
        raise ValueError(f"category_level: unknown grouping column {by!r}")
    human = {c: pooled_human_fail_rate(g) for c, g in word_df.groupby("category", sort=True)}
    rows = []
    if by == "agent":
        for (category, agent), g in word_df.groupby(["category", "agent"], sort=True):
            m, h = g["mahalanobis_outlier"].astype("Float64"), g["hotelling_fail"].astype("Float64")
            rows.append(
                {
                    "category": category,
                    by: agent,
                    "n_agents": 1,
                    "n_words": len(g),
                    "human_fail_rate": float(human[category]),
                    "mahalanobis_fail_mean": _mean(m),
                    "mahalanobis_fail_err": _se(m),
                    "hotelling_fail_mean": _mean(h),
                    "hotelling_fail_err": _se(h),
                }
            )
        return pd.DataFrame(rows)
    per_agent = (
        word_df.assign(
            m=word_df["mahalanobis_outlier"].astype("Float64"), h=word_df["hotelling_fail"].astype("Float64")
        )
        .groupby(["category", by, "agent"], sort=True)[["m", "h"]]
        .mean()
        .reset_index()
    )
    for (category, group), g in per_agent.groupby(["category", by], sort=True):
        rows.append(
            {
                "category": category,
                by: group,
                "n_agents": int(len(g)),
                "n_words": int(
                    word_df[(word_df["category"] == category) & (word_df[by] == group)]["word"].nunique()
                ),
                "human_fail_rate": float(human[category]),
                "mahalanobis_fail_mean": _mean(g["m"]),
                "mahalanobis_fail_err": _se(g["m"]),
                "hotelling_fail_mean": _mean(g["h"]),
                "hotelling_fail_err": _se(g["h"]),
            }
        )
    return pd.DataFrame(rows)


def word_summary(word_df: pd.DataFrame) -> pd.DataFrame:
    """Per word across agents (the shape of the paper's Table 6): fail rates mean ± SE, modal colours."""
    rows = []
    for word, g in word_df.groupby("word", sort=True):
        m, h = g["mahalanobis_outlier"].astype("Float64"), g["hotelling_fail"].astype("Float64")
        top = g["top1_coord"].dropna()
        colours = g["agent_color"].dropna()
        rows.append(
            {
                "word": word,
                "category": g["category"].iloc[0],
                "n_agents": int(len(g)),
                "human_fail_rate": float(g["human_fail_rate"].iloc[0]),
                "human_mode_coord": g["human_mode_coord"].iloc[0],
                "human_color": g["human_color"].iloc[0],
                "agent_mode_coord": top.mode().iloc[0] if len(top) else None,
                "agent_color": colours.mode().iloc[0] if len(colours) else None,
                "mahalanobis_fail_mean": _mean(m),
                "mahalanobis_fail_err": _se(m),
                "hotelling_fail_mean": _mean(h),
                "hotelling_fail_err": _se(h),
                "semantic_bleeding_rate": float((g["severity"] == "semantic_bleeding").mean()),
                "uncertainty_collapse_rate": float((g["severity"] == "uncertainty_collapse").mean()),
            }
        )
    return pd.DataFrame(rows)


def family_level(agent_df: pd.DataFrame, by: str = "architecture_family") -> pd.DataFrame:
    """Per family: the agents' fail rates, mean ± SE across agents (the human rate: mean of the agents' pooled rates)."""
    rows = []
    for family, g in agent_df.groupby(by, sort=True):
        rows.append(
            {
                by: family,
                "n_agents": int(len(g)),
                "mahalanobis_fail_mean": _mean(g["mahalanobis_fail_rate"]),
                "mahalanobis_fail_err": _se(g["mahalanobis_fail_rate"]),
                "hotelling_fail_mean": _mean(g["hotelling_fail_rate"]),
                "hotelling_fail_err": _se(g["hotelling_fail_rate"]),
                "human_fail_rate": _mean(g["human_fail_rate"]),
            }
        )
    return pd.DataFrame(rows)
