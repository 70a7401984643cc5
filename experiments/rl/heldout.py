"""Held-out evaluation of a learned guesser: k folds of held-out words, scored on the evaluation part only.

``huesenv train heldout --folds 5`` (its one entry point, so every run gets the same defaults):

1. one seeded participant split of the human reference (:mod:`huesenv.humans.splits`;
   for the reconstructed cohort an *answer* split, see there), and the words cut
   into ``folds`` folds stratified by the 7 categories;
2. per fold, the fast trainer (:mod:`~huesenv.experiments.rl.ppo_fast`) trains
   an embedding-cue guesser on the training part (training participants ×
   training words; it never sees a held-out word nor an evaluation answer);
3. per fold, on the held-out words, against the evaluation part (evaluation
   participants' answers to those words), with the paper's word-level metrics
   (:func:`huesenv.metrics.word_level`; Hotelling on each agent's top-k
   *ranking*, for the learned guesser its k most probable cells; beside the
   paper's xy Mahalanobis its lightness-aware CIELAB variant):

   * the learned guesser, and any rows a ``fold_agents`` hook builds per fold;
   * the lookup / nearest-word baseline (:class:`~huesenv.agents.lookup.LookupAgent`
     on the training part: a held-out word borrows the ranking of the nearest
     training word by cue embedding);
   * text-embedding zero-shot (no human data) and random;
   * every answer table passed with ``--answers`` (``Palabra, Answer1..AnswerN``,
     e.g. published VLM answers; read by :mod:`huesenv.logs.answers`), on the
     same held-out words against the same evaluation part;
   * the distributional guesser (:mod:`~huesenv.experiments.rl.distributional`:
     naming corpus, then the fold's training part) under the ``exact`` and
     ``strict`` exclusion tiers, and its corpus-only model (no Hues and Cues data);
   * the corpus-mixture head (:mod:`~huesenv.experiments.rl.corpus_mixture`: a blend of the
     cue's nearest corpus names' colours; no Hues and Cues data, no cue word's names);
   * people: the evaluation part's own leave-one-out Human Fail Rate.

**What it measures.**  34 of the 100 cue words are names in the XKCD dictionary
text-embedding reads (:func:`~huesenv.agents.text_embedding.dictionary_words`):
on those it looks a colour up rather than reading a word.  So every row is
scored on all words, on the ``xkcd-names`` and on the ``other`` words, and each
agent is compared, word by word, with text-embedding and with the best answer
table (lowest fail rate on that subset and metric) by an exact McNemar test
(``scipy.stats.binomtest`` on the discordant words).

Every word is held out exactly once, so pooling the folds scores each of the
100 words once.  Rates are per word (people: per answer), with 95 % Wilson
intervals (``scipy.stats.binomtest``), per category and pooled.  Files in
``--out``: ``split.json`` (the participant split), ``fold-<i>/`` (the trainer's
run folder), ``words.csv`` (every agent × word, with its subset), ``heldout.json``,
``heldout.md``; each names its human reference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from huesenv import metrics
from huesenv.agents import evaluate_words, make_agent
from huesenv.agents.lookup import LookupAgent
from huesenv.agents.text_embedding import dictionary_words
from huesenv.agents.text_encoders import make_text_encoder
from huesenv.experiments.provenance import HumanReference
from huesenv.experiments.rl.corpus_mixture import CorpusMixtureAgent
from huesenv.experiments.rl.distributional import HELDOUT_ROWS, cached_embedder, heldout_policies
from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast
from huesenv.humans import HumanResponses, load_humans
from huesenv.humans.splits import DataSplit
from huesenv.logs.answers import file_sha256, iter_answer_records
from huesenv.logs.schema import LogError, LogRecord
from huesenv.naming_corpus import NamingCorpus, load_naming_corpus
from huesenv.reports import csv_safe
from huesenv.vocabulary import evaluation_inputs

LEARNED = "learned"
MIXTURE = "corpus-mixture"
ROWS = (LEARNED, *HELDOUT_ROWS, MIXTURE, "lookup", "text-embedding", "random", "people")
ROW_LABELS = {
    LEARNED: "learned guesser (embedding cue)",
    "lookup": "lookup / nearest training word",
    "text-embedding": "text-embedding zero-shot (a dictionary lookup on the 34 XKCD-name words)",
    "random": "random",
    "people": "people (leave-one-out, evaluation part)",
    MIXTURE: "corpus-mixture head (50 nearest names of the corpus minus every cue word's, exact tier; "
    "no Hues and Cues data)",
    **{row: label for row, (label, _) in HELDOUT_ROWS.items()},
}
ANSWERS = "answers:"  # row prefix of an --answers table
MAX_ANSWER_BYTES = 16 << 20  # a 116-word × 100-answer table is ~50 kB
XKCD, OTHER, ALL = "xkcd-names", "other", "all"
SUBSETS = (ALL, XKCD, OTHER)
METRICS = {  # summary name -> word-table flag
    "mahalanobis": "mahalanobis_outlier",
    "mahalanobis_lab": "mahalanobis_lab_outlier",
    "hotelling": "hotelling_fail",
}
# a hook adding rows: per fold, (split, humans) -> {row name: agent}, trained on split.train(humans) only
FoldAgents = Callable[[DataSplit, HumanResponses], Mapping[str, Any]]


def row_label(row: str) -> str:
    if row.startswith(ANSWERS):
        return f"answer table {row.removeprefix(ANSWERS)}"
    return ROW_LABELS.get(row, row)


def read_answers(paths: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Each ``--answers`` table, read and checked whole: ``{row: {"path", "sha256", "records"}}``."""
    tables: dict[str, dict[str, Any]] = {}
    for path in map(Path, paths):
        if path.suffix.lower() != ".csv":
            raise ValueError(f"--answers {path}: expected a .csv answer table (Palabra,Answer1..AnswerN)")
        if path.is_file() and path.stat().st_size > MAX_ANSWER_BYTES:
            raise ValueError(
                f"--answers {path}: {path.stat().st_size:,} bytes, expected at most {MAX_ANSWER_BYTES:,} bytes"
            )
        row = ANSWERS + re.sub(r"[^A-Za-z0-9._-]", "_", path.stem)  # a file name never reaches a table raw
        if row in tables:
            raise ValueError(f"--answers {path}: a second table named {row.removeprefix(ANSWERS)!r}")
        records: list[LogRecord] = []
        for record in iter_answer_records(path, row):
            if any(r.word == record.word for r in records):
                line = record.extra.get("source_line")
                raise LogError(f"{path}, line {line}", "Palabra", f"{record.word} given twice")
            records.append(record)
        tables[row] = {"path": str(path), "sha256": file_sha256(path), "records": records}
    return tables


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


