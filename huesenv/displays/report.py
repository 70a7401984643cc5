"""The report section of a display-robustness run: the tests beside the paper's p-values, then per display."""

from __future__ import annotations

from typing import Any

import pandas as pd

from huesenv.reports import fmt_p, markdown_table


def tests_table(result: dict[str, Any]) -> pd.DataFrame:
    paper = result["paper_p_values"]
    rows = []
    for when, test in result["tests"].items():
        tost = test["tost"]
        rows.append(
            {
                "condition": when,
                "paper ANOVA p (text; Fig. 13)": f"{paper['text'][when]}; {paper['figure_13_caption'][when]}",
                "ANOVA F": round(test["anova"]["F"], 3),
                "ANOVA p": fmt_p(test["anova"]["p"]),
                "df": f"{test['anova']['df_between']}, {test['anova']['df_within']}",
                "Hotelling T²": round(test["hotelling"]["T2"], 3),
                "Hotelling p": fmt_p(test["hotelling"]["p"]),
                "mean ‖Δxy‖ display / illuminant": (
                    f"{test['mean_shift_display']:.4f} / {test['mean_shift_illuminant']:.4f}"
                ),
                "TOST p": fmt_p(tost["p"]),
                "equivalent": "yes" if tost["equivalent"] else "no",
            }
        )
    return pd.DataFrame(rows)


def displays_table(result: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "display": d["display"],
                "cells": d["cells"],
                "ΔE2000 mean before": round(d["delta_e_before"]["mean"], 2),
                "ΔE2000 mean after": round(d["delta_e_after"]["mean"], 2),
                "category kept before": f"{d['retention_before']:.1%}",
                "category kept after": f"{d['retention_after']:.1%}",
            }
            for d in result["displays"]
        ]
    )


def verdicts_table(verdicts: dict[str, Any]) -> pd.DataFrame:
    """The agent's word-level fail rates on the calibrated board and as each display shows it."""
    rows = [{"display": "calibrated board", **verdicts["calibrated"]}] + verdicts["displays"]
    return pd.DataFrame(
        {
            "display": r["display"],
            "Mahalanobis top-1 fail": f"{r['mahalanobis_fail_rate']:.1%}",
            f"Hotelling top-{verdicts['top_k']} fail": f"{r['hotelling_fail_rate']:.1%}",
            "words flipped (Mahalanobis / Hotelling)": (
                f"{r['words_flipped_mahalanobis']} / {r['words_flipped_hotelling']}"
                if "top1_changed" in r
                else "—"
            ),
            "top-1 cell changed": f"{r['top1_changed']:.0%}" if "top1_changed" in r else "—",
        }
        for r in rows
    )


def verdicts_note(verdicts: dict[str, Any]) -> str:
    if "skipped" in verdicts:
        return f"Word-level verdicts on each display: skipped ({verdicts['skipped']})."
    return (
        f"Word-level verdicts of `{verdicts['agent']}` on the board as each display shows it (unadapted; "
        f"the human reference stays the calibrated board's xy, over {verdicts['calibrated']['n_scored']} "
        "scored words):"
    )


def verdicts_lines(verdicts: dict[str, Any] | None) -> list[str]:
    if not verdicts:
        return []
    if "skipped" in verdicts:
        return [verdicts_note(verdicts), ""]
    return [verdicts_note(verdicts), "", markdown_table(verdicts_table(verdicts), max_rows=200), ""]


def report_section(result: dict[str, Any], figure: str) -> str:
    """Markdown: the tests, the per-display table, the study's screens and the figure."""
    settings = result["settings"]
    lines = [
        "## Display robustness of the human reference (the main paper's Appendix B)",
        "",
        f"Sample: {', '.join(settings['sample'])}; adaptation: von Kries ({settings['transform']} transform) "
        f"to D65; reflectances: {settings['recovery']}; TOST margin {settings['margin']:.4f} in xy, "
        f"alpha {settings['alpha']}.",
        "",
        markdown_table(tests_table(result)),
        "",
        markdown_table(displays_table(result), max_rows=200),
        "",
    ]
    if result.get("study_displays"):
        lines += ["The study's screens:", "", markdown_table(pd.DataFrame(result["study_displays"])), ""]
    lines += verdicts_lines(result.get("agent_verdicts"))
    lines.append(f"![display robustness]({figure})")
    return "\n".join(lines) + "\n"
