"""``huesenv replay``: step through a logged game in a window, or export it as GIF/MP4/PNG frames."""

from __future__ import annotations

import argparse
import sys

from huesenv.commands.common import existing_file, positive_float
from huesenv.envs.rendering.renderer import RENDER_FPS
from huesenv.envs.rendering.window import display_problem
from huesenv.render.playback import (
    export_frames,
    game_records,
    game_summaries,
    load_replay_records,
    run_replay,
    views_from_records,
    with_final_standings,
)


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
        "-o",
        "--out",
        "--export",
        dest="export",
        metavar="OUT",
        default=None,
        help="write frames to OUT.gif, OUT.mp4 (needs imageio-ffmpeg) or a directory of PNGs",
    )
    replay.add_argument(
        "--fps",
        type=positive_float,
        default=None,
        help="frames per second (default: the renderer's render_fps)",
    )
    replay.add_argument(
        "--reveal-target",
        choices=("reveal", "always"),
        default="reveal",
        help="show the target only from the reveal on (default), or as soon as it is chosen",
    )
    replay.set_defaults(func=_replay)


def _list_games(path: str, records: list) -> int:
    rows = game_summaries(records)
    print(f"{path}: {len(rows)} game(s)")
    print(f"{'game':>5}  {'rounds':>6}  {'steps':>5}  seats (score)")
    for row in rows:
        seats = ", ".join(f"{a} ({s})" for a, s in zip(row["seats"], row["scores"]))
        mark = "" if row["complete"] else "  [incomplete]"
        print(f"{row['game']!s:>5}  {row['rounds']:>6}  {row['steps']:>5}  {seats}{mark}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    if args.list and (args.game is not None or args.export):
        given = "--game" if args.game is not None else "--out"
        raise ValueError(f"--list prints the games and exits; expected --list without {given}")
    existing_file(args.log, "LOG")
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
