"""``huesenv play``: a person plays a game in a window against agents and replayed humans."""

from __future__ import annotations

import argparse

from huesenv.agents.registry import available_agents, split_spec
from huesenv.commands.common import add_allow_code, add_device, add_seed, jsonl_target, non_negative_float
from huesenv.envs.rendering.window import display_problem
from huesenv.logs import check_appendable
from huesenv.play.human import HumanQuit, play_human_game


def register(subparsers: argparse._SubParsersAction) -> None:
    play = subparsers.add_parser(
        "play",
        help="play a game in a window against agents and replayed humans",
        description="Guess by clicking a cell or typing a coordinate (Enter); give cues by typing (Enter); "
        "Escape clears the input and asks to confirm: a second Escape (or closing the window) abandons "
        "the game, which --log still records, marked as abandoned.",
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
    add_seed(play, default=0)
    add_device(play)
    add_allow_code(play)
    play.add_argument(
        "--cue-mode",
        choices=("text", "vocabulary"),
        default="text",
        help="text: free cues checked by the rules (default); vocabulary: cues from the 100-word list",
    )
    play.add_argument(
        "--delay", type=non_negative_float, default=0.6, help="seconds to pause after each agent move"
    )
    play.add_argument(
        "--no-pause",
        action="store_true",
        help="move on after each round's reveal by itself (default: wait for a key press or a click)",
    )
    play.add_argument(
        "--log",
        default=None,
        help="append the game's records to this JSON Lines log, as the log's next free game number",
    )
    play.set_defaults(func=_play)


def _play(args: argparse.Namespace) -> int:
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if args.seat != "human" and not args.seat.strip().isdigit():
        raise ValueError(f"--seat {args.seat!r}: expected a seat number (0, 1, ...) or 'human'")
    if not specs:
        raise ValueError(
            f"--agents {args.agents!r}: expected comma-separated agent specs, e.g. random,random"
        )
    players = len(specs) + (0 if "human" in specs else 1)
    if args.seat != "human" and int(args.seat) >= players:
        raise ValueError(f"--seat {args.seat!r}: expected a seat 0..{players - 1} ({players} players)")
    kinds = available_agents()
    for spec in specs:  # an unknown kind fails before a window opens, not after
        if spec == "human":
            continue
        kind, _arg = split_spec(spec)
        if kind not in kinds:
            raise ValueError(f"--agents {spec!r}: expected an agent kind among {', '.join(kinds)}")
    if args.log:
        check_appendable(jsonl_target(args.log, "--log"))  # a bad log fails before a window opens
    problem = display_problem()
    if problem:
        raise ValueError(f"no display to play in a window ({problem})")
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
            pause_at_reveal=not args.no_pause,
        )
    except HumanQuit:
        print(f"game abandoned{f' (logged to {args.log}, marked abandoned)' if args.log else ''}")
        return 0
    for player, score in sorted(result.scores.items()):
        print(f"{player}: {score}")
    return 0
