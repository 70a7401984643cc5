"""``huesenv replay`` (step through a logged game, or export it) and ``huesenv play`` (a person plays).

Both live here because they share the renderer; ``huesenv.cli.COMMANDS`` lists
this module once and :func:`register` adds both subcommands.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    replay = subparsers.add_parser(
        "replay",
        help="replay a logged game in a window, or export it as GIF/MP4/PNG frames",
        description="Step through a logged game: space pause/resume, left/right arrows step, +/- speed, q quit. "
        "With --export, write the frames instead (no window).",
    )
    replay.add_argument("log", help="JSON Lines log with game_step records")
    replay.add_argument(
        "--game", type=int, default=None, help="game number (extra.game); default: the first game"
    )
    replay.add_argument(
        "--list", action="store_true", help="list the games of the log (seats, scores, rounds) and exit"
    )
    replay.add_argument(
        "--no-standings", action="store_true", help="leave out the final-standings frame at the end of a game"
    )
    replay.add_argument(
        "--export",
        metavar="OUT",
        default=None,
        help="write frames to OUT.gif, OUT.mp4 (needs imageio-ffmpeg) or a directory of PNGs",
    )
    replay.add_argument(
        "--fps", type=float, default=None, help="frames per second (default: the renderer's render_fps)"
    )
    replay.add_argument(
        "--reveal-target",
        choices=("reveal", "always"),
        default="reveal",
        help="show the target only from the reveal on (default), or as soon as it is chosen",
    )
    replay.set_defaults(func=_replay)

    play = subparsers.add_parser(
        "play",
        help="play a game in a window against agents and replayed humans",
        description="Guess by clicking a cell or typing a coordinate (Enter); give cues by typing (Enter); "
        "Escape clears the input, Escape on an empty input or closing the window quits.",
    )
    play.add_argument(
        "--seat",
        default="human",
        help="your 0-based seat (default 'human' = seat 0, or where 'human' appears in --agents)",
    )
    play.add_argument(
        "--agents",
        default="random,random",
        help="comma-separated agent specs of the other seats in order (see 'huesenv agents'), "
        "e.g. random,human-replay,clip:ViT-B-32/laion2b_s34b_b79k",
    )
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--device", default=None, help="torch device of model agents: auto | cpu | cuda[:n]")
    play.add_argument(
        "--cue-mode",
        choices=("text", "vocabulary"),
        default="text",
        help="text: free cues checked by the rules (default); vocabulary: cues from the 100-word list",
    )
    play.add_argument("--delay", type=float, default=0.6, help="seconds to pause after each agent move")
    play.add_argument(
        "--log",
        default=None,
        help="append the game's records to this JSON Lines log, as the log's next free game number",
    )
    play.set_defaults(func=_play)


def display_problem() -> str | None:
    """Why an interactive window cannot open here (None when a display looks available).

    Without this check pygame falls back to an invisible window and the replay waits
    forever for a key nobody can press.
    """
    import os

    driver = os.environ.get("SDL_VIDEODRIVER", "").lower()
    if driver in ("dummy", "offscreen"):
        return f"SDL_VIDEODRIVER={driver} draws off-screen"
    if sys.platform.startswith("linux") and driver != "kmsdrm":
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    return None


def _list_games(path: str, records: list) -> int:
    from huesenv.render.playback import game_summaries

    rows = game_summaries(records)
    print(f"{path}: {len(rows)} game(s)")
    print(f"{'game':>5}  {'rounds':>6}  {'steps':>5}  seats (score)")
    for row in rows:
        seats = ", ".join(f"{a} ({s})" for a, s in zip(row["seats"], row["scores"]))
        mark = "" if row["complete"] else "  [incomplete]"
        print(f"{row['game']!s:>5}  {row['rounds']:>6}  {row['steps']:>5}  {seats}{mark}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from huesenv.render.playback import (
        export_frames,
        game_records,
        load_replay_records,
        run_replay,
        views_from_records,
        with_final_standings,
    )
    from huesenv.render.renderer import RENDER_FPS

    records = load_replay_records(args.log)  # complete unit blocks only: a crashed write is not replayed
    games = game_records(records)
    if not games:
        raise ValueError(f"{args.log}: no game_step records to replay")
    if args.list:
        return _list_games(args.log, records)
    if not args.export:
        problem = display_problem()
        if problem:
            raise ValueError(
                f"no display for an interactive replay ({problem}); "
                f"export it instead: huesenv replay {args.log} --export game.gif"
            )
    game = args.game if args.game is not None else next(iter(games))
    try:
        views = views_from_records(records, game=game, reveal_target=args.reveal_target)
    except ValueError as err:
        raise ValueError(f"{args.log}: {err}") from None
    if not args.no_standings:
        views = with_final_standings(views)
    fps = args.fps or RENDER_FPS
    if len(games) > 1 and args.game is None:
        print(f"{args.log}: {len(games)} games; showing game {game} (choose with --game)", file=sys.stderr)
    if args.export:
        n = export_frames(views, args.export, fps=fps)
        print(f"wrote {n} frames of game {game} to {args.export}")
        return 0
    run_replay(views, fps=fps)
    return 0


def _play(args: argparse.Namespace) -> int:
    from huesenv.render.human_play import HumanQuit, play_human_game

    problem = display_problem()
    if problem:
        raise ValueError(f"no display to play in a window ({problem})")
    specs = [s for s in args.agents.split(",") if s.strip()]
    try:
        result = play_human_game(
            specs,
            seat=args.seat,
            seed=args.seed,
            cue_mode=args.cue_mode,
            agent_delay=args.delay,
            log_path=args.log,
            wait_at_end=True,
            device=args.device,
        )
    except HumanQuit:
        print("game abandoned")
        return 0
    for player, score in sorted(result.scores.items()):
        print(f"{player}: {score}")
    return 0
