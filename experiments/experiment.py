"""One experiment run end to end: games and word-level units (resumable), analysis, report, tracking.

The CLI is a thin layer over :func:`run_experiment`; tests and notebooks call it
directly.  Nothing is downloaded: agents that need weights are checked before
any unit runs (:mod:`huesenv.experiments.weights`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

import huesenv.experiments.analysis as analysis
import huesenv.experiments.provenance as provenance
import huesenv.experiments.report as report
import huesenv.experiments.uncertainty as uncertainty
import huesenv.experiments.weights as weights
import huesenv.plots as figures
from huesenv.agents.registry import available_agents, split_spec
from huesenv.experiments.backends import make_backend
from huesenv.experiments.config import ExperimentConfig, did_you_mean
from huesenv.experiments.display_section import add_displays_section
from huesenv.experiments.evaluation import (
    check_references,
    evaluation_default,
    fallback_lines,
    learned_spec,
    mark_trained_on,
    overlaps,
    training_labels,
    unknown_training,
)
from huesenv.experiments.learning_curves import add_training_section
from huesenv.experiments.provenance import HumanReference
from huesenv.experiments.report import write_report
from huesenv.experiments.runner import (
    GAMES_LOG,
    LogState,
    StageResult,
    prepare_run_dir,
    read_log_state,
    run_games,
    run_wordlevel,
)
from huesenv.experiments.tournament import plan_games, seat_assignment
from huesenv.experiments.tracking import Tracker, requested_mode
from huesenv.experiments.weights import offline_env
from huesenv.experiments.wordlevel import score_wordlevel
from huesenv.humans import load_humans
from huesenv.metrics import skipped_words
from huesenv.trust import code_kwargs


@dataclass
class ExperimentResult:
    run_dir: Path
    stages: list[StageResult]
    reports: dict[str, Path]
    tables: dict[str, pd.DataFrame]
    elapsed_s: float
    wandb_dir: Path | None = None
    messages: list[str] = field(default_factory=list)


def clip_checkpoints(config: ExperimentConfig, stage_agents: list[str]) -> list[str]:
    """The open_clip checkpoint names (Table 5 spelling or ``model/tag``) of the CLIP agents in use."""
    out = []
    for name in stage_agents:
        spec = config.agent(name).spec
        if spec.startswith("clip:") and not spec.startswith("clip:hf-hub:"):
            out.append(spec.split(":", 1)[1])
    return out


def check_agent_kinds(config: ExperimentConfig) -> None:
    """Every agent spec names a kind ``make_agent`` knows (checked before the run folder is touched)."""
    if config["tournament"].get("agent_factory") not in (None, "make_agent"):
        return  # a custom factory decides which specs it accepts
    known = available_agents()
    for spec in config.agents():
        try:
            kind = split_spec(spec.spec)[0]
        except ValueError as err:
            raise ValueError(f"{config.source}, field agents.{spec.name}.spec: {err}") from None
        if kind not in known:
            raise ValueError(
                f"{config.source}, field agents.{spec.name}.spec: unknown agent kind {kind!r}"
                f"{did_you_mean(kind, known)}; expected one of {', '.join(known)}"
            )


def preflight(config: ExperimentConfig) -> None:
    """Refuse to start when weights are missing, instead of downloading (or hanging) mid-run."""

    used = (
        {n for lineup in config["lineups"] for n in lineup}
        if config["tournament"].get("enabled", True)
        else set()
    )
    if config["wordlevel"].get("enabled", True):
        used |= {a.name for a in config.wordlevel_agents()}
    check_agent_kinds(config)
    humans = (config["humans"] or {}).get("path")
    if humans and not Path(humans).is_file():
        what = "is a folder" if Path(humans).is_dir() else "no such file"
        raise ValueError(
            f"{config.source}, field humans.path: {humans}: {what} (expected a human-response export)"
        )
    if any(learned_spec(a.spec) for a in config.agents()):
        check_references(config, _load_humans(config))  # a policy never scored on its training answers
    names = clip_checkpoints(config, sorted(used))
    if names and config["weights"].get("required", True):
        weights.require_weights(names, config["weights"].get("dir"))


def _progress(enabled: bool):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description:>9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        disable=not enabled,
        transient=False,
    )


def run_experiment(
    config: ExperimentConfig,
    *,
    backend: Any = None,
    fresh: bool = False,
    progress: bool = True,
    wandb_mode: str | None = None,
) -> ExperimentResult:
    """Run (or resume) everything the config asks for and write the report into the run folder.

    Downloads are switched off (``HF_HUB_OFFLINE``) while it runs unless ``weights.offline`` is false.
    """

    start = time.perf_counter()
    config = evaluation_default(
        config
    )  # a learned agent's tournament: its split's evaluation part by default
    preflight(config)
    with offline_env(bool(config["weights"].get("offline", True))):
        return _run(config, start, backend, fresh, progress, wandb_mode, make_backend)


def _run(
    config: ExperimentConfig,
    start: float,
    backend: Any,
    fresh: bool,
    progress: bool,
    wandb_mode: str | None,
    make_backend: Any,
) -> ExperimentResult:

    mode = requested_mode(wandb_mode, config["wandb"].get("mode", "disabled"))
    run_dir = prepare_run_dir(config, fresh=fresh)
    own_backend = backend is None
    if own_backend:
        b = config["backend"]
        backend = make_backend(
            b.get("name", "inprocess"), b.get("address"), b.get("num_cpus"), b.get("num_workers")
        )
    w = config["wandb"]
    tracker = Tracker(
        mode,
        project=w.get("project") or "huesenv",
        entity=w.get("entity"),
        run_dir=run_dir,
        config=config.data,
        name=config.name,
        run_id=config.run_id,
    )
    try:
        stages: list[StageResult] = []
        games_state = words_state = LogState()
        try:
            with _progress(progress) as bar:
                if config["tournament"].get("enabled", True) and config["lineups"] and config["games"]:
                    on_game = _game_logger(config, run_dir, tracker)
                    result, games_state = run_games(config, backend, run_dir, progress=bar, on_game=on_game)
                    stages.append(result)
                if config["wordlevel"].get("enabled", True) and config.wordlevel_agents():
                    result, words_state = run_wordlevel(config, backend, run_dir, progress=bar)
                    stages.append(result)
        finally:
            if own_backend:
                backend.close()

        data = build_report_data(
            config, run_dir, games_state, words_state, stages, backend_name=getattr(backend, "name", "?")
        )
        reports = write_report(data, run_dir, formats=config["report"].get("formats", ("markdown", "html")))
        track(tracker, run_dir, data, config.name)
        wandb_dir, sync = tracker.run_path, tracker.sync_command()
    finally:
        tracker.finish()
    messages = [s.message() for s in stages]
    if sync:
        messages.append(f"W&B offline run saved; upload it with: {sync}")
    return ExperimentResult(
        run_dir, stages, reports, data.tables, time.perf_counter() - start, wandb_dir, messages
    )


def _game_logger(config: ExperimentConfig, run_dir: Path, tracker: Any) -> Any:
    """The per-game callback of :func:`run_games` for a live W&B run (None when not tracking).

    Games already in the log (a resumed run) are logged first, in plan order, so every W&B run of
    an experiment has one history step per game.
    """
    if not tracker.active:
        return None

    plan = {u.game: u for u in plan_games(config)}

    def by_agent(game: int, scores: dict[str, int]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for seat, agent in plan[game].seat_map().items():
            out.setdefault(agent, []).append(float(scores.get(seat, 0)))
        return out

    done = read_log_state(run_dir / GAMES_LOG).units
    for game in sorted(plan):
        recs = done.get(f"game:{game}")
        if recs:
            scores: dict[str, int] = {}
            for rec in recs:
                player = rec.extra.get("player")
                if player is not None:
                    scores[player] = scores.get(player, 0) + int(rec.extra.get("points") or 0)
            tracker.log_game(game, by_agent(game, scores))

    def on_game(game: int, scores: dict[str, int]) -> None:
        tracker.log_game(game, by_agent(game, scores))

    return on_game


def track(tracker: Any, run_dir: Path, data: Any, name: str) -> None:
    """Everything but the per-game history: tables, summary scalars, figures, boards, the artifact."""
    if not tracker.active:
        return
    tracker.log_tables(data.tables)
    tracker.log_summary(data.tables)
    ids = {
        str(a) for t in data.tables.values() for a in t.get("agent_id", t.get("agent", pd.Series())).dropna()
    }
    tracker.log_reference(data.humans, sorted(ids))
    tracker.log_plots(data.plots)
    tracker.log_images(data.boards)
    tracker.log_artifact(run_dir, name)


def _skipped_note(word_df: pd.DataFrame, what: str) -> tuple[list[str], list[tuple[str, str]], float]:
    """For the words the metrics skipped for lack of human answers: a short summary line, the full
    ``WORD (n)`` list as a folded detail, and the share of the words that were skipped (none: nothing)."""
    skipped = skipped_words(word_df)
    if skipped.empty:
        return [], [], 0.0
    words = {str(w) for w in word_df["word"]} if "word" in word_df else set()
    total = len(words | set(map(str, skipped["word"]))) or len(skipped)
    minimum = int(skipped["min_human_answers"].iloc[0])
    names = ", ".join(f"{w} ({n})" for w, n in zip(skipped["word"], skipped["n_human"]))
    line = (
        f"{what}: {len(skipped)} of {total} word(s) not scored by Mahalanobis/Hotelling (fewer than "
        f"{minimum} human answers each; listed below the summary and in the per-word table)"
    )
    return (
        [line],
        [(f"{what}: the {len(skipped)} words not scored (human answers)", names)],
        len(skipped) / total,
    )


def _scoring_banner(skipped_shares: dict[str, float]) -> str:
    """One warning at the top when most words could not be scored: every table then covers few words."""
    worst = {what: share for what, share in skipped_shares.items() if share > 0.5}
    if not worst:
        return ""
    parts = ", ".join(f"{what} {share:.0%}" for what, share in worst.items())
    return (
        f"Most words could not be scored ({parts} of the words have too few human answers): the "
        "alignment tables below rest on the few words that could; add human answers before reading them."
    )


def _load_humans(config: ExperimentConfig) -> Any:
    return load_humans(config["humans"].get("path"), cvd=config["humans"].get("cvd"))


def build_report_data(
    config: ExperimentConfig,
    run_dir: Path,
    games: LogState,
    words: LogState,
    stages: list[StageResult],
    backend_name: str = "",
) -> Any:
    """Tables, plots and board images from the logs (the same whether the run was resumed or not)."""

    plots_dir = run_dir / "plots"
    plots_dir.mkdir(exist_ok=True)
    m = config["metrics"]
    alpha, top_k = float(m.get("alpha", 0.05)), int(m.get("top_k", 5))
    tables: dict[str, pd.DataFrame] = {}
    captions: dict[str, str] = {}
    plots: dict[str, Path] = {}
    boards: dict[str, Path] = {}
    summary: list[str] = []
    details: list[tuple[str, str]] = []
    skipped_shares: dict[str, float] = {}
    seed = int(config["seed"])
    humans = _load_humans(config)
    human_ref = HumanReference.of(humans)
    plan = plan_games(config)
    planned = {u.game for u in plan}
    game_records = [r for k, recs in games.units.items() if int(k.split(":")[1]) in planned for r in recs]
    if game_records:
        seats = seat_assignment(plan)
        frame = analysis.seat_games(game_records, seats)
        lb = uncertainty.add_leaderboard_intervals(analysis.leaderboard(frame), frame, seed=seed)
        specs = {a.name: a.spec for a in config.agents()}
        lb.insert(2, "agent_id", lb["agent"].map(specs))  # the spec says which rows are self-scored
        tables["leaderboard"] = lb
        captions["leaderboard"] = (
            "Points per game (higher is better): mean over seat-games with a 95 % bootstrap interval over "
            "games (standard errors are in tables/leaderboard.csv), split by role. Win rate (higher is "
            "better) = share of the agent's seat-games with the game's highest total, ties shared, with a "
            "Wilson interval over games; with agents of equal strength it is 1/players for everyone. The "
            "team win rate of an agent holding several seats (the replayed humans) is the share of games "
            "any of its seats won: not comparable with a one-seat agent's win rate. Points vs the reference "
            "players: the mean per-game difference to the replayed humans in the games both sat in."
        )
        plots["leaderboard"] = figures.plot_leaderboard(lb, plots_dir / "leaderboard.png")
        tables["lineups"] = uncertainty.lineup_breakdown(frame, config["lineups"], seed=seed)
        captions["lineups"] = (
            "The leaderboard per lineup (seat order of the lineup's first game): points per game "
            "(higher is better) with a 95 % bootstrap interval over that lineup's games, and win rates as "
            "in the leaderboard (per seat, and per team for agents holding several seats; Wilson intervals)."
        )
        tables["points_by_role"] = uncertainty.add_role_intervals(analysis.points_by_role(frame), frame, seed)
        tables["seat_games"] = frame  # written to tables/ for `huesenv leaderboard`; not shown
        h2h = uncertainty.add_head_to_head_tests(analysis.head_to_head(frame), frame, seed=seed)
        tables["head_to_head"] = h2h
        tables["leaderboard"] = report.versus_reference(lb, h2h, human_ref)
        captions["head_to_head"] = (
            "Every pair of agents that sat in the same game: mean point difference "
            "(agent − opponent) over their pairings with a 95 % bootstrap interval over the shared games, "
            "the agent's share of those pairings won (ties ½), and a paired test of the per-game "
            "differences (Wilcoxon signed-rank; p adjusted by Benjamini–Hochberg across pairs)."
        )
        if not h2h.empty:
            plots["head_to_head"] = figures.plot_head_to_head(
                analysis.head_to_head_matrix(h2h), plots_dir / "head_to_head.png"
            )
        align = analysis.guess_alignment(game_records, humans, seats, alpha=alpha, top_k=top_k)
        if align:
            tables["guess_alignment"] = uncertainty.add_rate_intervals(align["agent"], align["word"], seed)
            captions["guess_alignment"] = (
                "Each agent's first cones (placed after the one-word cue 1) as "
                "word→cell answers, scored against the human cohort "
                "(huesenv.metrics.word_level / agent_level), 95 % bootstrap intervals over words. "
                "Fail rates: lower is better. Replayed humans are "
                "scored against the cohort they are drawn from: an optimistic "
                "reference, not leave-one-out."
            )
            tables["guess_alignment_words"] = align["word"]
            lines, folded, skipped_shares["guess alignment"] = _skipped_note(align["word"], "guess alignment")
            summary.extend(lines)
            details.extend(folded)
            p = figures.plot_alignment(
                align["word"],
                plots_dir / "guess_alignment.png",
                "First-cone answers: Mahalanobis top-1 fail rate by category",
            )
            if p:
                plots["guess_alignment"] = p
        n_games = len({int(r.extra["game"]) for r in game_records})  # game_step records (GameStep.game)
        summary.append(
            f"Games: {n_games} games of {len(config['lineups'])} lineup(s), {len(frame)} seat-games, "
            f"{len(game_records)} logged steps (log: {run_dir.name}/games.jsonl)"
        )
        summary.extend(fallback_lines(game_records))
        for k in range(int(config["report"].get("board_images", 0) or 0)):
            if k >= len(plan):
                break
            unit = plan[k]
            recs = games.units.get(f"game:{unit.game}")
            if recs:
                try:
                    img = report.board_image(
                        recs, plots_dir / f"board_game{unit.game}.png", title=f"game {unit.game}"
                    )
                except Exception as err:  # a renderer problem must not lose the report
                    summary.append(f"board image of game {unit.game} skipped: {err}")
                    img = None
                if img:
                    boards[f"Game {unit.game} ({', '.join(unit.seats)}), last reveal"] = img
    if words.units:
        scored = score_wordlevel(
            words.records(), humans, alpha=alpha, top_k=int(config["wordlevel"]["top_k"])
        )
        if "agent" in scored:
            tables["wordlevel_agents"] = uncertainty.add_rate_intervals(
                scored["agent"], scored.get("word"), seed
            )
            captions["wordlevel_agents"] = (
                "The paper's word-level evaluation: every agent on the 100 words "
                f"(top-{config['wordlevel']['top_k']}), scored by huesenv.metrics; "
                "95 % bootstrap intervals over words. Fail rates: lower is better (see How to read this "
                "report). Human fail rate (LOO) is people's own rate on the words that agent was scored "
                "on, so it differs a little between rows whose scored words differ."
            )
        if "category" in scored:
            tables["wordlevel_categories"] = scored["category"]
            captions["wordlevel_categories"] = (
                "Per agent and semantic category: the share of the category's words that fail "
                "(lower is better), with Wilson 95 % intervals over words; human fail rate (LOO) is "
                "people's own rate on the same words."
            )
        if "nonsense" in scored:
            tables["wordlevel_nonsense"] = scored["nonsense"]
        if "word" in scored:
            tables["wordlevel_words"] = scored["word"]
            lines, folded, skipped_shares["word level"] = _skipped_note(
                scored["word"], "word-level evaluation"
            )
            summary.extend(lines)
            details.extend(folded)
            p = figures.plot_alignment(
                scored["word"],
                plots_dir / "wordlevel.png",
                "Word-level evaluation: Mahalanobis top-1 fail rate by category",
            )
            if p:
                plots["wordlevel_agents"] = p
        summary.append(
            f"Word level: {len(words.units)} agent(s) × {len(words.records()) // max(len(words.units), 1)}"
            f" inputs (log: {run_dir.name}/wordlevel.jsonl)"
        )
    summary.insert(0, f"Human reference: {human_ref.label}")
    learned = {a.name: a.spec for a in config.agents() if learned_spec(a.spec)}
    if learned:
        summary[1:1] = check_references(config, humans, learned) + training_labels(learned)
        mark_trained_on(
            tables, overlaps(learned, humans), unknown_training(learned)
        )  # labelled in every table
    summary.append("This invocation: " + "; ".join(s.message() for s in stages) if stages else "")
    summary.append(f"Backend: {backend_name}; run id {config.run_id}; seed {config['seed']}")
    if config.data.get("allow_code"):
        code_agents = [
            f"{name} ({', '.join(keys)})"
            for name in sorted(config.data["agents"])
            if (keys := code_kwargs(dict(config.agent(name).kwargs)))
        ]
        summary.append(
            "allow_code: this run was started with --allow-code; tournament.agent_factory/play_fn ran "
            f"{config['tournament'].get('agent_factory')!r} / {config['tournament'].get('play_fn')!r}"
            + (f"; agents loading code from their files: {', '.join(code_agents)}" if code_agents else "")
            + "; policy zips with pickled classes may be unpickled"
        )
    data = report.ReportData(
        title=f"huesenv {'tournament' if config['tournament'].get('enabled') else 'wordlevel'}: {config.name}",
        config_yaml=config.masked_yaml(),  # by key and by value (write_report masks its text again)
        summary=[s for s in summary if s],
        tables=tables,
        captions=captions,
        plots=plots,
        boards=boards,
        methods=uncertainty.METHODS,
        banner=_scoring_banner(skipped_shares),
        details=details,
        humans=human_ref.as_dict(),
        metadata=provenance.run_metadata(config),
    )
    add_training_section(data, {a.name: a.spec for a in config.agents()}, plots_dir)
    report.add_reference_check(data, humans)
    add_displays_section(data, run_dir)
    return data
