"""Replay a logged game by re-applying its actions to the rules state machine.

Why: a replay used to rebuild the table from log fields with its own rules
(``GameViewBuilder``); re-applying the logged moves to :class:`GameState`
gives exactly the state the game had, checks the log while doing it (a move
the rules reject is reported with the record and field), and lets the
observer derive the frames like it does for a live game.

What is read from each ``game_step`` record (:mod:`huesenv.logs.schema`):
``extra["player"]`` (the seat), ``extra["phase"]``, ``extra["round"]``,
``extra["cell"]`` (target pick or cone), the cue text (``extra["cue"]``, else
``word``, else ``answer``) and ``extra["passed"]``.  ``reveal`` records carry
no move: they mark the reveal the last cone caused.

*(Choice: the deck.)*  Logs do not store the cards, only the picked target, so
round ``r``'s card is rebuilt as the picked target plus the next
``card_size - 1`` cells; only the target matters to every later move.  A log
whose cue giver order, phases or moves do not follow the rules raises
``ValueError`` naming the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from huesenv.board import N_CELLS, parse_coord
from huesenv.game.phase import Phase
from huesenv.game.rules import (
    DEFAULT_RULES,
    Action,
    GameState,
    HuesCuesRules,
    IllegalActionError,
    RoundResult,
)
from huesenv.validation import shown


@dataclass(frozen=True)
class ReplayStep:
    """One record re-applied: the state after it and the round it revealed (``None`` otherwise)."""

    record: Any
    phase: Phase  # the record's phase (REVEAL for reveal records)
    seat: int
    state: GameState
    reveal: RoundResult | None
    valid: bool  # False: the agent's answer was replaced by the env's random fallback


def seat_order(name: str) -> tuple[int, str]:
    """``player_10`` after ``player_9``: seats sort by their number, other names after, by name."""
    head, _, tail = name.rpartition("_")
    return (int(tail), head) if tail.isdigit() else (10**9, name)


def logged_cue(rec: Any) -> str | None:
    """The cue a cue-phase record gave (``extra["cue"]``, else ``word``, else ``answer``)."""
    extra = getattr(rec, "extra", None) or {}
    for value in (extra.get("cue"), getattr(rec, "word", None), getattr(rec, "answer", None)):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _field(rec: Any, key: str, where: str) -> Any:
    extra = getattr(rec, "extra", None) or {}
    if key not in extra or extra[key] is None:
        raise ValueError(f"{where}, field extra.{key}: missing")
    return extra[key]


def _cell(rec: Any, key: str, where: str) -> int:
    value = _field(rec, key, where)
    try:
        return parse_coord(value) if isinstance(value, str) else int(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}, field extra.{key}: {shown(value)} is not a board cell") from err


def _deck(records: Sequence[Any], card_size: int, where: str) -> tuple[tuple[int, ...], ...]:
    targets: dict[int, int] = {}
    for k, rec in enumerate(records):
        if (getattr(rec, "extra", None) or {}).get("phase") == Phase.PICK_TARGET.value:
            at = f"{where} record {k + 1}"
            number = _field(rec, "round", at)
            # every round has a record of its own, so a round past the record count sizes a deck from nothing
            if not isinstance(number, int) or not 0 <= number < len(records):
                raise ValueError(
                    f"{at}, field extra.round: expected 0 to {len(records) - 1}, got {shown(number)}"
                )
            targets[number] = _cell(rec, "cell", at)
    if not targets:
        raise ValueError(f"{where}: no pick_target record, nothing to replay")
    rounds = max(targets) + 1
    deck = []
    for r in range(rounds):
        t = targets.get(r, 0)
        deck.append((t, *((t + 1 + j) % N_CELLS for j in range(card_size - 1))))
    return tuple(deck)


def replay(
    records: Iterable[Any],
    *,
    players: Sequence[str] | None = None,
    rules: HuesCuesRules | None = None,
    where: str = "game",
) -> Iterator[ReplayStep]:
    """Re-apply one game's ``game_step`` records in order; yields the state after each record."""
    recs = [r for r in records if getattr(r, "kind", "game_step") == "game_step"]
    rules = rules or DEFAULT_RULES
    names = (
        list(players)
        if players is not None
        else sorted(
            {str(_field(r, "player", f"{where} record {k + 1}")) for k, r in enumerate(recs)}, key=seat_order
        )
    )
    seat_of = {name: i for i, name in enumerate(names)}
    state = GameState.from_deck(len(names), _deck(recs, rules.card_size, where), rules)
    last_reveal: RoundResult | None = None
    for k, rec in enumerate(recs):
        at = f"{where}, game_step record {k + 1}"
        try:
            phase = Phase.parse(_field(rec, "phase", at))
        except ValueError as err:
            raise ValueError(f"{at}, field extra.{err}") from None
        player = str(_field(rec, "player", at))
        if player not in seat_of:
            raise ValueError(f"{at}, field extra.player: {shown(player)} is not one of the seats {names}")
        seat = seat_of[player]
        valid = getattr(rec, "valid", True) is not False
        if phase is Phase.REVEAL:
            if last_reveal is None:
                raise ValueError(f"{at}, field extra.phase: a reveal record before the round's last cone")
            yield ReplayStep(rec, phase, seat, state, last_reveal, valid)
            continue
        last_reveal = None
        if phase is not state.phase or seat != state.current:
            raise ValueError(
                f"{at}: the log has {player} in phase {phase.value}, the rules expect "
                f"{names[state.current] if state.current < len(names) else state.current} in phase {state.phase.value}"
            )
        if phase is Phase.PICK_TARGET or phase.is_guess:
            action = Action("target" if phase is Phase.PICK_TARGET else "cone", cell=_cell(rec, "cell", at))
        else:
            passed = bool((getattr(rec, "extra", None) or {}).get("passed"))
            action = Action("cue", cue=None if passed else logged_cue(rec))
        try:
            result = state.apply(action)
        except IllegalActionError as err:
            field = "extra.cue" if action.kind == "cue" else "extra.cell"
            raise ValueError(f"{at}, field {field}: the rules reject this move: {err}") from None
        if result is not None:
            last_reveal = result
        yield ReplayStep(rec, phase, seat, state, result, valid)
