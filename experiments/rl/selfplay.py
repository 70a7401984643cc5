"""``huesenv train selfplay``: a cue giver and guessers learn to play the full game together from scratch,
with no human data.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.selfplay``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import Field, model_validator

from huesenv.agents.policy_net import (
    PolicySettings,
    build_guesser_net,
    build_speaker_net,
    check_settings,
    guesser_forward,
    load_checkpoint,
    save_checkpoint,
    speaker_forward,
)
from huesenv.board import format_coord, load_board
from huesenv.experiments.rl.harness import (
    Clock,
    NonNegativeFloat,
    PositiveFloat,
    TimeBudget,
    TrainerConfig,
    load_state,
    positive,
    require,
    save_state,
    start_run,
    write_csv,
    write_json,
    write_summary,
)
from huesenv.experiments.rl.lexicon import lexicon_metrics
from huesenv.experiments.rl.lexicon_plots import plot_lexicon
from huesenv.experiments.rl.logger import TrainLogger
from huesenv.experiments.rl.ppo_fast import segment_seed
from huesenv.experiments.rl.selfplay_game import CUES_PER_ROUND, TARGET_CHOICES, GameRounds
from huesenv.game.rules import DEFAULT_RULES
from huesenv.humans import REFERENCE_COLUMN, HumanReference, load_humans
from huesenv.vocabulary import evaluation_inputs, word_texts

ENV_ID = "huesenv/SelfPlay-v1"  # v0: the one-step round only (before the full game)
VOCABULARIES = ("words", "words+nonsense")
REWARDS = ("frame", "perceptual")


class SelfPlayConfig(TrainerConfig):
    total_games: int = 400_000
    num_games: int = 512
    guessers: int = 3
    vocabulary: str = "words"
    learning_rate: PositiveFloat = 1e-2
    # 0.05: with 0.01 the speaker collapsed to one word under the frame reward on the full game
    ent_coef_speaker: NonNegativeFloat = 0.05
    ent_coef_listener: NonNegativeFloat = 0.003
    vf_coef: NonNegativeFloat = 0.5
    max_grad_norm: PositiveFloat = 0.5
    hidden: int = 128
    checkpoint_every: int = 50
    snapshot_every: int = 50
    vocab_size: int | None = None
    reward: str = "frame"
    perceptual_sigma2: PositiveFloat = 64.0
    target_choice: str = "speaker"
    unique_cues: bool = False
    warmup_updates: Annotated[int, Field(ge=0)] = 0

    RESUME_FIXED: ClassVar[tuple[str, ...]] = (
        "num_games",
        "guessers",
        "vocabulary",
        "hidden",
        "seed",
        "checkpoint_every",
        "vocab_size",
        "reward",
        "perceptual_sigma2",
        "target_choice",
        "unique_cues",
        "warmup_updates",
    )

    @model_validator(mode="after")
    def _check(self) -> SelfPlayConfig:
        if self.vocabulary not in VOCABULARIES:
            raise ValueError(f"vocabulary: expected one of {VOCABULARIES}, got {self.vocabulary!r}")
        if self.reward not in REWARDS:
            raise ValueError(f"reward: expected one of {REWARDS}, got {self.reward!r}")
        if self.vocab_size is not None and int(self.vocab_size) < 1:
            raise ValueError(f"vocab_size: expected a positive integer or null, got {self.vocab_size!r}")
        if not float(self.perceptual_sigma2) > 0:
            raise ValueError(f"perceptual_sigma2: expected a positive number, got {self.perceptual_sigma2!r}")
        if self.target_choice not in TARGET_CHOICES:
            raise ValueError(f"target_choice: expected one of {TARGET_CHOICES}, got {self.target_choice!r}")
        if not 2 <= int(self.guessers) <= 9:
            raise ValueError(f"guessers: expected 2-9 (3-10 players), got {self.guessers!r}")
        for name in ("total_games", "num_games", "hidden", "checkpoint_every", "snapshot_every"):
            positive(name, getattr(self, name))
        if self.unique_cues:  # every cue of a game a fresh word: the vocabulary must last a whole game
            players = int(self.guessers) + 1
            rounds = DEFAULT_RULES.num_rounds(players)
            need = rounds * CUES_PER_ROUND
            have = int(cue1_allowed(selfplay_vocabulary(self.vocabulary)).sum())
            if self.vocab_size is not None:
                have = min(have, int(self.vocab_size))
            if have < need:
                raise ValueError(
                    f"unique_cues, vocab_size: unique_cues=true needs at least {need} words "
                    f"({rounds} rounds x {CUES_PER_ROUND} cues in a game of {players} players), "
                    f"vocab_size={self.vocab_size} gives {have}"
                )
        return self

    @property
    def num_updates(self) -> int:
        return max(1, int(self.total_games) // int(self.num_games))


def selfplay_vocabulary(kind: str) -> tuple[str, ...]:

    return tuple(word_texts()) if kind == "words" else tuple(w.text for w in evaluation_inputs())


def reward_matrices(cfg: SelfPlayConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(480, 480)`` guesser points and speaker credit per (target, guess).

    ``frame``: the rules' 3/2/1 points and the 3×3 frame.  ``perceptual``: a function of the CIELAB
    distance instead, ``k = exp(-ΔE²/(2 σ²))`` (ΔE = CIE 1976 distance, ``σ² = perceptual_sigma2``, by
    default the IB meanings' 64): the guesser gets ``3 k`` (so the scale matches the grid's points),
    the speaker ``k`` per cone — so a study can tell whether the grid or perception shapes the lexicon."""
    if cfg.reward == "frame":
        return np.array(DEFAULT_RULES.points_matrix, dtype=np.float64), np.array(
            DEFAULT_RULES.in_frame_matrix, dtype=np.float64
        )
    lab = np.asarray(load_board().lab, dtype=np.float64)
    d2 = ((lab[:, None, :] - lab[None, :, :]) ** 2).sum(-1)
    k = np.exp(-d2 / (2.0 * float(cfg.perceptual_sigma2)))
    return 3.0 * k, k


