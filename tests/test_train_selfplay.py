"""Self-play on a tiny budget: the full game, the files, the lexicon outputs, and the policy playing both roles."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.protocol import CueQuery, GuessQuery  # noqa: E402
from huesenv.envs.hues_cues.play import play_game  # noqa: E402
from huesenv.experiments.rl.selfplay import (  # noqa: E402
    SelfPlay,
    SelfPlayConfig,
    cue1_allowed,
    selfplay_vocabulary,
    train_selfplay,
)


def tiny(**kw) -> SelfPlayConfig:
    base = dict(
        total_games=4 * 64,
        num_games=64,
        hidden=16,
        snapshot_every=2,
        checkpoint_every=2,
        device="cpu",
        torch_threads=1,
    )
    base.update(kw)
    return SelfPlayConfig(**base)


def test_vocabularies_and_rules():
    assert len(selfplay_vocabulary("words")) == 100
    both = selfplay_vocabulary("words+nonsense")
    assert len(both) == 116 and "ZIZAX" in both
    allowed = cue1_allowed(both)
    assert allowed.dtype == bool and allowed.shape == (116,)
    with pytest.raises(ValueError, match="vocabulary: expected one of"):
        SelfPlayConfig(vocabulary="all")


def test_tiny_selfplay_run_writes_lexicon_and_a_two_role_policy(tmp_path):
    summary = train_selfplay(tiny(), tmp_path, progress=False, figure=False)
    assert summary["games"] == 256 and summary["updates"] == 4
    lex = json.loads((tmp_path / "lexicon.json").read_text())
    for key in (
        "words_used",
        "mahalanobis_fail_rate",
        "null_fail_rate_mean",
        "nmi_macro_colour",
        "colour_match_rate",
    ):
        assert key in lex
    history = (tmp_path / "lexicon_history.csv").read_text().splitlines()
    assert len(history) == 1 + 3  # step 0, 128, 256
    agent = make_agent(f"policy:{tmp_path / 'policy.pt'}")
    assert agent.settings.role == "selfplay"
    vocab = agent.vocabulary
    ans = agent.act(CueQuery(card=(1, 2, 3, 4), target=None, vocabulary=vocab))
    assert ans.target in (1, 2, 3, 4) and ans.cue in vocab
    guess = agent.act(GuessQuery(cues=(ans.cue,)))
    assert 0 <= guess.cell < 480


def test_selfplay_resume_matches_an_uninterrupted_run(tmp_path):
    train_selfplay(tiny(), tmp_path / "a", progress=False, figure=False)
    train_selfplay(tiny(total_games=2 * 64), tmp_path / "b", progress=False, figure=False)
    train_selfplay(tiny(), tmp_path / "b", progress=False, figure=False)
    from huesenv.agents.policy_net import load_checkpoint

    a, b = load_checkpoint(tmp_path / "a" / "policy.pt"), load_checkpoint(tmp_path / "b" / "policy.pt")
    for kind in ("speaker", "guesser"):
        sa, sb = a.nets[kind].state_dict(), b.nets[kind].state_dict()
        assert all(torch.equal(sa[k], sb[k]) for k in sa), kind


@pytest.mark.integration
def test_selfplay_figure(tmp_path):
    train_selfplay(tiny(vocabulary="words+nonsense"), tmp_path, progress=False, figure=True)
    assert (tmp_path / "lexicon.png").stat().st_size > 10_000


def test_full_game_rounds_score_as_the_rules_and_rotate_the_cue_giver():
    cfg = tiny(num_games=32, guessers=2, vocab_size=4)  # 3 players: 6 rounds per game
    sp = SelfPlay(cfg, "cpu")
    gen = sp.begin_segment(0)
    g = sp.rounds.game
    givers, finished = [], 0.0
    for u in range(7):
        givers.append(int(np.asarray(g.giver)[0]))
        n = sp.train_step(u, gen)
        finished += n["games_finished"]
        # frame reward: the sampled cones' training points are the board's points the vector game scored
        assert n["points"] == pytest.approx(n["game_points"]) and n["illegal"] == 0.0 and n["warmup"] == 0.0
        assert n["words_sampled"] <= 4
    assert (
        givers == [0, 1, 2, 0, 1, 2, 0] and finished == 32
    )  # six rounds, then every game ended and restarted
    used = np.asarray(g.used).any(0)  # words said (unique_cues off: the same 4 may come back every round)
    assert set(np.flatnonzero(used)) <= set(np.flatnonzero(sp.allowed.numpy()))


def test_perceptual_reward_is_not_the_board_points_and_warmup_is_the_one_step_round():
    sp = SelfPlay(tiny(num_games=32, reward="perceptual", warmup_updates=1), "cpu")
    gen = sp.begin_segment(0)
    first = sp.train_step(0, gen)
    assert first["warmup"] == 1.0 and "game_points" not in first
    gen = sp.begin_segment(1)
    n = sp.train_step(1, gen)
    assert n["warmup"] == 0.0 and n["points"] > n["game_points"]  # 3·exp(-ΔE²/2σ²) credits near misses


def test_config_refuses_what_the_game_cannot_play():
    with pytest.raises(ValueError, match="guessers: expected 2-9"):
        SelfPlayConfig(guessers=1)
    with pytest.raises(ValueError, match="target_choice: expected one of"):
        SelfPlayConfig(target_choice="best")


def test_selfplay_policy_plays_every_seat_of_an_aec_game_and_tables_name_the_humans(tmp_path):
    summary = train_selfplay(tiny(target_choice="card-random"), tmp_path, progress=False, figure=False)
    assert summary["env_id"] == "huesenv/SelfPlay-v1" and "not people" in summary["human_reference"]
    for table in ("words", "regions", "wordlevel"):
        frame = pd.read_csv(tmp_path / f"lexicon_{table}.csv")
        assert (frame["human_reference"] == summary["human_reference"]).all(), table
    assert "human_reference" in pd.read_csv(tmp_path / "lexicon_history.csv")
    agents = {f"player_{i}": make_agent(f"policy:{tmp_path / 'policy.pt'}") for i in range(4)}
    result = play_game(agents, num_players=4, seed=3)
    assert len(result.rounds) == 8 and set(result.scores) == set(
        agents
    )  # every round, both roles, no refusal


def test_the_wandb_config_and_summary_name_the_human_reference(tmp_path):
    from types import SimpleNamespace

    from huesenv.experiments.rl.logger import TrainLogger

    class Config(dict):
        def update(self, values, allow_val_change=False):  # wandb's signature
            super().update(values)

    logger = TrainLogger(tmp_path, tracker="none", quiet=True)
    run = SimpleNamespace(config=Config(), summary={}, log=lambda values, step: None)
    logger._tracker = SimpleNamespace(run=run, finish=lambda: None)
    train_selfplay(tiny(total_games=64), tmp_path, logger=logger, progress=False, figure=False)
    assert (
        "not people" in run.config["human_reference"]
        and run.summary["human_reference"] == run.config["human_reference"]
    )


def test_unique_cues_needs_words_for_a_whole_game_and_sigma2_is_finite():
    # 4 players: 8 rounds x 2 cues = 16 fresh words a game; 4 cannot last (the game used to crash on NaN logits)
    with pytest.raises(ValueError, match=r"unique_cues, vocab_size: .*needs at least 16 words.*gives 4"):
        SelfPlayConfig(unique_cues=True, vocab_size=4)
    with pytest.raises(ValueError, match="perceptual_sigma2"):
        SelfPlayConfig(perceptual_sigma2=float("inf"))
    sp = SelfPlay(tiny(num_games=16, guessers=2, vocab_size=12, unique_cues=True), "cpu")  # 6 rounds x 2
    gen = sp.begin_segment(0)
    finished = 0.0
    for u in range(7):  # a whole game and the first round of the next
        n = sp.train_step(u, gen)
        assert n["illegal"] == 0.0 and np.isfinite(n["points"])
        finished += n["games_finished"]
    assert finished == 16
