"""Tournament tables from the game log alone: points, roles, head-to-head, leaderboard, guess alignment.

Everything is computed from logged ``game_step`` records (``extra``: game,
round, player, role, phase, points; ``seat_agent`` added by the runner), so a
resumed or Ray-run tournament is analysed exactly like an uninterrupted one.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.analysis``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from huesenv import metrics
from huesenv.logs import cue_text
from huesenv.logs.schema import LogRecord
from huesenv.stats import scipy_stats
from huesenv.vocabulary import category_of, is_known, normalise_word

ROLES = ("cue_giver", "guesser")


def _agent_of(rec: Any, seat_agents: Mapping[int, Mapping[str, str]] | None) -> str:
    player = rec.extra.get("player")
    if seat_agents is not None:
        game = rec.extra.get("game")
        if game in seat_agents and player in seat_agents[game]:
            return seat_agents[game][player]
    return rec.extra.get("seat_agent") or rec.agent_id


def seat_games(
    records: Sequence[Any], seat_agents: Mapping[int, Mapping[str, str]] | None = None
) -> pd.DataFrame:
    """One row per (game, seat): agent, agent_id, points (total and per role), and the win share."""
    rows: dict[tuple[int, str], dict[str, Any]] = {}
    for rec in records:
        if rec.kind != "game_step" or rec.extra.get("player") is None:
            continue
        game = int(rec.extra["game"])
        player = rec.extra["player"]
        row = rows.setdefault(
            (game, player),
            {
                "game": game,
                "lineup": rec.extra.get("lineup"),
                "seat": player,
                "agent": _agent_of(rec, seat_agents),
                "agent_id": rec.agent_id,
                "points": 0,
                "points_cue_giver": 0,
                "points_guesser": 0,
            },
        )
        pts = int(rec.extra.get("points") or 0)
        row["points"] += pts
        role = rec.extra.get("role")
        if role in ROLES:
            row[f"points_{role}"] += pts
    frame = pd.DataFrame(
        list(rows.values()),
        columns=[
            "game",
            "lineup",
            "seat",
            "agent",
            "agent_id",
            "points",
            "points_cue_giver",
            "points_guesser",
        ],
    )
    if frame.empty:
        frame["win"] = []
        return frame
    best = frame.groupby("game")["points"].transform("max")
    is_best = frame["points"] == best
    frame["win"] = is_best / is_best.groupby(frame["game"]).transform("sum")
    return frame.sort_values(
        ["game", "seat"], key=lambda s: s.map(_seat_key) if s.name == "seat" else s, ignore_index=True
    )


def _seat_key(seat: str) -> int:
    digits = "".join(ch for ch in str(seat) if ch.isdigit())
    return int(digits) if digits else 0


def _sem(values: pd.Series) -> float:
    return float(scipy_stats().sem(values, ddof=1)) if len(values) > 1 else float("nan")


def leaderboard(frame: pd.DataFrame) -> pd.DataFrame:
    """Agents ranked by mean points per game (± standard error), with per-role means and win rate."""
    cols = [
        "rank",
        "agent",
        "seat_games",
        "mean_points",
        "se_points",
        "mean_cue_giver",
        "se_cue_giver",
        "mean_guesser",
        "se_guesser",
        "win_rate",
    ]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    out = []
    for agent, g in frame.groupby("agent", sort=True):
        out.append(
            {
                "agent": agent,
                "seat_games": len(g),
                "mean_points": g["points"].mean(),
                "se_points": _sem(g["points"]),
                "mean_cue_giver": g["points_cue_giver"].mean(),
                "se_cue_giver": _sem(g["points_cue_giver"]),
                "mean_guesser": g["points_guesser"].mean(),
                "se_guesser": _sem(g["points_guesser"]),
                "win_rate": g["win"].mean(),
            }
        )
    table = pd.DataFrame(out).sort_values(
        ["mean_points", "agent"], ascending=[False, True], ignore_index=True
    )
    table["rank"] = np.arange(1, len(table) + 1)
    return table[cols]


def points_by_role(frame: pd.DataFrame) -> pd.DataFrame:
    """Long table: agent × role → mean points per game ± SE (role ``total`` included)."""
    rows = []
    for agent, g in frame.groupby("agent", sort=True):
        for role, col in (
            ("cue_giver", "points_cue_giver"),
            ("guesser", "points_guesser"),
            ("total", "points"),
        ):
            rows.append(
                {"agent": agent, "role": role, "n": len(g), "mean": g[col].mean(), "se": _sem(g[col])}
            )
    return pd.DataFrame(rows, columns=["agent", "role", "n", "mean", "se"])


def head_to_head(frame: pd.DataFrame) -> pd.DataFrame:
    """Long table of ordered agent pairs that met: games, mean point difference (A − B), A's win share."""
    acc: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for _, g in frame.groupby("game"):
        seats = list(zip(g["agent"], g["points"]))
        for (a, pa), (b, pb) in combinations(seats, 2):
            if a == b:
                continue
            acc[(a, b)].append((pa - pb, 1.0 if pa > pb else 0.5 if pa == pb else 0.0))
            acc[(b, a)].append((pb - pa, 1.0 if pb > pa else 0.5 if pa == pb else 0.0))
    rows = []
    for (a, b), vals in sorted(acc.items()):
        diffs = np.array([v[0] for v in vals], dtype=float)
        wins = np.array([v[1] for v in vals], dtype=float)
        rows.append(
            {
                "agent": a,
                "opponent": b,
                "pairings": len(vals),
                "mean_diff": diffs.mean(),
                "se_diff": float(scipy_stats().sem(diffs)) if len(diffs) > 1 else float("nan"),
                "win_share": wins.mean(),
            }
        )
    return pd.DataFrame(rows, columns=["agent", "opponent", "pairings", "mean_diff", "se_diff", "win_share"])


