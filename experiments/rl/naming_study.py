"""Self-play as a study of efficient naming: seeds × vocabulary sizes × reward, measured as the field measures.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.naming_study``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.board import load_board
from huesenv.experiments.naming import kmeans_system
from huesenv.experiments.rl.harness import read_json
from huesenv.experiments.rl.lexicon import normalised_mutual_information
from huesenv.experiments.rl.selfplay import REWARDS, SelfPlay, SelfPlayConfig, _write_map
from huesenv.metrics import naming as ib
from huesenv.plots import pyplot, save_figure
from huesenv.reports import read_safe_csv


@dataclass
class StudyConfig:
    seeds: int = 5
    sizes: tuple[int, ...] = (4, 16, 100)
    rewards: tuple[str, ...] = ("frame", "perceptual")
    updates: int = 300
    num_games: int = 256
    hidden: int = 64
    learning_rate: float = 1e-2
    snapshot_every: int = 25
    warmup_updates: int = 0
    sigma2: float = ib.DEFAULT_SIGMA2
    torch_threads: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.seeds < 1 or self.updates < 1 or self.snapshot_every < 1:
            raise ValueError("seeds, updates and snapshot_every: expected positive integers")
        bad = [r for r in self.rewards if r not in REWARDS]
        if bad:
            raise ValueError(f"rewards: expected some of {REWARDS}, got {bad}")
        if any(int(s) < 1 for s in self.sizes):
            raise ValueError(f"sizes: expected positive integers, got {self.sizes}")


def measure(speaker: np.ndarray, model: ib.IBModel, front: ib.Frontier) -> dict[str, float]:
    q, _ = ib.encoder_from_labels(speaker)
    eff = ib.efficiency(model, q, front)
    return {
        "words_used": eff.words,
        "complexity_bits": eff.complexity_bits,
        "accuracy_bits": eff.accuracy_bits,
        "efficiency_loss": eff.efficiency_loss,
        "gnid": eff.gnid,
        "nmi_macro_colour": normalised_mutual_information(speaker, load_board().categories),
    }


def run_one(
    cfg: StudyConfig, reward: str, size: int, seed: int, model: ib.IBModel, front: ib.Frontier, out: Path
) -> list[dict[str, Any]]:

    sp = SelfPlayConfig(
        num_games=cfg.num_games,
        hidden=cfg.hidden,
        learning_rate=cfg.learning_rate,
        seed=seed,
        device="cpu",
        vocab_size=size,
        reward=reward,
        perceptual_sigma2=cfg.sigma2,
        total_games=cfg.num_games * cfg.updates,
        warmup_updates=cfg.warmup_updates,
        checkpoint_every=max(1, cfg.updates),
        **cfg.extra,
    )
    game = SelfPlay(sp, "cpu")
    generator = game.begin_segment(0)
    rows: list[dict[str, Any]] = []
    last: dict[str, float] = {}
    t0 = time.perf_counter()
    for update in range(cfg.updates + 1):
        if update % cfg.snapshot_every == 0 or update == cfg.updates:
            speaker, _ = game.lexicon()
            rows.append(
                {
                    "reward": reward,
                    "vocab_size": size,
                    "seed": seed,
                    "update": update,
                    "games": update * cfg.num_games,
                    "greedy_points": game.greedy_points(),
                    "game_points": last.get(
                        "game_points", float("nan")
                    ),  # board points per cone, last update
                    "wall_s": time.perf_counter() - t0,
                    **measure(speaker, model, front),
                }
            )
        if update < cfg.updates:
            if update == cfg.warmup_updates and update:
                generator = game.begin_segment(
                    update
                )  # the game starts after the warm-up, as in train_selfplay
            last = game.train_step(update, generator)
    speaker, _ = game.lexicon()
    (out / "lexicons").mkdir(parents=True, exist_ok=True)
    _write_map(out / "lexicons" / f"{reward}-v{size}-s{seed}.csv", speaker, game.vocabulary)
    return rows


def interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean and a Student-t interval across seeds (scipy.stats); a single seed has no interval (nan)."""
    from scipy import stats

    v = np.asarray(values, dtype=np.float64)
    mean = float(v.mean())
    if len(v) < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + level / 2, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))
    return mean, mean - half, mean + half


