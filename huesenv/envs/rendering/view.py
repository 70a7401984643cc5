"""What a frame shows, as plain data: the contract between the game env (or a log) and the renderer.

No pygame import here, so envs and log readers can build views without the
``render`` extra installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RenderView:
    players: tuple[str, ...]  # seat names in clockwise order, e.g. ("player_0", ...)
    cones: dict[int, int] = field(default_factory=dict)  # flat cell index -> seat index owning the cone
    cues: tuple[str, ...] = ()  # cues given so far this round
    cue_giver: int | None = None  # seat index
    current: int | None = None  # seat index whose turn it is
    phase: str = ""  # "pick_target" | "cue_1" | "guess_1" | "cue_2" | "guess_2" | "reveal" | "done"
    scores: tuple[int, ...] = ()  # running score per seat
    round: int = 0
    target: int | None = None  # shown only at reveal (or to the cue giver's own view)
    message: str = ""  # status line, e.g. an illegal-input notice in human play
    # Additive (render issue): optional extras that default to "not shown".
    labels: tuple[str, ...] = ()  # display name per seat (e.g. agent ids in a replay); default = players
    card: tuple[int, ...] = ()  # the cue giver's 4 card cells, shown only to the cue giver (human play)
    prompt: str = ""  # input line shown under the board (what a person is typing)
    final: bool = False  # the end-of-game frame: the final standings drawn over the board
