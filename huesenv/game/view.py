"""What one seat may know about a game in progress: the single view every consumer is derived from.

:class:`PlayerView` is built by :func:`huesenv.game.observer.player_view` from
the rules state; the env's observation encoders, the agent queries and the
render view all read it, so an agent served as a plugin sees exactly what a
policy saw in the env.  Seats are absolute (``0..num_players-1``);
:meth:`PlayerView.relative` gives the seat-relative index the observations use
(the viewer is seat 0, then clockwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from huesenv.board import N_CELLS
from huesenv.game.phase import Phase
from huesenv.game.rules import Cone


class PlayerView(NamedTuple):
    """One seat's knowledge (a named tuple: immutable, and cheap to build on every env step)."""

    seat: int  # the viewer's absolute seat
    num_players: int
    phase: Phase
    round: int
    num_rounds: int
    cue_giver: int
    current: int | None  # whose turn it is (None when the game is over)
    cues: tuple[str | None, ...]  # this round's cues so far, None = passed
    used_cues: tuple[str, ...]  # every cue given in this game (normalised)
    cones: tuple[Cone, ...]  # (absolute seat, cell, cue index) of this round's cones, in placement order
    scores: tuple[int, ...]  # running score per absolute seat
    card: tuple[int, ...] = ()  # the cue giver's card: only in the cue giver's own view
    target: int | None = None  # the chosen target: only in the cue giver's own view

    @property
    def is_cue_giver(self) -> bool:
        return self.seat == self.cue_giver and self.phase is not Phase.DONE

    @property
    def role(self) -> str:
        return "cue_giver" if self.seat == self.cue_giver else "guesser"

    @property
    def given_cues(self) -> tuple[str, ...]:
        """The cues given this round, passes left out."""
        return tuple(c for c in self.cues if c is not None)

    def relative(self, seat: int) -> int:
        """Seat-relative index of absolute ``seat``: the viewer is 0, then clockwise."""
        return (seat - self.seat) % self.num_players

    def occupied(self) -> np.ndarray:
        """(480,) bool: cells holding a cone this round."""
        out = np.zeros(N_CELLS, dtype=bool)
        for _, cell, _ in self.cones:  # at most 18: item by item beats building an index array
            out[cell] = True
        return out


@dataclass(frozen=True)
class RenderView:
    """What a frame shows, as plain data: the contract between the game (live or replayed) and the renderer.

    No pygame here, so envs and log readers build views without the ``render``
    extra; :mod:`huesenv.render.view` re-exports it for the renderer's users.
    """

    players: tuple[str, ...]  # seat names in clockwise order, e.g. ("player_0", ...)
    cones: dict[int, int] = field(default_factory=dict)  # flat cell index -> seat index owning the cone
    cues: tuple[str, ...] = ()  # cues given so far this round
    cue_giver: int | None = None  # seat index
    current: int | None = None  # seat index whose turn it is
    phase: str = ""  # a Phase value: "pick_target" ... "guess_2", "reveal" or "done"
    scores: tuple[int, ...] = ()  # running score per seat
    round: int = 0
    target: int | None = None  # shown only at reveal (or to the cue giver's own view)
    message: str = ""  # status line, e.g. an illegal-input notice in human play
    labels: tuple[str, ...] = ()  # display name per seat (e.g. agent ids in a replay); default = players
    card: tuple[int, ...] = ()  # the cue giver's 4 card cells, shown only to the cue giver (human play)
    prompt: str = ""  # input line shown under the board (what a person is typing)
    final: bool = False  # the end-of-game frame: the final standings drawn over the board
    cone_cues: dict[int, int] = field(default_factory=dict)  # cell -> the cue (1 or 2) its cone answered
    gains: tuple[int, ...] = ()  # at a reveal: the points each seat scored this round (drawn as "+N")
    hover: int | None = None  # human play: the cell under the mouse, outlined before the click