def cue1_allowed(vocabulary: tuple[str, ...], rules: Any = None) -> np.ndarray:
    """Which words the rules allow as cue 1 (basic colour names and the like are not)."""

    rules = rules or DEFAULT_RULES
    return np.array([rules.cue_problem(w, 1) is None for w in vocabulary], dtype=bool)


class SelfPlay:
    """Networks, optimiser and one vectorised round (see the module docstring)."""

    def __init__(self, cfg: SelfPlayConfig, device: str) -> None:
        import torch

        self.cfg, self.device = cfg, device
        self.vocabulary = selfplay_vocabulary(cfg.vocabulary)
        allowed = cue1_allowed(self.vocabulary)
        if cfg.vocab_size is not None:  # the first vocab_size words the rules allow; the rest are never said
            allowed &= np.cumsum(allowed) <= int(cfg.vocab_size)
        self.allowed = torch.as_tensor(allowed, device=device)
        self.archs = {
            "speaker": {"vocab_size": len(self.vocabulary), "hidden": cfg.hidden},
            "guesser": {"vocab_size": len(self.vocabulary), "hidden": cfg.hidden},
        }
        torch.manual_seed(cfg.seed)
        self.speaker = build_speaker_net(**self.archs["speaker"]).to(device)
        self.listener = build_guesser_net(**self.archs["guesser"]).to(device)
        points, in_frame = reward_matrices(cfg)
        self.points = torch.as_tensor(points, dtype=torch.float32, device=device)
        self.in_frame = torch.as_tensor(in_frame, dtype=torch.float32, device=device)
        params = list(self.speaker.parameters()) + list(self.listener.parameters())
        self.params = params
        self.optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
        self.rounds = GameRounds(self)

    def begin_segment(self, update: int) -> Any:
        """Reseed torch, the sampler and the games from ``(seed, update)``: a resumed run continues as the
        uninterrupted one (games restart at each segment, so a segment is a whole number of fresh games)."""
        import torch

        seed = segment_seed(self.cfg.seed, update)
        generator = torch.Generator(device=self.device)
        generator.manual_seed(seed)
        torch.manual_seed(seed ^ 0x5EED)
        self.rounds.reset(seed)
        return generator

    def train_step(self, update: int, generator: Any) -> dict[str, float]:
        """One update: the one-step warm-up round while ``update < warmup_updates``, else a round of the game."""
        if update < self.cfg.warmup_updates:
            return {**self.round(generator), "warmup": 1.0}
        return {**self.rounds.round(generator), "warmup": 0.0}

    def settings(self) -> PolicySettings:
        return PolicySettings(
            env_id=ENV_ID,
            role="selfplay",
            cue_encoding="index",
            observation_mode="vector-dict",
            vocabulary=self.vocabulary,
            extra={
                "guessers": self.cfg.guessers,
                "vocabulary_kind": self.cfg.vocabulary,
                "vocab_size": self.cfg.vocab_size,
                "reward": self.cfg.reward,
                "env": "game",
                "num_players": self.cfg.guessers + 1,
                "target_choice": self.cfg.target_choice,
                "unique_cues": self.cfg.unique_cues,
                "warmup_updates": self.cfg.warmup_updates,
            },
        )

    def speaker_logits(self, targets):

        logits, value = speaker_forward(self.speaker, targets)
        return logits.masked_fill(~self.allowed, float("-inf")), value

    def round(self, generator) -> dict[str, float]:
        """The one-step warm-up round (uniform target, cue 1, the first cones; not the game): play
        ``num_games`` of them, take one gradient step on both networks; return the round's numbers."""
        import torch
        import torch.nn as nn

        cfg, B, G = self.cfg, self.cfg.num_games, self.cfg.guessers
        targets = torch.randint(0, 480, (B,), device=self.device, generator=generator)
        s_logits, s_value = self.speaker_logits(targets)
        s_dist = torch.distributions.Categorical(logits=s_logits)
        words = s_dist.sample()
        occupied = torch.zeros((B, 480), dtype=torch.bool, device=self.device)
        rows = torch.arange(B, device=self.device)
        pts_t, frame_t = self.points[targets], self.in_frame[targets]  # (B, 480) each
        exp_points, exp_frame, l_ent, g_points = [], [], [], []
        for _ in range(G):
            logits, _ = guesser_forward(self.listener, words, occupied)
            probs = torch.softmax(logits.masked_fill(occupied, float("-inf")), dim=-1)
            exp_points.append((probs * pts_t).sum(-1))
            exp_frame.append((probs * frame_t).sum(-1))
            l_ent.append(-(probs * torch.log(probs.clamp_min(1e-12))).sum(-1))
            with torch.no_grad():
                cells = torch.multinomial(probs.detach(), 1, generator=generator).squeeze(-1)
            g_points.append(self.points[targets, cells])
            occupied = occupied.clone()
            occupied[rows, cells] = True
        g_points_t = torch.stack(g_points)  # (G, B) points of the sampled cones
        speaker_reward = torch.stack(exp_frame).sum(0).detach()  # (B,) expected cones in the frame
        s_adv = speaker_reward - s_value.detach()
        s_adv = (s_adv - s_adv.mean()) / (s_adv.std() + 1e-8)
        loss_speaker = (
            -(s_adv * s_dist.log_prob(words)).mean() - cfg.ent_coef_speaker * s_dist.entropy().mean()
        )
        loss_listener = -torch.stack(exp_points).mean() - cfg.ent_coef_listener * torch.stack(l_ent).mean()
        v_loss = 0.5 * ((speaker_reward - s_value) ** 2).mean()
        loss = loss_speaker + loss_listener + cfg.vf_coef * v_loss
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
        self.optimizer.step()
        return {
            "points": float(g_points_t.mean()),  # per guesser cone
            "expected_points": float(torch.stack(exp_points).mean().detach()),
            "speaker_points": float(speaker_reward.mean()),
            "hit_rate": float((g_points_t == 3).float().mean()),
            "speaker_entropy": float(s_dist.entropy().mean().detach()),
            "listener_entropy": float(torch.stack(l_ent).mean().detach()),
            "words_sampled": float(torch.unique(words).numel()),
        }

    # -- the lexicon now --------------------------------------------------------------------------------------------
    def lexicon(self) -> tuple[np.ndarray, np.ndarray]:
        """The speaker map ``(480,)`` (greedy word per cell) and the listener's ``(V, 480)`` cell distributions."""
        import torch

        with torch.no_grad():
            s_logits, _ = self.speaker_logits(torch.arange(480, device=self.device))
            V = len(self.vocabulary)
            empty = torch.zeros((V, 480), dtype=torch.bool, device=self.device)
            l_logits, _ = guesser_forward(self.listener, torch.arange(V, device=self.device), empty)
            probs = torch.softmax(l_logits, dim=-1)
        return s_logits.argmax(dim=1).cpu().numpy(), probs.cpu().numpy()

    def greedy_points(self) -> float:
        """Guesser points per cone when both play greedily, every cell a target once (one guesser)."""
        speaker, probs = self.lexicon()

        cells = np.argmax(probs[speaker], axis=1)
        return float(DEFAULT_RULES.points_matrix[np.arange(480), cells].mean())