def head_to_head_matrix(h2h: pd.DataFrame, value: str = "win_share") -> pd.DataFrame:
    if h2h.empty:
        return pd.DataFrame()
    return h2h.pivot(index="agent", columns="opponent", values=value)


def guess_queries(
    records: Sequence[Any],
    seat_agents: Mapping[int, Mapping[str, str]] | None = None,
    run_id: str | None = None,
) -> list[Any]:
    """First cones as sampled word→cell answers: one ``word_query`` record per (agent, cue-1 word)."""
    cue_of_round: dict[tuple[int, int], str] = {}
    for rec in records:
        if rec.kind == "game_step" and rec.extra.get("phase") == "cue_1":  # fallback cues too (see above)
            cue = cue_text(rec)
            if cue:
                cue_of_round[(int(rec.extra["game"]), int(rec.extra["round"]))] = normalise_word(cue)
    cones: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rec in records:
        if rec.kind != "game_step" or rec.extra.get("phase") != "guess_1" or not rec.valid:
            continue  # a fallback cone is a random cell, not this agent's answer
        cell = rec.extra.get("cell")
        cue = cue_of_round.get((int(rec.extra["game"]), int(rec.extra["round"])))
        if cell is None or cue is None or not is_known(cue):
            continue
        cones[(_agent_of(rec, seat_agents), cue)].append(cell)
    out = []
    for step, ((agent, word), cells) in enumerate(sorted(cones.items())):
        out.append(
            LogRecord.create(
                kind="word_query",
                run_id=run_id or "tournament",
                agent_id=agent,
                step=step,
                word=word,
                category=category_of(word),
                cells=list(cells),
                scores=None,
                answer=cells[0],
                extra={"sampled": True, "source": "guess_1"},
                created=0.0,
            )
        )
    return out


def guess_alignment(
    records: Sequence[Any],
    humans: Any,
    seat_agents: Mapping[int, Mapping[str, str]] | None = None,
    alpha: float = 0.05,
    top_k: int = 5,
) -> dict[str, pd.DataFrame]:
    """The metrics package's word and agent tables for the agents' first cones."""
    queries = guess_queries(records, seat_agents)
    if not queries:
        return {}
    word_df = metrics.word_level(queries, humans, alpha=alpha, top_k=top_k)
    return {"word": word_df, "agent": metrics.agent_level(word_df)}
