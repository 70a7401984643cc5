"""``huesenv board``: export the board table and draw it on the CIE 1931 diagram."""

from __future__ import annotations

import argparse
from pathlib import Path

from huesenv.board import load_board
from huesenv.plots import plot_board_cie


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "board",
        help="export the 480-cell board table or plot it in CIE xy",
        description="Export the board (coord,row,col,R,G,B,X,Y,Z,x,y,L,a,b,category) "
        "as .csv/.json/.parquet, and/or plot it (the paper's Figure 1).",
    )
    p.add_argument(
        "-o",
        "--out",
        "--export",
        dest="export",
        metavar="PATH",
        help="write the table; format from the extension (.csv, .json, .parquet)",
    )
    p.add_argument(
        "--plot",
        metavar="PATH.png",
        help="draw the board grid and the cells on the CIE 1931 chromaticity diagram",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.export and not args.plot:
        raise ValueError("nothing to do: give --export PATH and/or --plot PATH.png")
    if args.export:
        _check_export(Path(args.export))
    if args.plot:
        plot = Path(args.plot)
        if plot.is_dir() or plot.suffix.lower() not in (".png", ".pdf", ".svg"):
            raise ValueError(f"--plot {args.plot}: expected a .png, .pdf or .svg file path")
    board = load_board()
    if args.export:
        export_board(board, Path(args.export))
        print(f"wrote {args.export}")
    if args.plot:
        plot_board_cie(board, Path(args.plot))
        print(f"wrote {args.plot}")
    return 0


def _check_export(path: Path) -> None:
    if path.is_dir():
        raise ValueError(f"--export {path}: is a directory, expected a file path")
    if path.suffix.lower() not in (".csv", ".json", ".parquet"):
        raise ValueError(
            f"--export {path}: unknown extension {path.suffix.lower()!r}; expected .csv, .json or .parquet"
        )


def export_board(board, path: Path) -> None:
    _check_export(path)
    table = board.to_frame()
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".csv":
        table.to_csv(path, index=False)
    elif suffix == ".json":
        table.to_json(path, orient="records", indent=1)
    elif suffix == ".parquet":
        table.to_parquet(path, index=False)
    else:
        raise ValueError(f"--export {path}: unknown extension {suffix!r}; expected .csv, .json or .parquet")