def train_selfplay(
    cfg: SelfPlayConfig,
    run_dir: str | Path,
    *,
    humans: Any = None,
    logger: Any = None,
    resume: bool = True,
    progress: bool = True,
    figure: bool = True,
) -> dict[str, Any]:
    """Train (or resume) self-play; snapshots of the lexicon metrics; final metrics, tables and figure."""
    run_dir, device = start_run(run_dir, cfg)
    if humans is None:
        humans = load_humans()
    reference = HumanReference.of(humans)  # named in every lexicon table and in the summary
    game = SelfPlay(cfg, device)
    update, wall_before, cpu_before = 0, 0.0, 0.0
    state_path, policy_path = run_dir / "trainer_state.pt", run_dir / "policy.pt"
    history_path = run_dir / "lexicon_history.csv"
    if resume and state_path.exists():
        update, wall_before, cpu_before = _restore(state_path, policy_path, cfg, game, device)
    own_logger = logger is None
    if own_logger:
        logger = TrainLogger(run_dir, tracker="none", resume_step=update * cfg.num_games, quiet=not progress)
    named = {"human_reference": reference.description}  # W&B config and summary name the cohort too
    if hasattr(logger, "update_config"):
        logger.update_config(named)
    if hasattr(logger, "summary"):
        logger.summary(named)
    history = _read_history(history_path, update * cfg.num_games)
    _truncate_maps(run_dir / "lexicon_maps.csv", update * cfg.num_games)

    def snapshot(step: int) -> dict[str, Any]:
        speaker, probs = game.lexicon()
        values, tables = lexicon_metrics(speaker, probs, game.vocabulary, humans, seed=cfg.seed)
        row = {
            "step": step,
            "greedy_points": game.greedy_points(),
            **values,
            REFERENCE_COLUMN: reference.description,
        }
        history[:] = [r for r in history if int(r["step"]) != step]  # a resumed final snapshot: once
        history.append(row)
        write_csv(history_path, pd_frame(history))
        _append_map(run_dir / "lexicon_maps.csv", step, speaker, game.vocabulary)
        return {"row": row, "tables": tables, "speaker": speaker, "probs": probs}

    if update == 0 and not history:
        snapshot(0)
    clock = Clock(wall_before, cpu_before)
    budget = TimeBudget.of(cfg, clock)
    generator = None
    last = None
    while update < cfg.num_updates:
        if generator is None or update % cfg.checkpoint_every == 0 or update == cfg.warmup_updates:
            generator = game.begin_segment(update)
        numbers = game.train_step(update, generator)
        update += 1
        step = update * cfg.num_games
        wall = clock.wall
        numbers["games_per_s"] = step / max(wall, 1e-9)
        numbers["wall_s"] = wall
        done = update >= cfg.num_updates
        over = budget.exhausted()
        if update % cfg.snapshot_every == 0 or done or over:
            last = snapshot(step)
            numbers.update(
                {
                    k: last["row"][k]
                    for k in ("greedy_points", "words_used", "mahalanobis_fail_rate", "nmi_macro_colour")
                }
            )
        logger.log(step, numbers, force_print=done or over)
        if update % cfg.checkpoint_every == 0 or done or over:
            _save(run_dir, cfg, game, update, clock)
        if over and not done:
            break
    _save(run_dir, cfg, game, update, clock, state=False)  # policy.pt: an export of the state, always current
    if last is None:
        last = snapshot(update * cfg.num_games)
    wall, cpu = clock.wall, clock.cpu
    final = dict(last["row"])
    write_json(run_dir / "lexicon.json", final)
    _write_map(run_dir / "lexicon_map.csv", last["speaker"], game.vocabulary)
    for table in ("words", "regions", "wordlevel"):
        write_csv(run_dir / f"lexicon_{table}.csv", reference.annotate(last["tables"][table]))
    if figure:
        plot_lexicon(last["speaker"], last["probs"], game.vocabulary, humans, run_dir / "lexicon.png")
    summary = {
        "trainer": "selfplay",
        "env_id": ENV_ID,
        "games": update * cfg.num_games,
        "updates": update,
        "wall_s": wall,
        "cpu_s": cpu,
        "device": device,
        "stopped_by_time_budget": budget.stopped and update < cfg.num_updates,
        "lexicon": final,
        "human_reference": reference.description,
        "humans": reference.as_dict(),
        "config": cfg.to_dict(),
        "policy": str(policy_path),
    }
    summary = write_summary(run_dir, summary)
    if own_logger:
        logger.close()
    return summary


