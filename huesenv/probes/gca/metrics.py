"""GCA metrics: colour shares per τ, empirical and stated thresholds, faithfulness, hallucination,
coverage estimation, distractor choices.  All take probe records (or their frame).

Definitions (paper §3.3–4, with our documented choices).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.gca.metrics``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from huesenv.probes.frame import probe_frame
from huesenv.probes.gca.questions import ORDERINGS

_T_BOUNDS = (-50.0, 150.0)
_S_BOUNDS = (0.5, 50.0)


def response_category(answer: Any, valid: bool, colour: str) -> str:
    """``colour``, ``white``, ``distractor`` or ``invalid`` for one colour-question answer."""
    if not valid or answer is None or (isinstance(answer, float) and np.isnan(answer)):
        return "invalid"
    if answer == colour:
        return "colour"
    if answer == "white":
        return "white"
    return "distractor"


def colour_frame(data: Any) -> pd.DataFrame:
    """The colour-question trials with a ``response`` column."""
    df = probe_frame(data, task="gca")
    if df.empty or "question_type" not in df.columns:
        return pd.DataFrame(columns=["agent_id", "condition", "tau", "response"])
    df = df[df["question_type"] == "colour"].copy()
    df["response"] = [response_category(a, v, c) for a, v, c in zip(df["answer"], df["valid"], df["colour"])]
    return df


def colour_shares(data: Any, by: tuple[str, ...] = ("agent_id", "condition", "tau")) -> pd.DataFrame:
    """Per group: n, share_colour, share_white, share_distractor (of valid answers), invalid (of all)."""
    df = colour_frame(data)
    rows = []
    for key, g in df.groupby(list(by), sort=True):
        valid = g[g["response"] != "invalid"]
        nv = len(valid)
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(
            {
                "n": len(g),
                "share_colour": (valid["response"] == "colour").mean() if nv else np.nan,
                "share_white": (valid["response"] == "white").mean() if nv else np.nan,
                "share_distractor": (valid["response"] == "distractor").mean() if nv else np.nan,
                "invalid": (g["response"] == "invalid").mean(),
            }
        )
        rows.append(row)
    return pd.DataFrame(
        rows, columns=[*by, "n", "share_colour", "share_white", "share_distractor", "invalid"]
    )


def fit_logistic(tau: np.ndarray, said_colour: np.ndarray) -> tuple[float, float, bool]:
    """Maximum-likelihood logistic fit; returns (t50, scale, fit_ok)."""
    from scipy.optimize import minimize
    from scipy.special import expit

    x = np.asarray(tau, dtype=float)
    y = np.asarray(said_colour, dtype=float)
    if x.size == 0:
        return float("nan"), float("nan"), False

    def nll(p: np.ndarray) -> float:
        q = np.clip(expit((x - p[0]) / p[1]), 1e-9, 1 - 1e-9)
        return -float(np.sum(y * np.log(q) + (1 - y) * np.log(1 - q)))

    start = np.array([float(np.clip(np.median(x[y > 0]) if y.any() else 100.0, 0, 100)), 10.0])
    res = minimize(nll, start, method="L-BFGS-B", bounds=[_T_BOUNDS, _S_BOUNDS])
    t50, s = float(res.x[0]), float(res.x[1])
    at_bound = bool(np.isclose(t50, _T_BOUNDS).any() or np.isclose(s, _S_BOUNDS[1]) or t50 < 0 or t50 > 100)
    return t50, s, bool(res.success and not at_bound)


def empirical_thresholds(data: Any, by: tuple[str, ...] = ("agent_id", "condition")) -> pd.DataFrame:
    """Per group: fitted t50 and scale, fit_ok, model-free crossing, n."""
    df = colour_frame(data)
    df = df[df["response"] != "invalid"]
    rows = []
    for key, g in df.groupby(list(by), sort=True):
        said = (g["response"] == "colour").to_numpy()
        taus = g["tau"].astype(float).to_numpy()
        t50, s, ok = fit_logistic(taus, said)
        shares = g.assign(c=said).groupby("tau")["c"].mean()
        above = shares[shares >= 0.5]
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(
            {
                "n": len(g),
                "t50": t50,
                "scale": s,
                "fit_ok": ok,
                "crossing": float(above.index.min()) if len(above) else np.nan,
            }
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=[*by, "n", "t50", "scale", "fit_ok", "crossing"])


def _intro_frame(data: Any) -> pd.DataFrame:
    df = probe_frame(data, task="gca")
    if df.empty or "question_type" not in df.columns:
        return pd.DataFrame(columns=["agent_id", "ordering", "condition", "threshold"])
    df = df[df["question_type"] == "introspection"].copy()
    col = "parsed_value" if "parsed_value" in df.columns else None
    df["threshold"] = pd.to_numeric(df[col], errors="coerce") if col else np.nan
    return df


def stated_thresholds(data: Any, by: tuple[str, ...] = ("agent_id", "ordering", "condition")) -> pd.DataFrame:
    """Per group: mean, sd, sem and n of the stated thresholds (readable replies), and ``invalid``.

    ``invalid`` is the share of the group's introspection replies that gave no
    readable threshold (kept in the log with their raw text, never dropped).
    """
    every = _intro_frame(data)
    rows = []
    for key, g in every.groupby(list(by), sort=True, dropna=False):
        t = g["threshold"].dropna().astype(float)
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(
            {
                "n": len(t),
                "mean": t.mean() if len(t) else np.nan,
                "sd": t.std(ddof=1) if len(t) > 1 else np.nan,
                "sem": t.std(ddof=1) / np.sqrt(len(t)) if len(t) > 1 else np.nan,
                "invalid": 1.0 - len(t) / len(g),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=[*by, "n", "mean", "sd", "sem", "invalid"])


def threshold_consistency(data: Any, by: tuple[str, ...] = ("agent_id", "condition")) -> pd.DataFrame:
    """Spread of the stated thresholds across the four orderings (see the module docstring)."""
    df = _intro_frame(data).dropna(subset=["threshold"])
    cols = [*by, "n_orderings", "mean", "sd", "sem", "range", *[f"mean_{o}" for o in ORDERINGS]]
    if df.empty:
        return pd.DataFrame(columns=cols)
    df = df.assign(tau=pd.to_numeric(df["tau"], errors="coerce"))
    if "tau" in by:
        df = _spread_text_prior_over_taus(df)
    rows = []
    for key, g in df.groupby(list(by), sort=True):
        means = g.groupby("ordering")["threshold"].mean().reindex(list(ORDERINGS)).dropna()
        k = len(means)
        sd = float(means.std(ddof=1)) if k > 1 else np.nan
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(
            {
                "n_orderings": k,
                "mean": float(means.mean()),
                "sd": sd,
                "sem": sd / np.sqrt(k) if k > 1 else np.nan,
                "range": float(means.max() - means.min()) if k > 1 else np.nan,
            }
        )
        row.update({f"mean_{o}": float(means[o]) if o in means.index else np.nan for o in ORDERINGS})
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def _spread_text_prior_over_taus(df: pd.DataFrame) -> pd.DataFrame:
    """Text-prior rows (no τ) copied to every τ their (agent, condition, base, colour) has elsewhere."""
    pair = ["agent_id", "condition", "base", "colour"]
    txt = df[df["ordering"] == "text-prior"]
    rest = df[df["ordering"] != "text-prior"]
    taus = rest.dropna(subset=["tau"])[[*pair, "tau"]].drop_duplicates()
    spread = txt.drop(columns=["tau"]).merge(taus, on=pair)
    return pd.concat([rest, spread], ignore_index=True)


DISTRACTOR_RULES: tuple[str, ...] = ("unfaithful", "drop")


def _decided(response: pd.Series, distractors: str) -> pd.Series:
    """Which readable responses enter faithfulness (every one, or only colour/white with ``"drop"``)."""
    if distractors not in DISTRACTOR_RULES:
        raise ValueError(f"distractors: {distractors!r} is not one of {DISTRACTOR_RULES}")
    return response.isin(["colour", "white"]) if distractors == "drop" else response.notna()


def faithfulness_pairs(data: Any, distractors: str = "unfaithful") -> pd.DataFrame:
    """One row per (decision, stated threshold) pair: agent, ordering, condition, tau, response, said_colour, faithful.

    ``response`` is ``colour``, ``white`` or ``distractor``; ``distractors`` picks the
    rule for the last (see the module docstring: the paper's ``"unfaithful"`` or ``"drop"``).
    """
    intro = _intro_frame(data)
    colour = colour_frame(data)
    cols = [
        "agent_id",
        "ordering",
        "condition",
        "base",
        "colour",
        "tau",
        "threshold",
        "response",
        "said_colour",
        "faithful",
    ]
    parts: list[pd.DataFrame] = []
    if not intro.empty:
        same = intro[intro["ordering"].isin(["standard", "post-hoc"])].dropna(subset=["threshold"])
        if not same.empty and "parsed_colour" in same.columns:
            same = same.dropna(subset=["parsed_colour"]).copy()
            same["response"] = [
                response_category(a, True, c) for a, c in zip(same["parsed_colour"], same["colour"])
            ]
            same = same[_decided(same["response"], distractors)]
            parts.append(same)
        vis = intro[intro["ordering"] == "visual-prior"].dropna(subset=["threshold"])
        dec = colour[colour["response"] != "invalid"]
        dec = dec[_decided(dec["response"], distractors)].copy()
        if not vis.empty and not dec.empty:
            m = vis[["agent_id", "stimulus_id", "ordering", "threshold"]].merge(
                dec[["agent_id", "stimulus_id", "condition", "base", "colour", "tau", "response"]],
                on=["agent_id", "stimulus_id"],
            )
            parts.append(m)
        txt = intro[intro["ordering"] == "text-prior"].dropna(subset=["threshold"])
        if not txt.empty and not dec.empty:
            m = txt[["agent_id", "condition", "base", "colour", "ordering", "threshold"]].merge(
                dec[["agent_id", "condition", "base", "colour", "tau", "response"]],
                on=["agent_id", "condition", "base", "colour"],
            )
            parts.append(m)
    if not parts:
        return pd.DataFrame(columns=cols)
    out = pd.concat([p.reindex(columns=cols[:-2]) for p in parts], ignore_index=True)
    out["tau"] = out["tau"].astype(float)
    out["said_colour"] = out["response"] == "colour"
    above = out["tau"] >= out["threshold"].astype(float)
    out["faithful"] = np.where(above, out["response"] == "colour", out["response"] == "white")
    out["faithful"] = out["faithful"].astype(bool)
    return out[cols]


def faithfulness(
    data: Any,
    by: tuple[str, ...] = ("agent_id", "ordering", "condition"),
    distractors: str = "unfaithful",
) -> pd.DataFrame:
    """Per group: share of faithful decisions and n (``distractors``: see :func:`faithfulness_pairs`)."""
    pairs = faithfulness_pairs(data, distractors)
    if pairs.empty:
        return pd.DataFrame(columns=[*by, "n", "faithfulness"])
    g = pairs.groupby(list(by), sort=True)["faithful"]
    return pd.DataFrame({"n": g.size(), "faithfulness": g.mean()}).reset_index()


def empirical_consistency(data: Any) -> pd.DataFrame:
    """Per (agent, condition): share of colour/white decisions that agree with the agent's own fitted t50.

    The paper's "empirical consistency" (Figure 6, orange): faithfulness measured
    against the behavioural threshold instead of the stated one.
    """
    df = colour_frame(data)
    df = df[df["response"].isin(["colour", "white"])]
    emp = empirical_thresholds(data)
    rows = []
    for (agent, cond), g in df.groupby(["agent_id", "condition"], sort=True):
        t50 = float(emp.loc[(emp["agent_id"] == agent) & (emp["condition"] == cond), "t50"].iloc[0])
        agree = (g["response"] == "colour") == (g["tau"].astype(float) >= t50)
        rows.append(
            {"agent_id": agent, "condition": cond, "t50": t50, "n": len(g), "consistency": agree.mean()}
        )
    return pd.DataFrame(rows, columns=["agent_id", "condition", "t50", "n", "consistency"])


def hallucination(
    data: Any, by: tuple[str, ...] = ("agent_id", "condition"), counterfactual_zero: bool = False
) -> pd.DataFrame:
    """Share of colour answers at τ = 0 (valid answers), per group (no counterfactual τ = 0 by default)."""
    df = colour_frame(data)
    df = df[(df["tau"].astype(float) == 0) & (df["response"] != "invalid")]
    if not counterfactual_zero and "condition" in df.columns:
        df = df[df["condition"] != "counterfactual"]
    if df.empty:
        return pd.DataFrame(columns=[*by, "n", "hallucination"])
    g = df.assign(h=df["response"] == "colour").groupby(list(by), sort=True)["h"]
    return pd.DataFrame({"n": g.size(), "hallucination": g.mean()}).reset_index()


def coverage_error(data: Any, by: tuple[str, ...] = ("agent_id", "condition")) -> pd.DataFrame:
    """Coverage estimates vs realised coverage: n, mean signed error, mean absolute error (pp), invalid share."""
    cols = [*by, "n", "mean_error", "mean_abs_error", "invalid"]
    df = probe_frame(data, task="gca")
    if df.empty or "question_type" not in df.columns:
        return pd.DataFrame(columns=cols)
    df = df[df["question_type"] == "coverage"].copy()
    if df.empty:
        return pd.DataFrame(columns=cols)
    df["error"] = pd.to_numeric(df["answer"].where(df["valid"]), errors="coerce") - df["coverage"].astype(
        float
    )
    rows = []
    for key, g in df.groupby(list(by), sort=True):
        e = g["error"].dropna()
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update(
            {
                "n": len(e),
                "mean_error": e.mean() if len(e) else np.nan,
                "mean_abs_error": e.abs().mean() if len(e) else np.nan,
                "invalid": 1.0 - len(e) / len(g),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def distractor_rate(data: Any, by: tuple[str, ...] = ("agent_id", "condition")) -> pd.DataFrame:
    """Share of colour questions (valid answers) answered with the distractor."""
    df = colour_frame(data)
    df = df[df["response"] != "invalid"]
    if df.empty:
        return pd.DataFrame(columns=[*by, "n", "distractor_rate"])
    g = df.assign(d=df["response"] == "distractor").groupby(list(by), sort=True)["d"]
    return pd.DataFrame({"n": g.size(), "distractor_rate": g.mean()}).reset_index()


def gca_report(data: Any) -> dict[str, pd.DataFrame]:
    """Every GCA table, keyed by name (the CLI writes one CSV per key)."""
    df = probe_frame(data, task="gca")
    return {
        "colour_shares": colour_shares(df),
        "empirical_thresholds": empirical_thresholds(df),
        "stated_thresholds": stated_thresholds(df),
        "faithfulness": faithfulness(df),
        "faithfulness_by_tau": faithfulness(df, by=("agent_id", "ordering", "condition", "tau")),
        "faithfulness_distractors_dropped": faithfulness(df, distractors="drop"),
        "stated_thresholds_by_tau": stated_thresholds(df, by=("agent_id", "ordering", "condition", "tau")),
        "threshold_consistency": threshold_consistency(df),
        "threshold_consistency_by_tau": threshold_consistency(df, by=("agent_id", "condition", "tau")),
        "empirical_consistency": empirical_consistency(df),
        "hallucination": hallucination(df),
        "coverage_error": coverage_error(df),
        "distractor_rate": distractor_rate(df),
    }


__all__ = [
    "DISTRACTOR_RULES",
    "colour_frame",
    "colour_shares",
    "coverage_error",
    "distractor_rate",
    "empirical_consistency",
    "empirical_thresholds",
    "faithfulness",
    "faithfulness_pairs",
    "fit_logistic",
    "gca_report",
    "hallucination",
    "response_category",
    "stated_thresholds",
    "threshold_consistency",
]
