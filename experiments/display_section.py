"""The display-robustness section of a run report: ``huesenv board displays -o RUN_DIR`` leaves
``displays.json`` (and ``displays.png``) in a run folder, and the run's report then shows them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from huesenv.displays.report import displays_table, tests_table, verdicts_note, verdicts_table


def add_displays_section(data: Any, run_dir: Path) -> None:
    """Report hook: the tests, the per-display effects and the agent's verdicts from ``displays.json``."""
    path = run_dir / "displays.json"
    if not path.is_file():
        return
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
        tables = {"displays_tests": tests_table(result), "displays_effects": displays_table(result)}
        verdicts = result.get("agent_verdicts") or {}
        if verdicts and "skipped" not in verdicts:
            tables["displays_verdicts"] = verdicts_table(verdicts)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        data.summary.append(
            f"{path.name} not shown: not a `huesenv board displays` result ({type(err).__name__})"
        )
        return
    s = result["settings"]
    data.tables.update(tables)
    data.captions["displays_tests"] = (
        "Appendix B of the main paper: shifts of the board's colours on the displays vs under illuminants "
        f"matching their whites ({len(s['sample'])} sample colours, {s['transform']} adaptation to D65, "
        f"TOST margin {s['margin']:.4f} in xy), from {path.name} (`huesenv board displays`)."
    )
    data.captions["displays_effects"] = (
        "Per display, over its cells: ΔE2000 to the calibrated board and share of cells keeping their macro-colour."
    )
    if "displays_verdicts" in tables:
        data.captions["displays_verdicts"] = verdicts_note(verdicts).rstrip(":") + "."
    elif verdicts:
        data.captions["displays_effects"] += " " + verdicts_note(verdicts)
    if (run_dir / "displays.png").is_file():
        data.plots["displays_tests"] = run_dir / "displays.png"
