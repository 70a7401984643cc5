"""The run report: Markdown (plots next to it in ``plots/``) and a self-contained HTML (plots inlined).

Why both: Markdown reads well in a terminal, a pull request or W&B; the HTML
file is the one to mail around, as it embeds its images and needs no folder.
Tables are written as CSV too (``tables/``) for anyone who wants the numbers.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from huesenv.envs.rendering.renderer import BoardRenderer
from huesenv.render.playback import views_from_records
from huesenv.secrets import mask_text


@dataclass
class ReportData:
    """Everything a report shows; built by the CLI, also handed to W&B."""

    title: str
    config_yaml: str
    summary: list[str]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # name -> table (ordered as shown)
    captions: dict[str, str] = field(default_factory=dict)
    plots: dict[str, Path] = field(default_factory=dict)  # name -> png path
    boards: dict[str, Path] = field(default_factory=dict)  # caption -> png path


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.3f}"
    return str(value)


def markdown_table(frame: pd.DataFrame, max_rows: int = 60) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    if frame is None or frame.empty:
        return "_(empty)_"
    shown = frame.head(max_rows)
    cols = [str(c) for c in shown.columns]
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in shown.itertuples(index=False):
        cells = [_fmt(v).replace("|", "\\|").replace("\n", " ") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    if len(frame) > max_rows:
        lines.append(f"\n_({len(frame) - max_rows} more rows in the CSV)_")
    return "\n".join(lines)


def board_image(records: Sequence[Any], path: Path, title: str = "") -> Path | None:
    """The board at the last reveal of a game, drawn by the project's renderer (needs the render extra)."""
    views = list(views_from_records(records))
    if not views:
        return None
    reveal = [v for v in views if v.phase == "reveal"]
    view = reveal[-1] if reveal else views[-1]
    try:
        renderer = BoardRenderer(title=title or "Hues and Cues")
    except ImportError:  # no pygame: the report goes without the board picture
        return None
    try:
        frame = renderer.frame(view)
    finally:
        renderer.close()
    from PIL import Image

    Image.fromarray(np.asarray(frame, dtype=np.uint8)).save(path)
    return path


# -- documents ------------------------------------------------------------------
def write_tables(data: ReportData, out_dir: Path) -> dict[str, Path]:
    folder = out_dir / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, table in data.tables.items():
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    return paths


def write_markdown(data: ReportData, out_dir: Path) -> Path:
    lines = [f"# {data.title}", "", *[f"- {s}" for s in data.summary], ""]
    for name, table in data.tables.items():
        lines += [f"## {name.replace('_', ' ').capitalize()}", ""]
        if name in data.captions:
            lines += [data.captions[name], ""]
        lines += [markdown_table(table), ""]
        if name in data.plots:
            lines += [f"![{name}]({data.plots[name].relative_to(out_dir).as_posix()})", ""]
    for name, path in data.plots.items():
        if name not in data.tables:
            lines += [
                f"## {name.replace('_', ' ').capitalize()}",
                "",
                f"![{name}]({path.relative_to(out_dir).as_posix()})",
                "",
            ]
    if data.boards:
        lines += ["## Boards", ""]
        for caption, path in data.boards.items():
            lines += [f"**{caption}**", "", f"![{caption}]({path.relative_to(out_dir).as_posix()})", ""]
    lines += ["## Config", "", "```yaml", data.config_yaml.rstrip(), "```", ""]
    path = out_dir / "report.md"
    path.write_text(mask_text("\n".join(lines)), encoding="utf-8")
    return path


def _img(path: Path, alt: str) -> str:
    b64 = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}" style="max-width:100%">'


def write_html(data: ReportData, out_dir: Path) -> Path:
    """One file with every table and image inline."""
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(data.title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
        "table{border-collapse:collapse;font-size:13px;margin-bottom:1em}"
        "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}th{background:#eee}"
        "pre{background:#f6f6f6;padding:1em}</style></head><body>",
        f"<h1>{html.escape(data.title)}</h1><ul>",
        *[f"<li>{html.escape(s)}</li>" for s in data.summary],
        "</ul>",
    ]
    for name, table in data.tables.items():
        parts.append(f"<h2>{html.escape(name.replace('_', ' ').capitalize())}</h2>")
        if name in data.captions:
            parts.append(f"<p>{html.escape(data.captions[name])}</p>")
        shown = table.head(200).copy()
        for col in shown.columns:
            if shown[col].dtype.kind == "f":
                shown[col] = shown[col].map(_fmt)
        parts.append(shown.to_html(index=False, escape=True, border=0))
        if name in data.plots:
            parts.append(_img(data.plots[name], name))
    for name, path in data.plots.items():
        if name not in data.tables:
            parts += [f"<h2>{html.escape(name.replace('_', ' ').capitalize())}</h2>", _img(path, name)]
    if data.boards:
        parts.append("<h2>Boards</h2>")
        for caption, path in data.boards.items():
            parts += [f"<p><b>{html.escape(caption)}</b></p>", _img(path, caption)]
    parts += ["<h2>Config</h2>", f"<pre>{html.escape(data.config_yaml)}</pre></body></html>"]
    path = out_dir / "report.html"
    path.write_text(mask_text("\n".join(parts)), encoding="utf-8")
    return path


def write_report(
    data: ReportData, out_dir: Path, formats: Sequence[str] = ("markdown", "html")
) -> dict[str, Path]:
    """Write the tables (CSV), the summary (JSON) and the requested documents; return their paths."""
    out: dict[str, Path] = {}
    write_tables(data, out_dir)
    summary = out_dir / "summary.json"
    summary.write_text(
        mask_text(
            json.dumps(
                {
                    "title": data.title,
                    "summary": data.summary,
                    "allow_code": bool((yaml.safe_load(data.config_yaml) or {}).get("allow_code", False)),
                    "tables": {
                        k: _records(v)
                        for k, v in data.tables.items()
                        if k in ("leaderboard", "wordlevel_agents", "guess_alignment")
                    },
                },
                indent=1,
                default=str,
            )
        ),
        encoding="utf-8",
    )
    out["summary"] = summary
    if "markdown" in formats:
        out["markdown"] = write_markdown(data, out_dir)
    if "html" in formats:
        out["html"] = write_html(data, out_dir)
    return out


def _records(frame: pd.DataFrame) -> list[Mapping[str, Any]]:
    clean = frame.astype(object).where(frame.notna(), None)
    return clean.to_dict(orient="records")
