"""Probe reports: one CSV per metric table, a plain-text summary, and the probe's figures (GCA: colour shares)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from huesenv.probes.registry import get_probe
from huesenv.reports import write_tables


def write_report(task: str, records: Any, out_dir: str | Path) -> list[Path]:
    """Write ``task``'s metric tables for ``records`` into ``out_dir``; returns the files written."""
    probe = get_probe(task)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    tables = probe.report_tables(records)
    written += write_tables(tables, out, formats=("csv",)).values()
    lines = [f"# {task} probe report", ""]
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


__all__ = ["write_report"]
