"""``huesenv help [TERM]``: what the words and options the help texts use mean (a glossary)."""

from __future__ import annotations

import argparse
import difflib
import re

GLOSSARY: dict[str, str] = {
    "LOO": "leave-one-out: each answer to a word is tested against the mean and covariance (CIE xy) of the "
    "other answers to it, never against a fit that includes itself. Human Consistency is the share of a "
    "word's answers the LOO test keeps (not outliers at χ²₂ 0.95, or the calibrated F threshold).",
    "Human Consistency": "how much people agree on a word: the share of its answers inside the others' "
    "95 % ellipse (see LOO); the paper's Table 6 column. Its complement is the Human Fail Rate.",
    "Hotelling cloud": "an agent's several answers to a word (a ranking's top-k cells, or a sampled agent's "
    "k most frequent answers) compared as one cloud with people's answers by Hotelling's two-sample T² test "
    "in CIE xy: the word fails when p < α.",
    "Mahalanobis top-1": "an agent's best cell tested against people's answers to the word (their mean and "
    "covariance in CIE xy): it fails outside the χ²₂ 0.95 ellipse.",
    "self-scored": "an agent that replays the reference cohort's own answers (human-replay) and is scored "
    "against those same answers: an optimistic ceiling, not a leave-one-out score; reports mark its rows.",
    "reference": "the human answers every agent is scored against: a --humans export of people's answers, "
    "or by default the packaged reconstructed cohort (simulated from the paper's statistics, not people).",
    "--need": "the need distribution of the colour-naming analysis: how often each board cell has to be "
    "communicated; uniform (every cell alike) or cohort (in proportion to the cells people chose).",
    "--sigma2": "σ², the variance (CIELAB units²) of the Gaussian meaning around each cell in the "
    "information-bottleneck analysis: how far a named colour's meaning spreads (Zaslavsky et al. use 64).",
    "--betas": "the number of points on the grid of β, the information-bottleneck trade-off between a "
    "lexicon's complexity and its accuracy, along which the optimal frontier is traced.",
    "--top-k": "how many cells of an agent's answer count: the size of its Hotelling cloud (the paper: 5).",
    "--alpha": "the significance level of the tests (default 0.05): a word fails when p < α.",
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "help",
        help="explain a term the help texts use (LOO, Hotelling cloud, self-scored, --need, ...)",
        description="Explain a term or option the help texts use; without TERM, list every term.",
    )
    p.add_argument(
        "term", nargs=argparse.REMAINDER, help="the term, e.g. LOO, 'Hotelling cloud', sigma2 or --sigma2"
    )
    p.set_defaults(func=_run)


def explain(term: str) -> str:
    """The entry for ``term`` (case-insensitive); ``ValueError`` with the closest terms otherwise."""
    by_key = {_folded(key): key for key in GLOSSARY}
    asked = _folded(term)
    key = by_key.get(asked)
    if key is None:
        close = difflib.get_close_matches(asked, list(by_key), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(by_key[c] for c in close)}?" if close else "expected one of"
        raise ValueError(
            f"help {term!r}: no such term; {hint} {'' if close else ', '.join(GLOSSARY)}".strip()
        )
    return f"{key}: {GLOSSARY[key]}"


def _folded(term: str) -> str:
    """``--need``, ``need``; ``self-scored``, ``Self scored``: one spelling."""
    return " ".join(re.split(r"[\s_-]+", term.lower())).strip()


def _run(args: argparse.Namespace) -> int:
    term = [t for t in args.term if t != "--"]
    if term:
        print(explain(" ".join(term)))
    else:
        for key in GLOSSARY:
            print(explain(key))
    return 0
