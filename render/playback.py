"""Logged games → frames: the state reconstruction behind ``huesenv replay`` and human play.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.render.playback``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from huesenv.atomic import write_with
from huesenv.board import format_coord
from huesenv.envs.rendering.renderer import BoardRenderer, short_label
from huesenv.envs.rendering.view import RenderView
from huesenv.envs.rendering.window import Window
from huesenv.game.observer import render_view
from huesenv.game.phase import Phase
from huesenv.game.replay import logged_cue, replay, seat_order
from huesenv.logs import read_log_state, read_records


def game_records(records: Iterable[Any]) -> dict[Any, list[Any]]:
    """Group the game_step records by ``extra["game"]``, in log order."""
    games: dict[Any, list[Any]] = {}
    for rec in getattr(records, "records", records):
        if getattr(rec, "kind", None) != "game_step":
            continue
        extra = getattr(rec, "extra", None) or {}
        games.setdefault(extra.get("game"), []).append(rec)
    return games


def _game_order(game: Any) -> tuple[int, int, str]:
    """Numbers in numeric order (2 before 10), then anything else by its text."""
    if isinstance(game, int) and not isinstance(game, bool):
        return (0, game, "")
    return (1, 0, str(game))


def describe_games(games: Iterable[Any]) -> str:
    """The games of a log for a message: numbers in order, runs of consecutive ones as ranges
    (``games 0–71 (72)``), so a long log is one short line."""
    ordered = sorted(set(games), key=_game_order)
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while (
            j + 1 < len(ordered)
            and _game_order(ordered[j])[0] == 0
            and _game_order(ordered[j + 1])[0] == 0
            and ordered[j + 1] == ordered[j] + 1
        ):
            j += 1
        parts.append(f"{ordered[i]}" if i == j else f"{ordered[i]}–{ordered[j]}")
        i = j + 1
    noun = "game" if len(ordered) == 1 else "games"
    return f"{noun} {', '.join(parts)} ({len(ordered)})"


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

    Every frame is the rules state after re-applying the logged moves
    (:func:`huesenv.game.replay.replay`), drawn by the one observer
    (:func:`huesenv.game.observer.render_view`).  ``records`` is a list of
    ``LogRecord`` (or a ``ReadResult`` with ``.records``).  A record the rules
    reject, or one missing a field, raises ``ValueError`` naming the game, the
    record number and the field.  A game cut short (a crash) gives frames up to
    its last record; the last frame's status line says the log ends there.
    """
    if reveal_target not in ("reveal", "always"):
        raise ValueError(f"reveal_target: {reveal_target!r}; expected 'reveal' or 'always'")
    games = game_records(records)
    if game is not None:
        if game not in games:
            raise ValueError(f"game {game!r} is not in the log: it holds {describe_games(games)}")
        games = {game: games[game]}
    views: list[RenderView] = []
    for g, recs in games.items():
        names = sorted(
            {str(_player(r, f"game {g}, game_step record {k + 1}")) for k, r in enumerate(recs)},
            key=seat_order,
        )
        ids: dict[str, Any] = {}
        for r in recs:
            ids.setdefault(
                str(r.extra["player"]), r.extra.get("seat_agent") or r.agent_id
            )  # the report's name
        labels = [n if ids[n] in (None, n) else f"{n} ({ids[n]})" for n in names]
        frames = _game_views(recs, names, labels, where=f"game {g}", always=reveal_target == "always")
        if frames and recs[-1].extra.get("phase") != Phase.REVEAL.value:
            frames[-1] = replace(
                frames[-1], message=f"{frames[-1].message} - the log ends here (game cut short)"
            )
        views.extend(frames)
    return views


# An agent's own fallback (logged as extra["agent_fallback"]), said aloud in the window and the replay.
AGENT_FALLBACKS = {
    "unknown_cue": "did not know the cue: a random guess",
    "exhausted": "no human answers left for the cue: a random guess",
}


def _game_views(
    recs: Sequence[Any], names: Sequence[str], labels: Sequence[str], *, where: str, always: bool
) -> list[RenderView]:
    """The frames of one game: the rules state after each re-applied record, as a spectator sees it."""
    views: list[RenderView] = []
    before: tuple[int, ...] = (0,) * len(names)  # scores shown until the round's reveal records
    shown = [short_label(label) for label in labels]  # messages name seats as the legend does
    for st in replay(recs, players=names, where=where):
        name = shown[st.seat]
        mark = "" if st.valid else " (random fallback)"  # the env played a random legal move instead
        own = (st.record.extra or {}).get("agent_fallback")  # the agent's own fallback, e.g. an unknown cue
        if st.valid and own:
            mark = f" ({AGENT_FALLBACKS.get(str(own), str(own))})"
        if st.phase is Phase.REVEAL:
            assert st.reveal is not None  # replay checks a reveal record follows the round's last cone
            gains = [f"{shown[i]} +{p}" for i, p in enumerate(st.reveal.points) if p]
            line = "Round scored: " + ", ".join(gains) if gains else "Round scored: no points"
            view = render_view(st.state, names, st.reveal, line, labels)
            before = tuple(st.state.scores)
        elif (
            st.reveal is not None
        ):  # the round's last cone: the rules scored it, the table waits for the reveal
            view = render_view(st.state, names, st.reveal, _move_line(st, name, mark), labels)
            view = replace(view, target=st.reveal.target if always else None, scores=before, gains=())
        else:
            view = render_view(st.state, names, None, _move_line(st, name, mark), labels)
            target = st.state.target if always and st.state.phase is not Phase.PICK_TARGET else None
            view = replace(view, target=target, scores=before)
        views.append(replace(view, phase=st.phase.value, current=st.seat, cues=_shown_cues(view.cues)))
    return views


