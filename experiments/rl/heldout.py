"""Held-out evaluation of a learned guesser: k folds of held-out words, scored on the evaluation part only.

``huesenv train heldout --folds 5`` (or ``python -P -m huesenv.experiments.rl.heldout``):

1. one seeded participant split of the human reference (:mod:`huesenv.humans.splits`;
   for the reconstructed cohort an *answer* split, see there), and the words cut
   into ``folds`` folds stratified by the 7 categories;
2. per fold, the fast trainer (:mod:`~huesenv.experiments.rl.ppo_fast`) trains
   an embedding-cue guesser on the training part (training participants ×
   training words; it never sees a held-out word nor an evaluation answer);
3. per fold, on the held-out words, against the evaluation part (evaluation
   participants' answers to those words), with the paper's word-level metrics
   (:func:`huesenv.metrics.word_level`; Hotelling on each agent's top-k
   *ranking*, for the learned guesser its k most probable cells):

   * the learned guesser;
   * the lookup / nearest-word baseline (:class:`~huesenv.agents.lookup.LookupAgent`
     on the training part: a held-out word borrows the ranking of the nearest
     training word by cue embedding);
   * text-embedding zero-shot (no human data) and random;
   * people: the evaluation part's own leave-one-out Human Fail Rate.

Every word is held out exactly once, so pooling the folds scores each of the
100 words once.  Rates are per word (people: per answer), with 95 % Wilson
intervals (``scipy.stats.binomtest``), per category and pooled.  Files in
``--out``: ``split.json`` (the participant split), ``fold-<i>/`` (the trainer's
run folder), ``words.csv`` (every agent × word), ``heldout.json``,
``heldout.md``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from huesenv import metrics
from huesenv.agents import evaluate_words, make_agent
from huesenv.agents.lookup import LookupAgent
from huesenv.agents.text_encoders import make_text_encoder
from huesenv.experiments.provenance import HumanReference
from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast
from huesenv.humans import HumanResponses, load_humans
from huesenv.humans.splits import DataSplit
from huesenv.reports import csv_safe
from huesenv.vocabulary import evaluation_inputs

LEARNED = "learned"
ROWS = (LEARNED, "lookup", "text-embedding", "random", "people")
ROW_LABELS = {
    LEARNED: "learned guesser (embedding cue)",
    "lookup": "lookup / nearest training word",
    "text-embedding": "text-embedding zero-shot",
    "random": "random",
    "people": "people (leave-one-out, evaluation part)",
}


def split_participants(humans: HumanResponses, seed: int = 0) -> tuple[HumanResponses, HumanResponses]:
    """Two cohorts of (as near as possible) half the participants each, drawn with ``seed`` (training, evaluation)."""
    split = DataSplit.of(humans, seed=seed)
    return split.train(humans), split.evaluation(humans)


def wilson(k: float, n: float) -> tuple[float, float]:
    """95 % Wilson interval of ``k`` successes in ``n`` (NaNs for ``n == 0``)."""
    from scipy.stats import binomtest

    if n <= 0:
        return float("nan"), float("nan")
    ci = binomtest(int(round(k)), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def fold_config(base: FastPPOConfig, fold: int, folds: int) -> FastPPOConfig:
    # validated again: a fold outside 0..folds-1 is an error, as in any trainer config
    return type(base).from_dict(
        {**base.to_dict(), "word_folds": folds, "word_fold": fold}, source="held-out fold"
    )


def score_fold(
    split: DataSplit, humans: HumanResponses, policy: Path | None, encoder: Any, seed: int
) -> pd.DataFrame:
    """The word table (one row per agent × held-out word) of one fold, against its evaluation part."""
    train_h, eval_h = split.train(humans), split.evaluation(humans)
    held = set(split.evaluation_words)
    words = [w for w in evaluation_inputs() if w.text in held]
    agents: dict[str, Any] = {
        "lookup": LookupAgent(train_h, text_encoder=encoder, label=f"split-{split.fingerprint}"),
        "text-embedding": make_agent("text-embedding"),
        "random": make_agent("random"),
    }
    if policy is not None:
        agents[LEARNED] = make_agent(f"policy:{policy}")
    frames = []
    for name, agent in agents.items():
        records = evaluate_words(agent, inputs=words, top_k=5, seed=seed)
        df = metrics.word_level(records, eval_h)
        df["row"] = name
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out["fold"] = split.fold
    return out


def summarise(words: pd.DataFrame) -> pd.DataFrame:
    """Per row (agent or people) × category (and ``pooled``): fail rates with 95 % Wilson intervals."""
    rows = []
    cats = sorted(words["category"].unique())
    for row in ROWS:
        for cat in [*cats, "pooled"]:
            if row == "people":
                part = words.drop_duplicates(["fold", "word"])
            else:
                part = words[words["row"] == row]
            if cat != "pooled":
                part = part[part["category"] == cat]
            if not len(part):
                continue
            out: dict[str, Any] = {"row": row, "category": cat}
            if row == "people":
                n = part["n_human"].astype(float)
                fail = part["human_fail_rate"].astype(float)
                use = fail.notna()
                k, total = float((fail[use] * n[use]).sum()), float(n[use].sum())
                lo, hi = wilson(k, total)
                out.update(n=int(total), unit="answers", mahalanobis=k / total if total else np.nan)
                out.update(mahalanobis_lo=lo, mahalanobis_hi=hi)
                out.update(hotelling=np.nan, hotelling_lo=np.nan, hotelling_hi=np.nan)
            else:
                out.update(n=int(len(part)), unit="words")
                for col, name in (("mahalanobis_outlier", "mahalanobis"), ("hotelling_fail", "hotelling")):
                    flags = part[col].astype("Float64").dropna().astype(float)
                    lo, hi = wilson(float(flags.sum()), float(len(flags)))
                    out.update(
                        {
                            name: float(flags.mean()) if len(flags) else np.nan,
                            f"{name}_lo": lo,
                            f"{name}_hi": hi,
                        }
                    )
            rows.append(out)
    return pd.DataFrame(rows)


def _fmt(rate: float, lo: float, hi: float) -> str:
    if not np.isfinite(rate):
        return "—"
    return f"{rate:.2f} [{lo:.2f}, {hi:.2f}]"


def verdict(table: pd.DataFrame) -> str:
    """One plain sentence: which agent has the lowest pooled rates (people are the reference, not a contestant)."""
    pooled = table[(table["category"] == "pooled") & (table["row"] != "people")].set_index("row")
    parts = []
    for metric in ("mahalanobis", "hotelling"):
        best = pooled[metric].idxmin()
        ties = [r for r in pooled.index if pooled.loc[r, metric] == pooled.loc[best, metric]]
        parts.append(
            f"{metric.capitalize()} — lowest pooled fail rate: {', '.join(ROW_LABELS[r] for r in ties)}"
        )
    learned, lookup = pooled.loc[LEARNED], pooled.loc["lookup"]
    for m in ("mahalanobis", "hotelling"):
        a, b = float(learned[m]), float(lookup[m])
        overlap = learned[f"{m}_lo"] <= lookup[f"{m}_hi"] and lookup[f"{m}_lo"] <= learned[f"{m}_hi"]
        who = "the learned guesser wins" if a < b else "the lookup table wins" if a > b else "a tie"
        parts.append(
            f"{m.capitalize()} learned {a:.2f} vs lookup {b:.2f}: {who}"
            + (" (95 % intervals overlap)" if overlap and a != b else "")
        )
    return "; ".join(parts) + "."


def markdown(result: dict[str, Any], table: pd.DataFrame) -> str:
    lines = [
        "# Held-out words: learned guesser vs baselines",
        "",
        f"Human reference: {result['reference']}.",
        f"Split: {result['split']}.",
        f"Folds: {result['folds']} (words stratified by category; each word held out once). "
        f"Training per fold: {result['train_steps_per_fold']:,} steps of the fast trainer, cue encoding "
        f"{result['cue_encoding']} ({result['text_encoder']}).",
        "Scored on the held-out words against the evaluation part only; Mahalanobis on the top-1 cell, "
        "Hotelling T² on the top-5 ranking (the learned guesser's 5 most probable cells); "
        "rates with 95 % Wilson intervals (agents: per word; people: per answer, leave-one-out).",
        "",
        "| | category | n | Mahalanobis fail | Hotelling top-5 fail |",
        "|---|---|---|---|---|",
    ]
    for r in table.itertuples(index=False):
        lines.append(
            f"| {ROW_LABELS[r.row]} | {r.category} | {r.n} {r.unit} | {_fmt(r.mahalanobis, r.mahalanobis_lo, r.mahalanobis_hi)} "
            f"| {_fmt(r.hotelling, r.hotelling_lo, r.hotelling_hi)} |"
        )
    lines += ["", f"**Verdict.** {result['verdict']}", ""]
    return "\n".join(lines)


def run(
    out: Path,
    *,
    folds: int = 5,
    seed: int = 0,
    steps: int = 1_000_000,
    num_envs: int = 1024,
    text_encoder: str = "minilm",
    humans_path: str | None = None,
    device: str = "auto",
    threads: int | None = None,
    progress: bool = True,
    train: bool = True,
) -> dict[str, Any]:
    """The whole held-out evaluation (see the module docstring); ``train=False`` scores the baselines only."""
    encoder = make_text_encoder(text_encoder)  # bad input fails before anything is written
    humans = load_humans(humans_path)
    base_split = DataSplit.of(humans, seed=seed)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    base_split.save(out / "split.json")
    base = FastPPOConfig(
        total_steps=int(steps),
        num_envs=int(num_envs),
        seed=seed,
        split_seed=seed,
        cue_encoding="embedding",
        text_encoder=text_encoder,
        device=device,
        torch_threads=threads,
    )
    frames, train_steps = [], 0
    for fold in range(folds):
        split = base_split.with_fold(fold, folds)
        policy = None
        if train:
            summary = train_fast(
                fold_config(base, fold, folds), out / f"fold-{fold}", humans=humans, progress=progress
            )
            train_steps = int(summary["steps"])
            policy = out / f"fold-{fold}" / "policy.pt"
        frames.append(score_fold(split, humans, policy, encoder, seed))
        if progress:
            print(
                f"fold {fold + 1}/{folds} scored ({len(split.evaluation_words)} held-out words)", flush=True
            )
    words = pd.concat(frames, ignore_index=True)
    csv_safe(words).to_csv(out / "words.csv", index=False)
    table = summarise(words)
    result: dict[str, Any] = {
        "reference": HumanReference.of(humans).label,
        "split": base_split.label.replace("; every word in both parts", "")
        + f"; words: {folds} folds stratified by category, each held out in turn",
        "split_fingerprint": base_split.fingerprint,
        "folds": folds,
        "seed": seed,
        "train_steps_per_fold": train_steps,
        "cue_encoding": "embedding",
        "text_encoder": text_encoder,
        "table": table.to_dict(orient="records"),
    }
    result["verdict"] = verdict(table) if train else "baselines only (no learned guesser trained)"
    (out / "heldout.json").write_text(json.dumps(result, indent=1, default=float) + "\n")
    (out / "heldout.md").write_text(markdown(result, table), encoding="utf-8")
    return result


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/heldout")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    res = run(Path(args.out), folds=args.folds, steps=args.steps, seed=args.seed)
    print((Path(args.out) / "heldout.md").read_text())
    print(res["verdict"])


if __name__ == "__main__":
    main()
