"""The vectorised game's games as standard game logs (what ``huesenv logs check``, ``replay`` and ``metrics`` read).

:class:`GameRecorder` listens to a :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame`
and keeps, per finished game, its players, the card of every round and every
move in order.  :func:`game_records` turns one recorded game into the
``LogRecord`` list of :func:`huesenv.envs.hues_cues.play.play_game`, by
*playing it again* through the AEC env with one scripted agent per seat
that answers the recorded moves, on the recorded deck: the log is written by
the one game loop, and a move the rules reject would fail loudly.  Each
seat's ``agent_id`` is the name of the table or caller that played it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.play import play_game
from huesenv.envs.vector_game.game import PICK, HuesCuesVectorGame
from huesenv.game.protocol import Answer, BaseAgent, CueQuery, GuessQuery
from huesenv.logs.io import LogWriter
from huesenv.logs.schema import LogRecord


@dataclass
class RecordedGame:
    num_players: int
    cards: list[tuple[int, ...]] = field(default_factory=list)
    moves: list[tuple[int, int]] = field(default_factory=list)  # (seat, action) in order
    scores: list[int] = field(default_factory=list)


class GameRecorder:
    """Collects every finished game of ``game`` (up to ``limit``) as a :class:`RecordedGame`."""

    def __init__(self, game: HuesCuesVectorGame, limit: int | None = None) -> None:
        self.game = game
        self.limit = limit
        self.finished: list[RecordedGame] = []
        self._open: dict[int, RecordedGame] = {}
        game.pre_listeners.append(self._on_move)  # before the move: the game-ending cone is still this game's
        game.end_listeners.append(self._on_end)

    def _slot(self, slot: int) -> RecordedGame:
        rec = self._open.get(slot)
        if rec is None:
            rec = RecordedGame(int(self.game.ops.to_numpy(self.game.n)[slot]))
            self._open[slot] = rec
        return rec

    def _on_move(
        self, rows: np.ndarray, actions: np.ndarray, seats: np.ndarray, phases: np.ndarray, cards: np.ndarray
    ) -> None:
        if self.limit is not None and len(self.finished) >= self.limit:
            return
        for i, (slot, a) in enumerate(zip(rows.tolist(), actions.tolist())):
            rec = self._slot(slot)
            if phases[i] == PICK:
                rec.cards.append(tuple(int(c) for c in cards[i]))
            rec.moves.append((int(seats[i]), int(a)))

    def _on_end(self, rows: Any, illegal: bool) -> None:
        g, o = self.game, self.game.ops
        scores = o.to_numpy(g.scores)
        for slot in o.to_numpy(rows).tolist():
            rec = self._open.pop(slot, None)
            if rec is not None and not illegal and (self.limit is None or len(self.finished) < self.limit):
                rec.scores = [int(x) for x in scores[slot, : rec.num_players]]
                self.finished.append(rec)


class _Scripted(BaseAgent):
    """Answers the recorded moves of one seat, in order (target and cue 1 in one answer, as play_game asks)."""

    def __init__(self, name: str, moves: list[int], vocabulary: Sequence[str], pass_action: int) -> None:
        self.name = name
        self._moves = list(moves)
        self._vocabulary = tuple(vocabulary)
        self._pass = pass_action

    def _cue(self, a: int) -> str | None:
        return None if a == self._pass else self._vocabulary[a - N_CELLS]

    def guess(self, query: GuessQuery) -> Answer:
        return Answer(cells=np.array([self._moves.pop(0)], dtype=np.int64))

    def give_cue(self, query: CueQuery) -> Answer:
        if query.target is None:  # pick_target: the target and cue 1 together
            target, cue = self._moves.pop(0), self._moves.pop(0)
            return Answer(target=target, cue=self._cue(cue))
        return Answer(cue=self._cue(self._moves.pop(0)))


def game_records(
    game: RecordedGame,
    vocabulary: Sequence[str],
    pass_action: int,
    names: Sequence[str],
    *,
    game_index: int = 0,
    run_id: str = "vector",
    rules: Any = None,
) -> list[LogRecord]:
    """The log records of one recorded game (played again through the AEC env; see the module docstring)."""
    per_seat: dict[int, list[int]] = {s: [] for s in range(game.num_players)}
    for seat, a in game.moves:
        per_seat[seat].append(a)
    agents = {
        f"player_{s}": _Scripted(names[s], per_seat[s], vocabulary, pass_action)
        for s in range(game.num_players)
    }
    result = play_game(
        agents,
        num_players=game.num_players,
        seed=None,
        game_index=game_index,
        run_id=run_id,
        rules=rules,
        vocabulary=tuple(vocabulary),
        deck=game.cards,
    )
    got = [result.scores[f"player_{s}"] for s in range(game.num_players)]
    if game.scores and got != game.scores:
        raise AssertionError(
            f"game {game_index}: replayed scores {got} differ from the vector game's {game.scores}"
        )
    return result.records


def iter_game_records(
    recorder: GameRecorder, names: Sequence[str] | None = None, run_id: str = "vector"
) -> Iterator[list[LogRecord]]:
    g = recorder.game
    names = (
        list(names)
        if names is not None
        else ["caller" if g._caller_np[s].any() else g.opponent_names[s] for s in range(g.S)]
    )
    for i, rec in enumerate(recorder.finished):
        yield game_records(
            rec, g.vocabulary, g.pass_action, names, game_index=i, run_id=run_id, rules=g.rules
        )


def write_game_logs(
    recorder: GameRecorder, path: str | Path, names: Sequence[str] | None = None, run_id: str = "vector"
) -> int:
    """Write the recorder's finished games as a JSON Lines game log; returns the number of games."""
    count = 0
    with LogWriter(path) as writer:
        for records in iter_game_records(recorder, names, run_id):
            writer.append(records)
            count += 1
    return count