def mcnemar(a: pd.Series, b: pd.Series) -> tuple[int, int, int, float]:
    """Exact McNemar on paired fail flags (aligned by index): pairs, a-only fails, b-only fails, two-sided p."""
    from scipy.stats import binomtest

    both = pd.concat([a, b], axis=1, join="inner").dropna()
    x, y = both.iloc[:, 0].astype(bool), both.iloc[:, 1].astype(bool)
    a_only, b_only = int((x & ~y).sum()), int((~x & y).sum())
    p = binomtest(a_only, a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
    return len(both), a_only, b_only, float(p)


def _policy_rows(
    paths: Mapping[str, Path], more: FoldAgents | None, fixed: Mapping[str, Any] | None = None
) -> FoldAgents:
    """A fold's checkpoints as rows (``policy:PATH``), the agents every fold shares, and the caller's hook's rows."""

    def agents(split: DataSplit, humans: HumanResponses) -> dict[str, Any]:
        own = {row: make_agent(f"policy:{path}") for row, path in paths.items()}
        return own | dict(fixed or {}) | dict(more(split, humans) if more else {})

    return agents


def mixture_agent(naming: NamingCorpus, words: Sequence[str], text_encoder: str) -> CorpusMixtureAgent:
    """The corpus-mixture row: ``naming`` minus every entry of ``words`` (exact tier); one agent serves every fold."""
    return CorpusMixtureAgent(naming.excluding(words, "exact"), cached_embedder(text_encoder))


def fold_config(base: FastPPOConfig, fold: int, folds: int) -> FastPPOConfig:
    # validated again: a fold outside 0..folds-1 is an error, as in any trainer config
    return type(base).from_dict(
        {**base.to_dict(), "word_folds": folds, "word_fold": fold}, source="held-out fold"
    )


def score_fold(
    split: DataSplit,
    humans: HumanResponses,
    policy: Path | None,
    encoder: Any,
    seed: int,
    tables: Mapping[str, Mapping[str, Any]] | None = None,
    fold_agents: FoldAgents | None = None,
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
    if fold_agents is not None:
        agents.update(fold_agents(split, humans))
    runs = {name: evaluate_words(agent, inputs=words, top_k=5, seed=seed) for name, agent in agents.items()}
    for name, table in (tables or {}).items():
        runs[name] = [r for r in table["records"] if r.word in held]
    frames = []
    for name, records in runs.items():
        df = metrics.word_level(records, eval_h)
        df["row"] = name
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out["fold"] = split.fold
    return out


def with_subsets(words: pd.DataFrame) -> pd.DataFrame:
    """``subset``: ``xkcd-names`` for the words text-embedding looks up, ``other`` for the rest."""
    looked_up = set(dictionary_words(words["word"].unique()))
    return words.assign(subset=np.where(words["word"].isin(looked_up), XKCD, OTHER))


def _rows(words: pd.DataFrame) -> list[str]:
    present = list(dict.fromkeys(words["row"]))
    return [r for r in ROWS if r in present or r == "people"] + [r for r in present if r not in ROWS]


def _part(words: pd.DataFrame, row: str, subset: str, cat: str) -> pd.DataFrame:
    part = words.drop_duplicates(["fold", "word"]) if row == "people" else words[words["row"] == row]
    if subset != ALL:
        part = part[part["subset"] == subset]
    return part if cat == "pooled" else part[part["category"] == cat]


def _flags(part: pd.DataFrame, col: str) -> pd.Series:
    if col not in part:
        return pd.Series(dtype=float)
    return part[col].astype("Float64").dropna().astype(float)


def summarise(words: pd.DataFrame) -> pd.DataFrame:
    """Per row × subset × category (and ``pooled``; subsets pooled only): fail rates with 95 % Wilson intervals."""
    words = words if "subset" in words else with_subsets(words)
    cats = sorted(words["category"].unique())
    rows = []
    for row in _rows(words):
        for subset, cat in [(ALL, c) for c in [*cats, "pooled"]] + [(XKCD, "pooled"), (OTHER, "pooled")]:
            part = _part(words, row, subset, cat)
            if not len(part):
                continue
            out: dict[str, Any] = {"row": row, "subset": subset, "category": cat}
            if row == "people":
                n = part["n_human"].astype(float)
                fail = part["human_fail_rate"].astype(float)
                use = fail.notna()
                k, total = float((fail[use] * n[use]).sum()), float(n[use].sum())
                lo, hi = wilson(k, total)
                out.update(n=int(total), unit="answers", mahalanobis=k / total if total else np.nan)
                out.update(mahalanobis_lo=lo, mahalanobis_hi=hi)
                for name in ("mahalanobis_lab", "hotelling"):
                    out.update({name: np.nan, f"{name}_lo": np.nan, f"{name}_hi": np.nan})
            else:
                out.update(n=int(len(part)), unit="words")
                for name, col in METRICS.items():
                    flags = _flags(part, col)
                    lo, hi = wilson(float(flags.sum()), float(len(flags)))
                    rate = float(flags.mean()) if len(flags) else np.nan
                    out.update({name: rate, f"{name}_lo": lo, f"{name}_hi": hi})
            rows.append(out)
    return pd.DataFrame(rows)


def comparisons(words: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Exact McNemar of every agent row against text-embedding and against the best answer table, per subset × metric."""
    words = words if "subset" in words else with_subsets(words)
    pooled = table[(table["category"] == "pooled") & table["row"].str.startswith(ANSWERS)]
    out = []
    for subset in SUBSETS:
        part = words if subset == ALL else words[words["subset"] == subset]
        flags = {row: g.set_index("word") for row, g in part.groupby("row")}
        for metric, col in METRICS.items():
            cands = pooled[pooled["subset"] == subset].dropna(subset=[metric])
            refs = {"text-embedding": "text-embedding"}
            if len(cands):
                refs["best answer table"] = str(cands.loc[cands[metric].idxmin(), "row"])
            for versus, ref in refs.items():
                if ref not in flags or col not in part:
                    continue
                for row in flags:
                    if row == ref:
                        continue
                    n, a_only, b_only, p = mcnemar(flags[row][col], flags[ref][col])
                    out.append(
                        dict(row=row, subset=subset, metric=metric, versus=versus, reference_row=ref, pairs=n)
                        | dict(row_only_fails=a_only, reference_only_fails=b_only, p=p)
                    )
    return pd.DataFrame(out)


def _fmt(rate: float, lo: float, hi: float) -> str:
    if not np.isfinite(rate):
        return "—"
    return f"{rate:.2f} [{lo:.2f}, {hi:.2f}]"


def verdict(table: pd.DataFrame) -> str:
    """One plain sentence: which agent has the lowest pooled rates (people are the reference, not a contestant)."""
    table = table if "subset" in table else table.assign(subset=ALL)
    pooled = table[(table["category"] == "pooled") & (table["row"] != "people") & (table["subset"] == ALL)]
    pooled = pooled.set_index("row")
    parts = []
    for metric in ("mahalanobis", "hotelling"):
        best = pooled[metric].idxmin()
        ties = [r for r in pooled.index if pooled.loc[r, metric] == pooled.loc[best, metric]]
        parts.append(
            f"{metric.capitalize()} — lowest pooled fail rate: {', '.join(row_label(r) for r in ties)}"
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


def _p(tests: pd.DataFrame, row: str, subset: str, versus: str) -> str:
    if tests.empty:
        return "—"
    sel = tests[(tests["row"] == row) & (tests["subset"] == subset) & (tests["versus"] == versus)]
    ps = {r.metric: r.p for r in sel.itertuples()}
    return " / ".join(f"{ps[m]:.3g}" if m in ps else "—" for m in ("mahalanobis", "hotelling"))


def markdown(result: dict[str, Any], table: pd.DataFrame, tests: pd.DataFrame) -> str:
    n_sub = {s: len(result["subsets"][s]) for s in (XKCD, OTHER)}
    lines = [
        "# Held-out words: learned guesser vs baselines",
        "",
        f"Human reference: {result['reference']}.",
        f"Split: {result['split']}.",
        f"Naming corpus of the distributional rows: {result.get('naming_corpus') or 'none (not trained)'}.",
        f"Folds: {result['folds']} (words stratified by category; each word held out once). "
        f"Training per fold: {result['train_steps_per_fold']:,} steps of the fast trainer, cue encoding "
        f"{result['cue_encoding']} ({result['text_encoder']}).",
        "Scored on the held-out words against the evaluation part only; Mahalanobis on the top-1 cell "
        "(in CIE xy as the paper defines it, and beside it in CIELAB, which sees lightness), "
        "Hotelling T² on the top-5 ranking (the learned guesser's 5 most probable cells; an answer table's "
        "5 most frequent cells); rates with 95 % Wilson intervals (agents: per word; people: per answer, "
        "leave-one-out). McNemar: exact two-sided p on the words where exactly one of the two fails "
        "(Mahalanobis xy / Hotelling).",
        f"Words text-embedding looks up ({n_sub[XKCD]}, names in its XKCD dictionary): "
        + ", ".join(result["subsets"][XKCD])
        + ".",
        "",
    ]
    best: dict[str, dict[str, str]] = {}
    for r in tests[tests["versus"] == "best answer table"].itertuples() if len(tests) else ():
        best.setdefault(r.subset, {})[r.metric] = row_label(r.reference_row).removeprefix("answer table ")
    titles = {
        ALL: "All words",
        XKCD: f"The {n_sub[XKCD]} XKCD-name words",
        OTHER: f"The {n_sub[OTHER]} other words",
    }
    for subset in SUBSETS:
        lines += [f"## {titles[subset]}", ""]
        if subset in best:
            names = ", ".join(f"{m} {t}" for m, t in best[subset].items())
            lines += [f"Best answer table (lowest fail rate, the McNemar reference): {names}.", ""]
        lines += [
            "| | n | Mahalanobis fail (xy) | Mahalanobis fail (CIELAB) | Hotelling top-5 fail "
            "| McNemar p vs text-embedding | McNemar p vs best answer table |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in table[(table["subset"] == subset) & (table["category"] == "pooled")].itertuples(index=False):
            lines.append(
                f"| {row_label(r.row)} | {r.n} {r.unit} | {_fmt(r.mahalanobis, r.mahalanobis_lo, r.mahalanobis_hi)} "
                f"| {_fmt(r.mahalanobis_lab, r.mahalanobis_lab_lo, r.mahalanobis_lab_hi)} "
                f"| {_fmt(r.hotelling, r.hotelling_lo, r.hotelling_hi)} "
                f"| {_p(tests, r.row, subset, 'text-embedding')} | {_p(tests, r.row, subset, 'best answer table')} |"
            )
        lines.append("")
    lines += [
        "## Per category (all words)",
        "",
        "| | category | n | Mahalanobis fail (xy) | Mahalanobis fail (CIELAB) | Hotelling top-5 fail |",
        "|---|---|---|---|---|---|",
    ]
    for r in table[(table["subset"] == ALL) & (table["category"] != "pooled")].itertuples(index=False):
        lines.append(
            f"| {row_label(r.row)} | {r.category} | {r.n} {r.unit} "
            f"| {_fmt(r.mahalanobis, r.mahalanobis_lo, r.mahalanobis_hi)} "
            f"| {_fmt(r.mahalanobis_lab, r.mahalanobis_lab_lo, r.mahalanobis_lab_hi)} "
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
    answers: Sequence[str | Path] = (),
    fold_agents: FoldAgents | None = None,
    distributional: bool = True,
    corpus: str | None = None,
) -> dict[str, Any]:
    """The whole held-out evaluation (see the module docstring).

    ``train=False`` trains no PPO guesser and ``distributional=False`` no distributional rows: both off
    scores the baselines only.  ``corpus``: the distributional rows' naming corpus
    (:func:`~huesenv.naming_corpus.load_naming_corpus`: ``None`` is XKCD; the CLI's default is
    ``xkcd+color-name-list``)."""
    encoder = make_text_encoder(text_encoder)  # bad input fails before anything is written
    tables = read_answers(answers)
    naming = load_naming_corpus(corpus) if distributional else None
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
    fixed = {MIXTURE: mixture_agent(naming, base_split.words, text_encoder)} if naming is not None else {}
    for fold in range(folds):
        split = base_split.with_fold(fold, folds)
        policy = None
        if train:
            summary = train_fast(
                fold_config(base, fold, folds), out / f"fold-{fold}", humans=humans, progress=progress
            )
            train_steps = int(summary["steps"])
            policy = out / f"fold-{fold}" / "policy.pt"
        dist = (
            heldout_policies(out / f"fold-{fold}", split, humans, text_encoder, seed, corpus=naming)
            if distributional
            else {}
        )
        frames.append(
            score_fold(split, humans, policy, encoder, seed, tables, _policy_rows(dist, fold_agents, fixed))
        )
        if progress:
            print(
                f"fold {fold + 1}/{folds} scored ({len(split.evaluation_words)} held-out words)", flush=True
            )
    reference = HumanReference.of(humans).label
    words = with_subsets(pd.concat(frames, ignore_index=True)).assign(human_reference=reference)
    csv_safe(words).to_csv(out / "words.csv", index=False)
    table = summarise(words)
    tests = comparisons(words, table)
    scored = sorted(words["word"].unique())
    subsets = {s: sorted(words.loc[words["subset"] == s, "word"].unique()) for s in (XKCD, OTHER)}
    result: dict[str, Any] = {
        "reference": reference,
        "split": base_split.label.replace("; every word in both parts", "")
        + f"; words: {folds} folds stratified by category, each held out in turn",
        "split_fingerprint": base_split.fingerprint,
        "folds": folds,
        "seed": seed,
        "train_steps_per_fold": train_steps,
        "cue_encoding": "embedding",
        "text_encoder": text_encoder,
        "naming_corpus": naming.label if naming is not None else None,
        "n_words": len(scored),
        "subsets": subsets,
        "answers": {row: {"path": t["path"], "sha256": t["sha256"]} for row, t in tables.items()},
        "table": table.to_dict(orient="records"),
        "mcnemar": tests.to_dict(orient="records"),
    }
    result["verdict"] = verdict(table) if train else "baselines only (no learned guesser trained)"
    (out / "heldout.json").write_text(json.dumps(_strict_json(result), indent=1, allow_nan=False) + "\n")
    (out / "heldout.md").write_text(markdown(result, table, tests), encoding="utf-8")
    return result


def _strict_json(value: Any) -> Any:
    """``value`` with numpy scalars as Python numbers and NaN / infinities as ``null`` (strict JSON)."""
    if isinstance(value, dict):
        return {k: _strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict_json(v) for v in value]
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    return value