def summarise(final: Any) -> Any:
    import pandas as pd

    rows = []
    for (reward, size), part in final.groupby(["reward", "vocab_size"]):
        row: dict[str, Any] = {"reward": reward, "vocab_size": size, "seeds": len(part)}
        for metric in (
            "words_used",
            "complexity_bits",
            "accuracy_bits",
            "efficiency_loss",
            "gnid",
            "nmi_macro_colour",
        ):
            mean, lo, hi = interval(part[metric])
            row.update({metric: mean, f"{metric}_lo": lo, f"{metric}_hi": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def run_study(
    cfg: StudyConfig, out: str | Path, *, betas: np.ndarray | None = None, progress: bool = True
) -> Any:
    """Run every (reward, size, seed); write the files of the module docstring; return the summary table."""
    import pandas as pd
    import torch

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(int(cfg.torch_threads))
    model = ib.ib_model(sigma2=cfg.sigma2)
    front = ib.frontier(model, betas)
    t0, c0 = time.perf_counter(), time.process_time()
    rows: list[dict[str, Any]] = []
    for reward in cfg.rewards:
        for size in cfg.sizes:
            for seed in range(cfg.seeds):
                run_rows = run_one(cfg, reward, int(size), seed, model, front, out)
                rows += run_rows
                pd.DataFrame(rows).assign(human_reference=NO_HUMAN_REFERENCE).to_csv(
                    out / "curves.csv", index=False
                )  # partial results survive a kill
                if progress:
                    last = run_rows[-1]
                    print(
                        f"{reward:10s} V={size:<3d} seed={seed} words={last['words_used']:3d} "
                        f"eps={last['efficiency_loss']:.3f} gnid={last['gnid']:.3f} "
                        f"nmi={last['nmi_macro_colour']:.3f} ({last['wall_s']:.0f}s)",
                        flush=True,
                    )
    curves = pd.DataFrame(rows)
    finish(curves, cfg.sizes, out, model, front)
    write_study_json(out, cfg, time.perf_counter() - t0, time.process_time() - c0)
    return summarise(curves.sort_values("update").groupby(["reward", "vocab_size", "seed"]).tail(1))


NO_HUMAN_REFERENCE = (
    "none: the IB measures and the NMI use the board (CIELAB) and its macro-colour map, not people's answers"
)


def finish(curves: Any, sizes: Sequence[int], out: Path, model: ib.IBModel, front: ib.Frontier) -> None:
    """``final.csv``, ``summary.csv``, ``kmeans.csv`` and ``curves.png`` from the curves (every table names its
    human reference: none)."""
    import pandas as pd

    def save(frame: Any, name: str) -> None:
        frame.assign(human_reference=NO_HUMAN_REFERENCE).to_csv(out / name, index=False)

    save(curves, "curves.csv")
    final = curves.sort_values("update").groupby(["reward", "vocab_size", "seed"]).tail(1)
    save(final, "final.csv")
    save(summarise(final), "summary.csv")
    kmeans = []
    for size in sizes:
        system = kmeans_system(int(size))
        speaker = np.argmax(system.encoder, axis=1)
        kmeans.append({"vocab_size": size, **measure(speaker, model, front)})
    save(pd.DataFrame(kmeans), "kmeans.csv")
    plot_curves(curves, out / "curves.png")


def write_study_json(out: Path, cfg: StudyConfig, wall_s: float, cpu_s: float) -> None:
    data = {
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in vars(cfg).items()},
        "env": "full vectorised game (huesenv.experiments.rl.selfplay_game)",
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "human_reference": NO_HUMAN_REFERENCE,
    }
    (out / "study.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def merge(parts: Sequence[str | Path], out: str | Path, sigma2: float = ib.DEFAULT_SIGMA2) -> Any:
    """One study from several folders (e.g. the two rewards run in parallel processes): their ``curves.csv``
    merged, their ``lexicons/`` copied, and a ``study.json`` naming the parts; every (reward, size, seed) run
    must come from one folder only (``ValueError`` otherwise: overlapping folders would count a run twice)."""
    import shutil

    import pandas as pd

    out = Path(out)
    frames = []
    seen: dict[tuple[str, int, int], Path] = {}
    for part in parts:
        path = Path(part) / "curves.csv"
        if not path.is_file():
            raise ValueError(f"{path}: no such file (expected a study folder)")
        frame = read_safe_csv(path).drop(columns=["human_reference"], errors="ignore")
        for col in ("reward", "vocab_size", "seed"):
            if col not in frame.columns:
                raise ValueError(f"{path}: column {col!r}: missing (expected a study's curves.csv)")
        for reward, size, seed in (
            frame[["reward", "vocab_size", "seed"]].drop_duplicates().itertuples(index=False)
        ):
            key = (str(reward), int(size), int(seed))
            if key in seen:
                raise ValueError(
                    f"{path}: run reward={key[0]} vocab_size={key[1]} seed={key[2]}: also in {seen[key]} "
                    "(expected each run in one folder only)"
                )
            seen[key] = path
        frames.append(frame)
    curves = pd.concat(frames, ignore_index=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "lexicons").mkdir(exist_ok=True)
    for part in parts:
        for lexicon in sorted((Path(part) / "lexicons").glob("*.csv")):
            target = out / "lexicons" / lexicon.name
            if not (target.exists() and target.samefile(lexicon)):
                shutil.copyfile(lexicon, target)
    model = ib.ib_model(sigma2=sigma2)
    sizes = sorted({int(v) for v in curves["vocab_size"]})
    finish(curves, sizes, out, model, ib.frontier(model))
    studies = []
    for part in parts:
        meta = Path(part) / "study.json"
        studies.append(
            read_json(meta, "each part must be a finished naming-study folder") if meta.is_file() else None
        )
    data = {
        "merged_from": [str(Path(p)) for p in parts],
        "parts": studies,
        "sigma2": sigma2,
        "env": "full vectorised game (huesenv.experiments.rl.selfplay_game)",
        "wall_s": sum(float(s.get("wall_s", 0.0)) for s in studies if s),
        "cpu_s": sum(float(s.get("cpu_s", 0.0)) for s in studies if s),
        "human_reference": NO_HUMAN_REFERENCE,
    }
    (out / "study.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return summarise(curves.sort_values("update").groupby(["reward", "vocab_size", "seed"]).tail(1))


def plot_curves(curves: Any, path: Path) -> Path:
    """ε and NMI over training: mean across seeds with its 95 % Student-t band, one line per reward × size."""

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for (reward, size), part in curves.groupby(["reward", "vocab_size"]):
        for ax, metric in zip(axes, ("efficiency_loss", "nmi_macro_colour")):
            stats = [(games, *interval(g[metric])) for games, g in part.groupby("games")]
            x, m, lo, hi = (np.asarray(v, dtype=float) for v in zip(*stats))
            (line,) = ax.plot(x, m, "-" if reward == "frame" else "--", label=f"{reward} V={size}")
            ax.fill_between(
                x,
                np.where(np.isnan(lo), m, lo),
                np.where(np.isnan(hi), m, hi),
                alpha=0.15,
                color=line.get_color(),
            )
    axes[0].set_ylabel("efficiency loss ε")
    axes[1].set_ylabel("NMI with the macro-colours")
    for ax in axes:
        ax.set_xlabel("rounds played (update × num_games)")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7)
    fig.suptitle("self-play on the full game: mean across seeds, 95 % Student-t band", fontsize=9)
    return save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m huesenv.experiments.rl.naming_study")
    parser.add_argument("-o", "--out", required=True)
    parser.add_argument("--merge", nargs="+", metavar="DIR", help="merge these study folders into --out")
    parser.add_argument("--warmup-updates", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 100])
    parser.add_argument("--rewards", nargs="+", default=["frame", "perceptual"], choices=REWARDS)
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--num-games", type=int, default=256)
    parser.add_argument("--snapshot-every", type=int, default=25)
    parser.add_argument("--sigma2", type=float, default=ib.DEFAULT_SIGMA2)
    args = parser.parse_args(argv)
    if args.merge:
        try:
            summary = merge(args.merge, args.out, args.sigma2)
        except ValueError as err:  # bad input: one line, exit 2
            print(f"{parser.prog}: error: {err}", file=sys.stderr)
            return 2
        print(summary.round(3).to_string(index=False))
        return 0
    cfg = StudyConfig(
        seeds=args.seeds,
        sizes=tuple(args.sizes),
        rewards=tuple(args.rewards),
        updates=args.updates,
        num_games=args.num_games,
        snapshot_every=args.snapshot_every,
        sigma2=args.sigma2,
        warmup_updates=args.warmup_updates,
    )
    summary = run_study(cfg, args.out)
    print(summary.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
