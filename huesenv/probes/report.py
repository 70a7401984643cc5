"""Probe reports: one CSV per metric table, a plain-text summary, and (GCA) a colour-share plot.

Every table names its human reference like the other reports do (the
``human_reference`` column of :mod:`huesenv.humans.reference`): the probes score
an agent against its own stated rule and the image, never against people's
answers, and the column says so rather than being absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from huesenv.plots import plot_colour_shares
from huesenv.probes.gca.metrics import gca_report
from huesenv.probes.interference.metrics import interference_table, paper_layout
from huesenv.reports import write_tables

NO_HUMAN_REFERENCE = (
    "none: probe metrics compare the agent with its own stated rule and the image, not with people's answers"
)


class _NoHumanReference:
    def annotate(self, frame):
        return frame.assign(human_reference=NO_HUMAN_REFERENCE)


def write_report(task: str, records: Any, out_dir: str | Path) -> list[Path]:
    """Write ``task``'s metric tables for ``records`` into ``out_dir``; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if task == "gca":
        tables = gca_report(records)
    elif task == "interference":
        table = interference_table(records)
        tables = {"interference": table}
        for subset in sorted(table["subset"].unique()) if not table.empty else []:
            tables[f"table_{subset}"] = paper_layout(table, subset).reset_index()
    else:
        raise ValueError(f"task: {task!r} is not one of ('gca', 'interference')")
    written += write_tables(tables, out, formats=("csv",), reference=_NoHumanReference()).values()
    lines = [f"# {task} probe report", "", f"Human reference: {NO_HUMAN_REFERENCE}.", ""]
    for name, df in tables.items():
        lines += [
            f"## {name}",
            "",
            df.to_string(index=False, float_format=lambda v: f"{v:.3f}") if len(df) else "(no rows)",
            "",
        ]
    summary = out / "report.txt"
    summary.write_text("\n".join(lines), encoding="utf-8")
    written.append(summary)
    if task == "gca" and len(tables["colour_shares"]):
        written.append(plot_colour_shares(tables["colour_shares"], out / "colour_shares.png"))
    return written


__all__ = ["NO_HUMAN_REFERENCE", "write_report"]
