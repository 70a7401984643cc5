"""The Gymnasium and batched multi-agent APIs of the vectorised game, its logs, and the agent tables."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import huesenv  # noqa: F401  (registers the ids)
from huesenv.agents.vector_tables import human_replay_table, scoring_table, table_for
from huesenv.board import N_CELLS
from huesenv.cli import main
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.envs.vector_game.gym import HuesCuesVectorEnv, SelfPlayVectorEnv
from huesenv.envs.vector_game.opponents import TableOpponent
from huesenv.envs.vector_game.record import GameRecorder, write_game_logs
from huesenv.logs.io import read_records


@pytest.mark.parametrize(("env_id", "n_actions"), [("huesenv/Guesser-v1", 480), ("huesenv/CueGiver-v1", 581)])
def test_make_vec_returns_the_batched_full_game(env_id, n_actions):
    env = gymnasium.make_vec(env_id, num_envs=16, vectorization_mode="vector_entry_point", num_players=5)
    assert isinstance(env, HuesCuesVectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.single_action_space.n == n_actions
    obs, info = env.reset(seed=0)
    assert obs.shape == (16, env.single_observation_space.shape[0])
    assert env.observation_space.contains(obs)
    ends = 0
    for _ in range(120):
        mask = env.action_masks()
        assert mask.shape == (16, n_actions) and mask.any(1).all()
        actions = env.game.random_actions()
        obs, reward, terminated, truncated, info = env.step(actions)
        assert reward.shape == (16,) and not truncated.any()
        if terminated.any():
            ends += int(terminated.sum())
            i = int(np.flatnonzero(terminated)[0])
            assert info["_final_obs"][i] and info["final_obs"][i].shape == obs.shape[1:]
            assert info["final_info"]["scores"][i].sum() >= 0
    assert ends > 0


@pytest.mark.parametrize("role", ["guesser", "cue_giver"])
def test_reward_is_the_learners_points_in_its_role(role):
    env = HuesCuesVectorEnv(8, [3, 4, 7, 10] * 2, role=role, opponents=human_replay_table(), seed=1)
    env.reset(seed=1)
    total = np.zeros(8)
    checked = 0
    while checked < 24:
        _, r, term, _, info = env.step(env.game.random_actions())
        total += r
        for i in np.flatnonzero(term):
            assert total[i] == info["final_info"]["learner_points"][i]
            total[i] = 0
            checked += 1


def test_learner_turn_is_the_only_decision_handed_out():
    env = HuesCuesVectorEnv(32, [3, 6, 10, 7] * 8, role="cue_giver", seat=1, seed=2)
    env.reset(seed=2)
    for _ in range(50):
        g = env.game
        assert (g.current == 1).all() and (g.seat_role(g.rows) == 0).all()
        env.step(g.random_actions())


def test_illegal_learner_action_is_penalised_and_ends_the_game():
    env = HuesCuesVectorEnv(4, 4, role="guesser", seed=0)
    env.reset(seed=0)
    occupied = env.action_masks()[
        0
    ].argmin()  # a cell not legal now (if every cell is free, any occupied later)
    actions = env.game.random_actions()
    if env.action_masks()[0].all():
        env.step(actions)
        occupied = int(np.flatnonzero(~env.action_masks()[0])[0])
        actions = env.game.random_actions()
    actions[0] = occupied
    _, r, term, _, info = env.step(actions)
    assert term[0] and r[0] == -1.0 and info["final_info"]["illegal"][0]


def test_self_play_api_shapes_and_per_seat_rewards():
    env = SelfPlayVectorEnv(64, [3, 4, 5, 6, 7, 8, 9, 10] * 8, seed=3)
    ts = env.reset(seed=3)
    totals = np.zeros((64, 10))
    finished = 0
    while finished < 64:
        assert ts.observation.shape == (64, env.observation_space.shape[0])
        actions = env.game.random_actions()
        assert ts.action_mask[np.arange(64), actions].all()
        ts = env.step(actions)
        totals += ts.rewards
        for i in np.flatnonzero(ts.terminated):
            np.testing.assert_array_equal(totals[i], ts.final_scores[i])
            totals[i] = 0
            finished += 1


def test_embedding_cues_in_the_flat_observation():
    v = 100
    emb = np.random.default_rng(0).standard_normal((v, 8)).astype(np.float32)
    env = HuesCuesVectorEnv(4, 4, cue_encoding="embedding", cue_embeddings=emb, seed=0)
    obs, _ = env.reset(seed=0)
    off = env.encoder.offset["cues"]
    g = env.game
    word = int(g.cue[0, 0]) - 1
    np.testing.assert_allclose(obs[0, off : off + 8], emb[word] * 4.0)
    with pytest.raises(ValueError, match="cue_embeddings"):
        HuesCuesVectorEnv(4, 4, cue_encoding="embedding")


def test_table_opponents_from_agents():
    human = human_replay_table()
    assert human.pool.shape[0] == 100 and (human.pool >= 0).any(1).all()
    assert np.isfinite(human.cue_value).any(1).all()

    class Scores:  # a scoring agent: cell_scores + listener_logits
        agent_id = "fake-scores"

        def cell_scores(self, texts):
            rng = np.random.default_rng(len(texts))
            return rng.standard_normal((len(texts), N_CELLS))

        def listener_logits(self, scores):
            return 5.0 * scores

    t = scoring_table(Scores())
    assert t.guess_scores.shape == (100, N_CELLS) and np.isfinite(t.cue_value).all()
    assert table_for("random").name == "random"
    with pytest.raises(ValueError, match="table opponent"):
        table_for("vlm:x")
    env = HuesCuesVectorEnv(32, 4, opponents=human, seed=0)
    env.reset(seed=0)
    for _ in range(40):
        env.step(env.game.random_actions())


def test_vector_games_as_standard_logs(tmp_path, capsys):
    opp = TableOpponent("random")
    g = HuesCuesVectorGame(8, [3, 4, 9, 10] * 2, caller=[0], opponents=opp, seed=4)
    rec = GameRecorder(g, limit=6)
    g.reset(seed=4)
    while len(rec.finished) < 6:
        g.step(g.random_actions())
    path = tmp_path / "games.jsonl"
    assert write_game_logs(rec, path) == 6
    records = read_records(path).records
    reveal = [r for r in records if r.extra.get("phase") == "reveal"]
    by_game: dict[int, dict[str, int]] = {}
    for r in reveal:
        d = by_game.setdefault(r.extra["game"], {})
        d[r.extra["player"]] = d.get(r.extra["player"], 0) + r.extra["points"]
    for i, game in enumerate(rec.finished):
        assert [by_game[i][f"player_{s}"] for s in range(game.num_players)] == game.scores
    assert {r.agent_id for r in records} == {"caller", "random"}
    assert main(["logs", "check", str(path)]) == 0
    assert main(["replay", str(path), "--list"]) == 0
    out = capsys.readouterr().out
    assert "6 game(s)" in out
    json.loads(path.read_text().splitlines()[0])
