"""Probe reports: one CSV per metric table, a plain-text summary, and the probe's figures (GCA: colour shares).

Every table names its human reference like the other reports do (the
``human_reference`` column of :mod:`huesenv.humans.reference`): the probes score
an agent against its own stated rule and the image, never against people's
answers, and the column says so rather than being absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from huesenv.probes.registry import get_probe
from huesenv.reports import write_tables

NO_HUMAN_REFERENCE = (
    "none: probe metrics compare the agent with its own stated rule and the image, not with people's answers"
)


class _NoHumanReference:
    def annotate(self, frame: Any) -> Any:
        return frame.assign(human_reference=NO_HUMAN_REFERENCE)


def write_report(task: str, records: Any, out_dir: str | Path) -> list[Path]:
    """Write ``task``'s metric tables for ``records`` into ``out_dir``; returns the files written."""
    probe = get_probe(task)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    tables = probe.report_tables(records)
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
    written += probe.figures(tables, out)
    return written


__all__ = ["NO_HUMAN_REFERENCE", "write_report"]
