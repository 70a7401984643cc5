"""Uncertainty for tournament and alignment tables: bootstrap confidence intervals and paired tests.

Why these methods (stated in every report, see :data:`METHODS`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.uncertainty``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from huesenv.stats import scipy_stats, wilson_interval

CONFIDENCE = 0.95
N_RESAMPLES = 4999
METHODS = (
    "95 % confidence intervals: percentile bootstrap (scipy.stats.bootstrap, 4 999 resamples, seeded) "
    "over whole games for points (cluster bootstrap: a game's seats are resampled together), "
    "over words for alignment rates. Win rates: Wilson score intervals over games; the win rate is per seat "
    "(comparable between agents); an agent holding several seats of a game also gets a team win rate (share "
    "of games any of its seats won). Head-to-head: Wilcoxon signed-rank test (scipy.stats.wilcoxon) "
    "on the per-game point differences over the games both agents played, p-values also adjusted by "
    "Benjamini–Hochberg across the table's pairs."
)


def _ratio(sums: np.ndarray, counts: np.ndarray, axis: int = -1) -> np.ndarray:
    return sums.sum(axis=axis) / counts.sum(axis=axis)


def cluster_mean_ci(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[object] | np.ndarray,
    *,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values``, resampling whole ``clusters``.

    With one cluster there is nothing to resample: ``(nan, nan)``.
    """
    frame = pd.DataFrame({"v": np.asarray(values, dtype=float), "c": list(clusters)})
    grouped = frame.groupby("c", sort=True)["v"].agg(["sum", "count"])
    if len(grouped) < 2:
        return float("nan"), float("nan")
    sums = grouped["sum"].to_numpy(dtype=float)
    counts = grouped["count"].to_numpy(dtype=float)
    if np.allclose(sums / counts, sums[0] / counts[0]):  # every cluster has the same mean
        value = float(sums.sum() / counts.sum())
        return value, value
    res = scipy_stats().bootstrap(
        (sums, counts),
        _ratio,
        paired=True,
        vectorized=True,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def mean_ci(
    values: Sequence[float] | np.ndarray, *, seed: int = 0, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Percentile bootstrap interval of a plain mean (each value its own cluster); NaNs dropped."""
    arr = np.asarray(values, dtype=float)
    arr = arr[~np.isnan(arr)]
    return cluster_mean_ci(arr, np.arange(len(arr)), seed=seed, confidence=confidence)


def team_wins(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (game, agent): the share of the game's win its seats hold (0–1; ties shared) and its seat count."""
    grouped = frame.groupby(["game", "agent"], sort=True)["win"]
    return pd.DataFrame({"team_win": grouped.sum().clip(upper=1.0), "seats": grouped.size()}).reset_index()


class WinRates(NamedTuple):
    """One agent's win rates: per seat (comparable between agents) and, for a team, the team's."""

    per_seat: float
    per_seat_low: float
    per_seat_high: float
    team: float  # NaN for an agent with one seat per game (its team rate is its per-seat rate)
    team_low: float
    team_high: float


def win_rates(frame: pd.DataFrame) -> WinRates:
    """Win rates of one agent's seat-games, with Wilson 95 % intervals over games.

    * per seat: the share of its seat-games won (ties shared), the number to compare agents by: with
      agents of equal strength it is 1/players for every agent, however many seats each holds.  Its
      interval treats the games as the independent trials (``n`` = games, centred on the rate), since a
      team's seats in one game are not independent.
    * team (agents with several seats of a game, such as the replayed humans): the share of games that
      any of its seats won.  It answers "did the replayed humans win that game", and is not
      comparable with a one-seat agent's rate (three equal seats out of four win 3/4 of the games).
    """
    teams = team_wins(frame)
    games = len(teams)
    per_seat = float(frame["win"].mean()) if len(frame) else float("nan")
    low, high = wilson_interval(per_seat * games, games) if games else (float("nan"), float("nan"))
    if games and teams["seats"].max() > 1:
        team = float(teams["team_win"].mean())
        tlo, thi = wilson_interval(float(teams["team_win"].sum()), games)
    else:
        team, tlo, thi = float("nan"), float("nan"), float("nan")
    return WinRates(per_seat, low, high, team, tlo, thi)


def _stable_seed(seed: int, *names: object) -> int:
    """A seed per statistic, so adding an agent does not shift the intervals of the others."""
    text = "\x1f".join(str(n) for n in names).encode()
    return int(np.random.SeedSequence([int(seed), *text]).generate_state(1)[0])


def add_leaderboard_intervals(board: pd.DataFrame, frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """``board`` plus ``<stat>_ci_low`` / ``<stat>_ci_high`` for points, per-role points and win rate.

    ``frame`` is the seat-game table (one row per game and seat, column ``game``,
    which may be a (run, game) key when runs are merged).
    """
    out = board.copy()
    specs = (
        ("mean_points", "points"),
        ("mean_cue_giver", "points_cue_giver"),
        ("mean_guesser", "points_guesser"),
    )
    for stat in (*(s for s, _ in specs), "win_rate", "team_win_rate"):
        out[f"{stat}_ci_low"] = np.nan
        out[f"{stat}_ci_high"] = np.nan
    out["team_win_rate"] = np.nan
    if board.empty:
        return out
    out["games"] = 0
    for i, agent in enumerate(out["agent"]):
        g = frame[frame["agent"] == agent]
        out.loc[i, "games"] = int(g["game"].nunique())
        for stat, col in specs:
            lo, hi = cluster_mean_ci(g[col], g["game"], seed=_stable_seed(seed, "leaderboard", agent, stat))
            out.loc[i, f"{stat}_ci_low"] = lo
            out.loc[i, f"{stat}_ci_high"] = hi
        w = win_rates(g)
        out.loc[i, ["team_win_rate", "team_win_rate_ci_low", "team_win_rate_ci_high"]] = [
            w.team,
            w.team_low,
            w.team_high,
        ]
        out.loc[i, ["win_rate_ci_low", "win_rate_ci_high"]] = [w.per_seat_low, w.per_seat_high]
    out["games"] = out["games"].astype(int)
    cols = [c for c in out.columns if not c.startswith("team_win_rate")]
    cols.insert(cols.index("seat_games") + 1, cols.pop(cols.index("games")))
    at = cols.index("win_rate") + 1
    cols[at:at] = ["team_win_rate", "team_win_rate_ci_low", "team_win_rate_ci_high"]
    return out[cols]


def add_role_intervals(table: pd.DataFrame, frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The points-by-role table plus ``mean_ci_low`` / ``mean_ci_high`` (bootstrap over games)."""
    out = table.copy()
    column = {"cue_giver": "points_cue_giver", "guesser": "points_guesser", "total": "points"}
    stat = {"cue_giver": "mean_cue_giver", "guesser": "mean_guesser", "total": "mean_points"}
    lows, highs = [], []
    for agent, role in zip(out["agent"], out["role"]):
        g = frame[frame["agent"] == agent]
        # the leaderboard's seed for the same number: both tables show the same interval
        lo, hi = cluster_mean_ci(
            g[column[role]], g["game"], seed=_stable_seed(seed, "leaderboard", agent, stat[role])
        )
        lows.append(lo)
        highs.append(hi)
    out["mean_ci_low"], out["mean_ci_high"] = lows, highs
    return out


def paired_game_differences(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Per shared game: A's mean points, B's mean points, their difference, and the pairings in that game."""
    pa = frame[frame["agent"] == a].groupby("game")["points"].agg(["mean", "count"])
    pb = frame[frame["agent"] == b].groupby("game")["points"].agg(["mean", "count"])
    both = pa.add_suffix("_a").join(pb.add_suffix("_b"), how="inner")
    both["diff"] = both["mean_a"] - both["mean_b"]
    both["pairings"] = both["count_a"] * both["count_b"]
    return both


def wilcoxon_p(diffs: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value; 1.0 when every difference is zero, NaN with < 2 games."""
    diffs = np.asarray(diffs, dtype=float)
    if len(diffs) < 2:
        return float("nan")
    if np.all(diffs == 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-sample / ties notes: the p-value is still the right one
        return float(scipy_stats().wilcoxon(diffs, zero_method="wilcox").pvalue)


def add_head_to_head_tests(h2h: pd.DataFrame, frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """``h2h`` plus shared ``games``, a bootstrap interval of ``mean_diff`` over those games, the
    Wilcoxon p-value of the per-game differences and its Benjamini–Hochberg adjustment."""
    out = h2h.copy()
    for col in ("games", "mean_diff_ci_low", "mean_diff_ci_high", "p_value", "p_adjusted"):
        out[col] = np.nan
    if h2h.empty:
        return out
    for i, (a, b) in enumerate(zip(out["agent"], out["opponent"])):
        key = tuple(sorted((a, b)))
        per_game = paired_game_differences(frame, *key)  # computed once per unordered pair, then signed
        out.loc[i, "games"] = len(per_game)
        sign = 1.0 if (a, b) == key else -1.0
        # the same resamples for (A, B) and (B, A): the intervals mirror each other exactly
        lo, hi = cluster_mean_ci(
            sign * per_game["diff"].repeat(per_game["pairings"].astype(int)).to_numpy(),
            per_game.index.repeat(per_game["pairings"].astype(int)),
            seed=_stable_seed(seed, "h2h", *key),
        )
        out.loc[i, "mean_diff_ci_low"], out.loc[i, "mean_diff_ci_high"] = lo, hi
        out.loc[i, "p_value"] = wilcoxon_p(per_game["diff"].to_numpy())
    out["games"] = out["games"].astype(int)
    # one test per unordered pair: adjust over those, then copy to both directions
    keys = [tuple(sorted(p)) for p in zip(out["agent"], out["opponent"])]
    unique: dict[tuple, float] = {}
    for k, p in zip(keys, out["p_value"]):
        unique.setdefault(k, p)
    valid = {k: p for k, p in unique.items() if not np.isnan(p)}
    adjusted = dict(zip(valid, scipy_stats().false_discovery_control(list(valid.values())))) if valid else {}
    out["p_adjusted"] = [adjusted.get(k, float("nan")) for k in keys]
    return out


def lineup_breakdown(frame: pd.DataFrame, lineups: Sequence[Sequence[str]], seed: int = 0) -> pd.DataFrame:
    """Per lineup and agent: games, seat-games, mean points per game with its interval, win rate."""
    cols = [
        "lineup",
        "seats",
        "agent",
        "games",
        "seat_games",
        "mean_points",
        "mean_points_ci_low",
        "mean_points_ci_high",
        "win_rate",
        "win_rate_ci_low",
        "win_rate_ci_high",
        "team_win_rate",
        "team_win_rate_ci_low",
        "team_win_rate_ci_high",
    ]
    rows = []
    if frame.empty or "lineup" not in frame:
        return pd.DataFrame(columns=cols)
    for (lineup, agent), g in frame.groupby(["lineup", "agent"], sort=True):
        li = int(lineup)
        lo, hi = cluster_mean_ci(g["points"], g["game"], seed=_stable_seed(seed, "lineup", li, agent, "p"))
        w = win_rates(g)
        rows.append(
            {
                "lineup": li,
                "seats": ", ".join(lineups[li]) if 0 <= li < len(lineups) else "",
                "agent": agent,
                "games": int(g["game"].nunique()),
                "seat_games": len(g),
                "mean_points": float(g["points"].mean()),
                "mean_points_ci_low": lo,
                "mean_points_ci_high": hi,
                "win_rate": w.per_seat,
                "win_rate_ci_low": w.per_seat_low,
                "win_rate_ci_high": w.per_seat_high,
                "team_win_rate": w.team,
                "team_win_rate_ci_low": w.team_low,
                "team_win_rate_ci_high": w.team_high,
            }
        )
    return pd.DataFrame(rows, columns=cols)


# agent-table column -> how it is computed from the word table (a 0/1 flag per word)
RATE_SOURCES: dict[str, tuple[str, str | None]] = {
    "mahalanobis_fail_rate": ("mahalanobis_outlier", None),
    "mahalanobis_lab_fail_rate": ("mahalanobis_lab_outlier", None),
    "hotelling_fail_rate": ("hotelling_fail", None),
    "colour_match_rate": ("severity", "match"),
    "semantic_bleeding_rate": ("severity", "semantic_bleeding"),
}


def add_rate_intervals(agent_table: pd.DataFrame, word_table: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Alignment rates of ``agent_table`` plus bootstrap intervals over the agent's words."""
    out = agent_table.copy()
    if agent_table.empty or word_table is None or word_table.empty:
        return out
    for stat, (source, equals) in RATE_SOURCES.items():
        if stat not in out.columns or source not in word_table.columns:
            continue
        lows, highs = [], []
        for agent in out["agent"]:
            col = word_table.loc[word_table["agent"] == agent, source]
            flags = (col == equals) if equals is not None else col
            values = pd.to_numeric(flags.astype("Float64"), errors="coerce").to_numpy(
                dtype=float, na_value=np.nan
            )
            lo, hi = mean_ci(values, seed=_stable_seed(seed, "rate", agent, stat))
            lows.append(lo)
            highs.append(hi)
        out[f"{stat}_ci_low"] = lows
        out[f"{stat}_ci_high"] = highs
    return out