class LiveTable:
    """The table of a game in progress (the play window): its step records so far, re-applied to the rules.

    Between records the window shows whose turn it is (``current``, ``cue_giver``)
    and clears the board when a new round's target is being chosen (:meth:`new_round`).
    ``secret_target`` is the round's target, for the person's own view while cue giver.
    """

    def __init__(self, players: Sequence[str], labels: Sequence[str] = ()) -> None:
        self.players = list(players)
        self.labels = list(labels) or list(players)
        self.records: list[Any] = []
        self.secret_target: int | None = None
        self._view = RenderView(
            players=tuple(self.players), labels=tuple(self.labels), scores=(0,) * len(self.players)
        )

    def apply(self, rec: Any, where: str = "live game record") -> RenderView:
        """Add one game_step record and return the table after it (a new ``extra["game"]`` starts afresh)."""
        if self.records and (self.records[-1].extra or {}).get("game") != (rec.extra or {}).get("game"):
            self.records = []
        self.records.append(rec)
        steps = list(replay(self.records, players=self.players, where=where))
        self._view = _game_views(self.records, self.players, self.labels, where=where, always=False)[-1]
        last = steps[-1]
        if last.reveal is not None:
            self.secret_target = last.reveal.target
        elif last.state.phase is not Phase.PICK_TARGET:
            self.secret_target = last.state.target
        return self._view

    def new_round(self, cue_giver: int | None = None) -> None:
        """Clear the board for a round whose first record has not arrived yet (human play asks first)."""
        v = self._view
        rnd = v.round + 1 if v.phase in (Phase.REVEAL.value, Phase.DONE.value) else v.round
        self._view = replace(
            v, cones={}, cues=(), target=None, cue_giver=cue_giver, current=cue_giver, round=rnd,
            phase=Phase.PICK_TARGET.value, message="",
        )  # fmt: skip
        self.secret_target = None

    def view(self, **overrides: Any) -> RenderView:
        return replace(self._view, **overrides)

    phase = property(lambda self: self._view.phase)
    target = property(lambda self: self._view.target)
    cones = property(lambda self: self._view.cones)
    message = property(lambda self: self._view.message)
    scores = property(lambda self: list(self._view.scores))

    current = property(lambda self: self._view.current)
    cue_giver = property(lambda self: self._view.cue_giver)

    def set_turn(self, seat: int, *, cue_giver: bool = False) -> None:
        """The window asks ``seat`` (the cue giver's turn when ``cue_giver``) before its record arrives."""
        self._view = replace(self._view, current=seat, cue_giver=seat if cue_giver else self._view.cue_giver)


def _player(rec: Any, where: str) -> Any:
    extra = getattr(rec, "extra", None) or {}
    if extra.get("player") is None:
        raise ValueError(f"{where}, field extra.player: missing")
    return extra["player"]


def _shown_cues(cues: Sequence[str]) -> tuple[str, ...]:
    """A passed cue 2 shows in the status line, not as a cue on the table."""
    return tuple(c for c in cues if c != "(pass)")


def _move_line(st: Any, name: str, mark: str) -> str:
    """The status line of one move, from the record as re-applied to the rules."""
    if st.phase is Phase.PICK_TARGET:
        return f"{name} chooses a colour{mark}"
    if st.phase.is_guess:
        cones = st.reveal.cones if st.reveal is not None else st.state.cones
        return f"{name} places a cone on {format_coord(cones[-1].cell)}{mark}"
    cue = None if st.record.extra.get("passed") else logged_cue(st.record)
    return f"{name} passes on cue 2{mark}" if cue is None else f"{name} says: {cue}{mark}"


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
        order = sorted(seats, key=seat_order)
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
        # encoded in memory into a temporary file opened first: a target that cannot be written (/proc/x.gif,
        # a full disk) is one OSError before any frame is drawn, never a half-written GIF or an imageio traceback
        def encode(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                fh.write(
                    iio.imwrite("<bytes>", list(frames), extension=".gif", duration=round(1000 / fps), loop=0)
                )

        write_with(path, encode)
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
                writer.append_data(f)  # type: ignore[attr-defined]  # imageio v2's writer
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
