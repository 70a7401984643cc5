"""Tournament planning and game execution: which agents sit where in which seeded game.

Why a fixed plan: a game's content must depend only on the config and its
index, never on which process played it or what it played before, so that a
resumed run, the in-process backend and Ray produce the same games byte for
byte.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.tournament``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from huesenv.agents.registry import make_agent
from huesenv.envs import play_game
from huesenv.experiments.config import AgentSpec, ExperimentConfig
from huesenv.trust import allowing_code, code_allowed


@dataclass(frozen=True)
class GameUnit:
    """One planned game: its global index, lineup, seat → agent name, and seed."""

    game: int
    lineup: int
    repeat: int
    seats: tuple[str, ...]  # agent name per seat (player_0, player_1, ...)
    seed: int

    @property
    def seat_names(self) -> tuple[str, ...]:
        return tuple(f"player_{i}" for i in range(len(self.seats)))

    def seat_map(self) -> dict[str, str]:
        """Env seat name → config agent name."""
        return dict(zip(self.seat_names, self.seats))


def derive_seed(*parts: int) -> int:
    """A 31-bit seed from integer parts (numpy ``SeedSequence``: stable across platforms and versions)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0] & 0x7FFFFFFF)


def plan_games(config: ExperimentConfig) -> list[GameUnit]:
    """Every game of the tournament in global-index order."""
    lineups = config["lineups"]
    n = len(lineups)
    units = []
    for j in range(config["games"]):
        for li, lineup in enumerate(lineups):
            shift = j % len(lineup) if config["rotate_seats"] else 0
            seats = tuple(lineup[-shift:] + lineup[:-shift]) if shift else tuple(lineup)
            units.append(
                GameUnit(
                    game=j * n + li, lineup=li, repeat=j, seats=seats, seed=derive_seed(config["seed"], li, j)
                )
            )
    return units


def batches(units: Sequence[Any], size: int) -> list[list[Any]]:
    return [list(units[i : i + size]) for i in range(0, len(units), size)]


AgentFactory = Callable[..., Any]


def default_agent_factory() -> AgentFactory:
    return make_agent


def default_play_fn() -> Callable[..., Any]:
    return play_game


class GamePlayer:
    """Plays planned games in one process, building each needed agent instance once.

    An agent that occupies several seats of a lineup (three replayed humans)
    gets one instance per occurrence, so their state never mixes.
    """

    def __init__(
        self,
        config: ExperimentConfig,
        agent_factory: AgentFactory | None = None,
        play_fn: Callable[..., Any] | None = None,
    ) -> None:
        self.config = config
        self.agent_factory = agent_factory or default_agent_factory()
        self.play_fn = play_fn or default_play_fn()
        self._instances: dict[tuple[str, int], Any] = {}

    def _instance(self, spec: AgentSpec, copy_index: int) -> Any:
        key = (spec.name, copy_index)
        if key not in self._instances:
            with allowing_code(code_allowed() or bool(self.config.data.get("allow_code"))):  # workers too
                self._instances[key] = self.agent_factory(spec.spec, **dict(spec.kwargs))
        return self._instances[key]

    def seat_agents(self, unit: GameUnit) -> dict[str, Any]:
        seen: dict[str, int] = {}
        agents = {}
        for seat, (seat_name, agent_name) in enumerate(zip(unit.seat_names, unit.seats)):
            copy_index = seen.get(agent_name, 0)
            seen[agent_name] = copy_index + 1
            agent = self._instance(self.config.agent(agent_name), copy_index)
            agent.reset(seed=derive_seed(unit.seed, seat))
            agents[seat_name] = agent
        return agents

    def play(self, unit: GameUnit) -> GameOutcome:
        agents = self.seat_agents(unit)
        start = time.perf_counter()
        result = self.play_fn(
            agents,
            num_players=len(unit.seats),
            seed=unit.seed,
            game_index=unit.game,
            run_id=self.config.run_id,
            cue_mode=self.config["cue_mode"],
        )
        wall = time.perf_counter() - start
        records = list(result.records)
        for rec in records:  # which config agent sat where: lets the report work from the log alone
            player = rec.extra.get("player")
            if player in unit.seat_map():
                rec.extra.setdefault("seat_agent", unit.seat_map()[player])
            rec.extra.setdefault("lineup", unit.lineup)
        return GameOutcome(
            game=unit.game, records=records, scores={k: int(v) for k, v in result.scores.items()}, wall_s=wall
        )


@dataclass
class GameOutcome:
    game: int
    records: list
    scores: dict[str, int]
    wall_s: float = 0.0


def play_batch(player: GamePlayer, units: Sequence[GameUnit]) -> list[GameOutcome]:
    return [player.play(u) for u in units]


def seat_assignment(units: Sequence[GameUnit]) -> dict[int, Mapping[str, str]]:
    return {u.game: u.seat_map() for u in units}
