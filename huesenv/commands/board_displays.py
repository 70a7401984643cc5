"""``huesenv board displays [--measurements CSV] [--profiles NAME ...] -o DIR``: the main paper's Appendix B.

Do uncalibrated screens shift the board's colours like a change of light, which people adapt to?
For each display (bundled profiles by default, or colorimeter readings ``display,cell,x,y,Y`` with a
``white`` row per display) the sample colours are compared with the same colours as surfaces under
the illuminant matching the display's white, before and after von Kries adaptation to D65: the
paper's ANOVA of the shift lengths, a Hotelling T² of the shift vectors and a TOST equivalence test.
Every display's ΔE2000 and category retention over its cells come too.  Writes DIR/displays.json
(every figure), DIR/displays.png (the paper's Figure 13) and DIR/displays.md (the report section).
Definitions: :mod:`huesenv.displays.analysis`.  ``huesenv board-displays`` is the same command.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from huesenv.atomic import write_bytes_atomic, write_text_atomic
from huesenv.board import N_CELLS, Board, load_board
from huesenv.colourspace import xyz_to_srgb, xyz_to_xy
from huesenv.commands.common import add_out, existing_file, path_text, plain_text, positive_float, probability
from huesenv.displays import analysis
from huesenv.displays.facts import display_facts
from huesenv.displays.illuminant import RECOVERY
from huesenv.displays.measurements import read_measurements
from huesenv.displays.profiles import Profile, bundled_profiles, profile
from huesenv.displays.report import report_section
from huesenv.experiments import display_verdicts
from huesenv.humans import load_humans
from huesenv.plots import plot_display_robustness

TRANSFORMS = ("Von Kries", "Bradford", "CAT02", "CAT16", "Sharp", "Fairchild", "CMCCAT2000", "XYZ Scaling")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "board-displays",
        prog="huesenv board displays",
        help="alias of `huesenv board displays`: display robustness of the human reference (Appendix B)",
        description=plain_text(__doc__ or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--measurements", metavar="CSV", type=path_text, help="colorimeter readings display,cell,x,y,Y"
    )
    p.add_argument(
        "--profiles",
        nargs="+",
        metavar="NAME",
        help="bundled profiles to simulate (default: all 24 without --measurements; `--list-profiles`)",
    )
    p.add_argument(
        "--list-profiles", action="store_true", help="print the bundled profiles and their sources"
    )
    p.add_argument(
        "--sample",
        default="default",
        metavar="CELLS",
        help="'default' (2 cells per macro-colour), 'all' (480) or coordinates A1,B2,... "
        "(with --measurements: default = the measured cells)",
    )
    p.add_argument("--transform", default=analysis.TRANSFORM, choices=TRANSFORMS, help="von Kries cone space")
    p.add_argument("--recovery", default=RECOVERY, help=f"colour.XYZ_to_sd method (default {RECOVERY!r})")
    p.add_argument(
        "--margin", type=positive_float, help="TOST margin in xy (default: half the board's median cell step)"
    )
    p.add_argument("--alpha", type=probability, default=0.05, help="test level (default 0.05)")
    p.add_argument(
        "--participants", metavar="CSV", type=path_text, help="a participants export: screens counted"
    )
    p.add_argument(
        "--agent",
        metavar="SPEC",
        help="agent whose word-level fail rates are recomputed on each display's board (default: "
        "text-embedding when the embed extra is installed; 'none' skips)",
    )
    add_out(p, metavar="DIR", help="output folder (displays.json, displays.png, displays.md)")
    p.set_defaults(func=run)


def _displays(args: argparse.Namespace) -> list:
    chosen: list = []
    if args.measurements:
        chosen += read_measurements(existing_file(args.measurements, "--measurements"))
    if args.profiles or not args.measurements:
        names = args.profiles or list(bundled_profiles())
        chosen += [profile(n) for n in dict.fromkeys(names)]
    return chosen


def _sample(args: argparse.Namespace, displays: list) -> np.ndarray:
    if args.sample == "default" and args.measurements:
        return displays[0].cells  # the measured cells (every display measures the same ones)
    return analysis.parse_sample(args.sample, load_board())


def _agent_verdicts(spec: str | None, displays: list) -> dict:
    """The agent's fail rates per display board (profiles, and measurements covering all 480 cells)."""
    spec = display_verdicts.default_agent() if spec is None else spec
    if spec in (None, "none"):
        return {
            "skipped": "no agent: the embed extra is not installed (pass --agent SPEC)"
            if spec is None
            else "--agent none"
        }
    make = display_verdicts.board_factory(spec)
    if make is None:
        return {
            "agent": spec,
            "skipped": display_verdicts.NO_COLOURS,
        }
    board = load_board()
    boards = {
        d.name: Board.as_shown(board.rgb, d.show(board.rgb) if isinstance(d, Profile) else d.xyz, d.name)
        for d in displays
        if isinstance(d, Profile) or len(d.cells) == N_CELLS
    }
    return display_verdicts.display_verdicts(make, boards, load_humans())


def run(args: argparse.Namespace) -> int:
    if args.list_profiles:
        for p in bundled_profiles().values():
            print(f"{p.name:24s} {p.source}")
        return 0
    if not args.out:
        raise ValueError("--out DIR is required (or --list-profiles)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out}: is a file, expected a folder")
    start = time.process_time()
    displays = _displays(args)
    cells = _sample(args, displays)
    facts = display_facts(existing_file(args.participants, "--participants")) if args.participants else None
    result, conditions = analysis.run(
        displays,
        cells,
        transform=args.transform,
        recovery=args.recovery,
        margin=args.margin,
        alpha=args.alpha,
    )
    result["study_displays"] = facts
    result["agent_verdicts"] = _agent_verdicts(args.agent, displays)
    board = load_board()
    panels = {}
    for kind in ("display", "illuminant"):
        for when in ("unadapted", "adapted"):
            xyz = np.stack(
                [
                    c.xyz if when == "unadapted" else c.adapted(args.transform)
                    for c in conditions
                    if c.kind == kind
                ]
            )
            panels[f"{kind}s, {when}"] = (xyz_to_xy(xyz), xyz_to_srgb(xyz))
    with tempfile.TemporaryDirectory(prefix="huesenv-displays-") as tmp:
        figure = plot_display_robustness(
            board.xy[cells], board.rgb[cells] / 255.0, panels, Path(tmp) / "f.png"
        )
        png = figure.read_bytes()
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "displays.json", json.dumps(result, indent=1) + "\n")
    write_bytes_atomic(out / "displays.png", png)
    write_text_atomic(out / "displays.md", report_section(result, "displays.png"))
    for when, test in result["tests"].items():
        print(
            f"{when}: ANOVA F={test['anova']['F']:.3f} p={test['anova']['p']:.4g}; Hotelling T²={test['hotelling']['T2']:.3f} "
            f"p={test['hotelling']['p']:.4g}; TOST p={test['tost']['p']:.4g} "
            f"({'equivalent' if test['tost']['equivalent'] else 'not shown equivalent'}) "
            f"[paper: p={result['paper_p_values']['text'][when]}]"
        )
    print(f"{len(displays)} displays, {len(cells)} sample colours, CPU {time.process_time() - start:.1f} s")
    print(f"wrote {out / 'displays.json'}, {out / 'displays.png'}, {out / 'displays.md'}")
    return 0
