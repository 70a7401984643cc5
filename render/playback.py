"""Logged games → frames: the state reconstruction behind ``huesenv replay`` and human play.

A game log is a sequence of ``LogRecord`` of kind ``"game_step"`` (fields in
:mod:`huesenv.logs.schema`).  :class:`GameViewBuilder` applies them one at a
time and keeps what a spectator sees; :func:`views_from_records` yields **one
view per game_step record** (records of other kinds are skipped), so a game of
``n`` step records replays as exactly ``n`` frames.

Choices (the schema leaves them open):

* seats are the distinct ``extra["player"]`` names of a game, ordered by their
  number (``player_0``, ``player_1`` …), else by first appearance; a seat's
  label is ``"player_0 (agent_id)"``;
* the cue text is ``extra["cue"]`` if present, else ``word``, else ``answer``;
  ``extra["passed"]`` (or an empty cue) on ``cue_2`` means the cue giver passed;
* a new ``(game, round)`` clears cones, cues and target; a new game also resets
  the scores, which are the running sum of ``extra["points"]``;
* the target is shown from the ``reveal`` step on (a spectator should not know
  it earlier); ``reveal_target="always"`` shows it as soon as a record carries it.
* a record with ``valid=False`` is an answer the env replaced by a seeded random
  legal move (``huesenv.envs.hues_cues.play``); its ``extra["cell"]`` / cue text
  say what was *played*, so the cone is placed / the cue shown like any other and
  the status line adds "(random fallback)".  Only a record that names nothing
  played (older logs) places nothing ("placed no cone" / "gave no usable cue");
* logs written by the experiments runner carry unit tags (``extra["unit"]``,
  ``unit_size``, ``unit_pos``); :func:`load_replay_records` keeps only their
  complete blocks, so a block cut short by a crash next to its rerun does not
  merge into the same game (see that function for which block wins).
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from huesenv.board import format_coord, parse_coord
from huesenv.envs.rendering.renderer import BoardRenderer, short_label
from huesenv.envs.rendering.view import RenderView
from huesenv.envs.rendering.window import Window
from huesenv.logs import cue_text, read_log_state, read_records

CUE_PHASES = ("cue_1", "cue_2")
GUESS_PHASES = ("guess_1", "guess_2")
PHASES = ("pick_target", "cue_1", "guess_1", "cue_2", "guess_2", "reveal", "done")


def _seat_order(name: str) -> tuple[int, str]:
    match = re.search(r"(\d+)$", name)
    return (int(match.group(1)) if match else 1 << 30, name)


def _extra(rec: Any, key: str, where: str, *, required: bool = True, types: tuple = ()) -> Any:
    extra = getattr(rec, "extra", None)
    if not isinstance(extra, dict):
        raise ValueError(
            f"{where}, field extra: expected a dict of game-step fields, got {type(extra).__name__}"
        )
    if key not in extra:
        if required:
            raise ValueError(f"{where}, field extra.{key}: missing (a game_step record needs it)")
        return None
    value = extra[key]
    if (
        types
        and value is not None
        and (not isinstance(value, types) or isinstance(value, bool) and bool not in types)
    ):
        names = "/".join(t.__name__ for t in types)
        raise ValueError(f"{where}, field extra.{key}: expected {names}, got {value!r}")
    return value


def _coord(value: Any, where: str, key: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return parse_coord(value) if isinstance(value, str) else parse_coord(format_coord(value))
    except ValueError as err:
        raise ValueError(f"{where}, field extra.{key}: {err}") from None


class GameViewBuilder:
    """Incremental spectator state of one game (or several in sequence)."""

    def __init__(
        self, players: Sequence[str] = (), labels: Sequence[str] = (), *, reveal_target: str = "reveal"
    ) -> None:
        if reveal_target not in ("reveal", "always"):
            raise ValueError(f"reveal_target: {reveal_target!r}; expected 'reveal' or 'always'")
        self.reveal_target = reveal_target
        self.players: list[str] = list(players)
        self.labels: list[str] = list(labels) or list(players)
        self.scores: list[int] = [0] * len(self.players)
        self.cones: dict[int, int] = {}
        self.cues: list[str] = []
        self.cue_giver: int | None = None
        self.current: int | None = None
        self.phase = ""
        self.round = 0
        self.game: Any = None
        self.target: int | None = None
        self.secret_target: int | None = None
        self.message = ""

    def seat(self, player: str, agent_id: str | None = None) -> int:
        if player not in self.players:
            self.players.append(player)
            self.labels.append(player if not agent_id or agent_id == player else f"{player} ({agent_id})")
            self.scores.append(0)
        return self.players.index(player)

    def apply(self, rec: Any, where: str = "record") -> RenderView:
        """Apply one game_step record and return the view after it."""
        game = _extra(rec, "game", where, required=False)
        rnd = _extra(rec, "round", where, types=(int,))
        player = _extra(rec, "player", where, types=(str,))
        phase = _extra(rec, "phase", where, types=(str,))
        if phase not in PHASES:
            raise ValueError(f"{where}, field extra.phase: {phase!r} is not one of {PHASES}")
        points = _extra(rec, "points", where, required=False, types=(int, float))
        if game != self.game:
            self.scores = [0] * len(self.players)
            self.game, self.round = game, None
        if rnd != self.round:
            self.round = rnd
            self.cones, self.cues = {}, []
            self.target = self.secret_target = None
            self.cue_giver = None
        seat = self.seat(player, getattr(rec, "agent_id", None))
        name = self.players[seat]
        role = _extra(rec, "role", where, required=False, types=(str,))
        if role == "cue_giver" or phase in ("pick_target",) + CUE_PHASES:
            self.cue_giver = seat
        target = _coord(_extra(rec, "target", where, required=False), where, "target")
        if target is not None:
            self.secret_target = target
        self.phase, self.current = phase, seat
        valid = getattr(rec, "valid", True) is not False
        mark = "" if valid else " (random fallback)"  # the env played a random legal move instead
        self.message = ""
        if phase == "pick_target":
            self.message = f"{name} chooses a colour{mark}"
        elif phase in CUE_PHASES:
            cue = cue_text(rec)
            passed = bool(_extra(rec, "passed", where, required=False))
            if passed or (cue is None and phase == "cue_2"):
                self.message = f"{name} passes on cue 2{mark}"
            elif cue is not None:
                self.cues.append(cue)
                self.message = f"{name} says: {cue}{mark}"
            elif not valid:  # an older log that does not say which cue was played
                self.message = f"{name} gave no usable cue"
            else:
                raise ValueError(f"{where}, field extra.cue/word/answer: a {phase} record needs the cue text")
        elif phase in GUESS_PHASES:
            cell = _coord(_extra(rec, "cell", where, required=False), where, "cell")
            if cell is None:  # nothing played (an older log's invalid answer)
                self.message = f"{name} placed no cone (invalid answer)"
            else:
                if cell in self.cones:
                    raise ValueError(
                        f"{where}, field extra.cell: {format_coord(cell)} already holds a cone "
                        f"of {self.players[self.cones[cell]]}"
                    )
                self.cones[cell] = seat
                self.message = f"{name} places a cone on {format_coord(cell)}{mark}"
        elif phase == "reveal":
            if self.secret_target is None:
                raise ValueError(f"{where}, field extra.target: a reveal record needs the target coordinate")
            self.message = f"{name} scores {int(points or 0)}"
        if points:
            self.scores[seat] += int(points)
        if phase in ("reveal", "done") or self.reveal_target == "always":
            self.target = self.secret_target
        return self.view()

    def new_round(self, cue_giver: int | None = None) -> None:
        """Clear the board for a round whose first record has not arrived yet (human play asks first)."""
        if self.phase in ("reveal", "done"):
            self.round = (self.round or 0) + 1
        self.cones, self.cues = {}, []
        self.target = self.secret_target = None
        self.cue_giver, self.current = cue_giver, cue_giver
        self.phase, self.message = "pick_target", ""

    def view(self, **overrides: Any) -> RenderView:
        fields = dict(
            players=tuple(self.players),
            cones=dict(self.cones),
            cues=tuple(self.cues),
            cue_giver=self.cue_giver,
            current=self.current,
            phase=self.phase,
            scores=tuple(self.scores),
            round=self.round or 0,
            target=self.target,
            message=self.message,
            labels=tuple(self.labels),
        )
        fields.update(overrides)
        return RenderView(**fields)


def game_records(records: Iterable[Any]) -> dict[Any, list[Any]]:
    """Group the game_step records by ``extra["game"]``, in log order."""
    games: dict[Any, list[Any]] = {}
    for rec in getattr(records, "records", records):
        if getattr(rec, "kind", None) != "game_step":
            continue
        extra = getattr(rec, "extra", None) or {}
        games.setdefault(extra.get("game"), []).append(rec)
    return games


def load_replay_records(path: str | Path) -> list[Any]:
    """A log's records as replay should see them: for unit-tagged logs, complete unit blocks only.

    A crash mid-append leaves a unit's block cut short; the rerun appends the whole
    block again, and both carry the same ``extra["game"]``.  Logs with unit tags
    (``extra["unit"]``) are therefore read through the experiments runner's own
    :func:`huesenv.logs.read_log_state`, so replay sees exactly the blocks the
    tournament tables count: partial blocks are dropped and, should a unit have two
    complete blocks, the **first** one is kept (the runner never reruns a complete
    unit, so only a hand-concatenated log can hold two; the tables count the first).
    Records without a unit tag (e.g. older logs, hand-written ones) are kept as
    they are, after the tagged ones.  Logs without any tag come back unchanged.
    """
    records = read_records(path).records
    if not any((getattr(r, "extra", None) or {}).get("unit") is not None for r in records):
        return list(records)
    with warnings.catch_warnings():  # a torn last line was already reported by the first read
        warnings.simplefilter("ignore")
        state = read_log_state(Path(path))
    untagged = [r for r in records if (getattr(r, "extra", None) or {}).get("unit") is None]
    return state.records() + untagged


def views_from_records(
    records: Iterable[Any], *, game: Any = None, reveal_target: str = "reveal"
) -> list[RenderView]:
    """One :class:`RenderView` per game_step record (all games in log order, or only ``game``).

    ``records`` is a list of ``LogRecord`` (or a ``ReadResult`` with ``.records``).
    Bad records raise ``ValueError`` naming the record number and the field.
    """
    games = game_records(records)
    if game is not None:
        if game not in games:
            raise ValueError(f"game {game!r} is not in the log: it holds games {sorted(games, key=str)}")
        games = {game: games[game]}
    views: list[RenderView] = []
    for g, recs in games.items():
        names = sorted({str((r.extra or {}).get("player")) for r in recs}, key=_seat_order)
        ids = {}
        for r in recs:
            ids.setdefault(str((r.extra or {}).get("player")), r.agent_id)
        labels = [n if ids[n] == n else f"{n} ({ids[n]})" for n in names]
        builder = GameViewBuilder(names, labels, reveal_target=reveal_target)
        for k, rec in enumerate(recs):
            views.append(builder.apply(rec, where=f"game {g}, game_step record {k + 1}"))
    return views


def with_final_standings(views: Sequence[RenderView]) -> list[RenderView]:
    """``views`` plus, after every game that ended with a reveal, one frame of its final standings.

    A game cut short (its last step is not a reveal) gets none: its scores are not final.
    """
    out: list[RenderView] = []
    for k, view in enumerate(views):
        out.append(view)
        nxt = views[k + 1] if k + 1 < len(views) else None
        game_ends = nxt is None or (nxt.round < view.round) or (nxt.phase == "pick_target" and nxt.round == 0)
        if game_ends and view.phase == "reveal":
            out.append(
                replace(
                    view,
                    final=True,
                    phase="done",
                    current=None,
                    message=_winner_line(view),
                )
            )
    return out


def _winner_line(view: RenderView) -> str:
    labels = view.labels if len(view.labels) == len(view.players) else view.players
    best = max(view.scores, default=0)
    winners = [short_label(lab) for lab, s in zip(labels, view.scores) if s == best]
    return f"Game over: {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'} with {best} points"


def game_summaries(records: Iterable[Any]) -> list[dict[str, Any]]:
    """One row per game of a log: game, seats (agent per seat), rounds, steps, final scores, complete?"""
    rows = []
    for game, recs in game_records(records).items():
        seats: dict[str, str] = {}
        scores: dict[str, int] = {}
        rounds = set()
        for rec in recs:
            extra = rec.extra or {}
            player = str(extra.get("player"))
            seats.setdefault(player, str(extra.get("seat_agent") or rec.agent_id))
            scores[player] = scores.get(player, 0) + int(extra.get("points") or 0)
            rounds.add(extra.get("round"))
        order = sorted(seats, key=_seat_order)
        rows.append(
            {
                "game": game,
                "seats": [seats[p] for p in order],
                "scores": [scores[p] for p in order],
                "rounds": len(rounds),
                "steps": len(recs),
                "complete": (recs[-1].extra or {}).get("phase") == "reveal",
            }
        )
    return rows


# -- export --------------------------------------------------------------------------
def export_frames(
    views: Sequence[RenderView], path: str | Path, *, fps: float = 4.0, renderer: Any = None
) -> int:
    """Write the frames of ``views`` to ``path``; returns how many frames were written.

    ``*.gif`` (pillow via imageio, looping, colours quantised to GIF's 256-colour
    palette), ``*.mp4`` (imageio's ffmpeg backend; needs ``imageio-ffmpeg``), anything
    else is a directory of ``frame_00000.png`` … (lossless).  No window is opened.
    """
    import imageio.v2 as iio2
    import imageio.v3 as iio

    if fps <= 0:
        raise ValueError(f"fps: {fps!r}; expected a positive number")
    if not views:
        raise ValueError("nothing to export: no game_step records")

    renderer = renderer or BoardRenderer()
    frames = (renderer.frame(v) for v in views)
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".gif":
        path.parent.mkdir(parents=True, exist_ok=True)
        iio.imwrite(path, list(frames), extension=".gif", duration=int(round(1000 / fps)), loop=0)
    elif suffix == ".mp4":
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError as err:
            raise ValueError(
                f"{path}: mp4 export needs an ffmpeg backend: pip install imageio-ffmpeg "
                "(or export .gif / a PNG directory)"
            ) from err
        path.parent.mkdir(parents=True, exist_ok=True)
        with iio2.get_writer(
            path,
            format="FFMPEG",
            mode="I",
            fps=fps,
            codec="libx264",
            macro_block_size=16,
            pixelformat="yuv420p",
        ) as writer:
            for f in frames:
                writer.append_data(f)
    elif suffix:
        raise ValueError(f"{path}: unsupported export format {suffix!r}; expected .gif, .mp4 or a directory")
    else:
        if path.exists() and not path.is_dir():
            raise ValueError(
                f"{path}: exists and is not a directory; expected OUT.gif, OUT.mp4 or a directory for PNGs"
            )
        path.mkdir(parents=True, exist_ok=True)
        for k, f in enumerate(frames):
            iio.imwrite(path / f"frame_{k:05d}.png", f)
    return len(views)


# -- interactive replay ----------------------------------------------------------------
class ReplayController:
    """Replay state driven by pygame events: space pause/resume, arrows step, +/- speed, q quit.

    Kept free of any window so tests can feed it events and clock ticks directly.
    """

    MIN_FPS, MAX_FPS = 0.25, 60.0

    def __init__(self, n_frames: int, fps: float = 4.0, *, playing: bool = True) -> None:
        if n_frames <= 0:
            raise ValueError("nothing to replay: no frames")
        if not fps > 0:
            raise ValueError(f"fps: {fps!r}; expected a positive number")
        self.n = n_frames
        self.index = 0
        self.fps = float(fps)
        self.playing = playing
        self.running = True
        self._acc = 0.0

    def handle_event(self, event: Any) -> None:
        import pygame

        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN:
            key, char = event.key, getattr(event, "unicode", "")
            if key in (pygame.K_q, pygame.K_ESCAPE):
                self.running = False
            elif key == pygame.K_SPACE:
                self.playing = not self.playing
                if self.playing and self.index == self.n - 1:
                    self.index = 0  # resume at the end starts again
                self._acc = 0.0
            elif key == pygame.K_RIGHT:
                self.playing, self.index = False, min(self.index + 1, self.n - 1)
            elif key == pygame.K_LEFT:
                self.playing, self.index = False, max(self.index - 1, 0)
            elif key == pygame.K_HOME:
                self.index = 0
            elif key == pygame.K_END:
                self.index = self.n - 1
            elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS) or char == "+":
                self.fps = min(self.fps * 2, self.MAX_FPS)
            elif key in (pygame.K_MINUS, pygame.K_KP_MINUS) or char == "-":
                self.fps = max(self.fps / 2, self.MIN_FPS)

    def advance(self, dt: float) -> None:
        """Move on by the frames due after ``dt`` seconds of play; stops (paused) at the last frame."""
        if not self.playing:
            return
        self._acc += dt
        step = 1.0 / self.fps
        while self._acc >= step and self.index < self.n - 1:
            self._acc -= step
            self.index += 1
        if self.index >= self.n - 1:
            self.playing, self._acc = False, 0.0

    def status(self) -> str:
        state = "playing" if self.playing else "paused"
        return (
            f"frame {self.index + 1}/{self.n}  {self.fps:g} fps  {state}   "
            "[space] play/pause  [left/right] step  [+/-] speed  [q] quit"
        )


def run_replay(
    views: Sequence[RenderView],
    *,
    fps: float = 4.0,
    renderer: Any = None,
    window: Any = None,
    max_seconds: float | None = None,
    clock: Callable[[], float] | None = None,
) -> ReplayController:
    """Show ``views`` in a window until the person quits (or ``max_seconds`` pass, for tests)."""
    renderer = renderer or BoardRenderer()
    own_window = window is None
    window = window or Window(renderer.size, "huesenv replay")
    ctl = ReplayController(len(views), fps)
    clock = clock or time.monotonic
    start = last = clock()
    shown: tuple[int, str] | None = None
    try:
        while ctl.running:
            for event in window.events():
                ctl.handle_event(event)
            now = clock()
            ctl.advance(now - last)
            last = now
            status = ctl.status()
            if shown != (ctl.index, status):  # redraw only when something changed
                window.present(renderer.surface(_with_prompt(views[ctl.index], status)))
                shown = (ctl.index, status)
            if max_seconds is not None and now - start >= max_seconds:
                break
            window.tick(60)
    finally:
        if own_window:
            window.close()
    return ctl


def _with_prompt(view: RenderView, prompt: str) -> RenderView:
    return replace(view, prompt=prompt)