def _write_map(path: Path, speaker: np.ndarray, vocabulary: tuple[str, ...]) -> None:
    """``coord,word``: the speaker's greedy word for each cell (what ``lexicon:RUN_DIR`` reads)."""
    lines = ["coord,word"] + [f"{format_coord(c)},{_csv_text(vocabulary[w])}" for c, w in enumerate(speaker)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _append_map(path: Path, step: int, speaker: np.ndarray, vocabulary: tuple[str, ...]) -> None:
    """One snapshot of the speaker map per step in ``lexicon_maps.csv`` (``step,coord,word``)."""
    new = not path.exists()
    with open(path, "a", encoding="utf-8") as fh:
        if new:
            fh.write("step,coord,word\n")
        fh.writelines(f"{step},{format_coord(c)},{_csv_text(vocabulary[w])}\n" for c, w in enumerate(speaker))


def _truncate_maps(path: Path, before_step: int) -> None:
    """On resume, drop the snapshots taken after the checkpoint (they are taken again)."""
    if not path.exists():
        return
    if not before_step:
        path.unlink()
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = lines[:1] + [ln for ln in lines[1:] if int(ln.split(",", 1)[0]) <= before_step]
    path.write_text("".join(kept), encoding="utf-8")


def _csv_text(text: str) -> str:
    return f'"{text}"' if any(ch in text for ch in ',"\n') else text


def pd_frame(rows: list[dict[str, Any]]):
    import pandas as pd

    return pd.DataFrame(rows)


def _read_history(path: Path, before_step: int) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (
        ValueError,
        OSError,
    ) as err:  # empty or torn (pandas' EmptyDataError and ParserError are ValueErrors)
        raise ValueError(f"{path}: unreadable lexicon history ({type(err).__name__}); use --fresh") from None
    if "step" not in frame:
        raise ValueError(f"{path}: no 'step' column; use --fresh to start over")
    return frame[frame["step"] <= before_step].to_dict(orient="records") if before_step else []


def _save(
    run_dir: Path, cfg: SelfPlayConfig, game: SelfPlay, update: int, clock: Clock, state: bool = True
) -> None:
    """The trainer state (one atomic file: both networks, optimiser, counters), then ``policy.pt`` from it."""
    if state:
        save_state(
            run_dir / "trainer_state.pt",
            {
                "update": update,
                "wall_s": clock.wall,
                "cpu_s": clock.cpu,
                "config": cfg.to_dict(),
                "optimizer": game.optimizer.state_dict(),
                "nets": {
                    "speaker": {n: t.detach().cpu() for n, t in game.speaker.state_dict().items()},
                    "guesser": {n: t.detach().cpu() for n, t in game.listener.state_dict().items()},
                },
            },
        )
    train = {"games": update * cfg.num_games, "updates": update, "seed": cfg.seed, "trainer": "selfplay"}
    save_checkpoint(
        run_dir / "policy.pt",
        game.settings(),
        {"speaker": game.speaker, "guesser": game.listener},
        game.archs,
        train,
    )


STATE_KEYS = ("update", "wall_s", "cpu_s", "config", "optimizer")


def _restore(state_path: Path, policy_path: Path, cfg: SelfPlayConfig, game: SelfPlay, device: str):
    """Resume from ``trainer_state.pt`` alone; an older state without networks is cross-checked against
    ``policy.pt``'s recorded update (two halves of different checkpoints never mix)."""
    state = load_state(state_path, device)
    require(state, STATE_KEYS, state_path)
    cfg.check_resume(state["config"], state_path)
    if "nets" in state:
        speaker, listener = state["nets"].get("speaker"), state["nets"].get("guesser")
    else:
        ckpt = load_checkpoint(policy_path)
        check_settings(ckpt.settings, game.settings().to_dict(), source=f"resume {policy_path}")
        if int(ckpt.train.get("updates", -1)) != int(state["update"]):
            raise ValueError(
                f"{policy_path}: holds update {ckpt.train.get('updates')}, {state_path} update {state['update']} "
                "(a run interrupted between its two files); use --fresh to start over"
            )
        speaker, listener = ckpt.nets["speaker"].state_dict(), ckpt.nets["guesser"].state_dict()
    try:
        game.speaker.load_state_dict(speaker)
        game.listener.load_state_dict(listener)
        game.optimizer.load_state_dict(state["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{state_path}: does not fit this run ({str(err).splitlines()[0]})") from None
    return int(state["update"]), float(state["wall_s"]), float(state["cpu_s"])
