"""Bring your own sb3-contrib zip: ``MaskablePPO`` trained on the envs with default settings, saved with
``model.save`` (nothing stripped, no huesenv_settings), plays as ``policy:PATH`` with nothing hand-written,
and acts as sb3's own ``model.predict`` with the masks on the same observations."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from huesenv.cli import main

pytest.importorskip("sb3_contrib")


def _train(env_id: str, path: Path, **model_kwargs):
    import gymnasium
    from sb3_contrib import MaskablePPO

    import huesenv  # noqa: F401 - registers the env ids

    env = gymnasium.make(env_id, **model_kwargs.pop("env_kwargs", {}))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0, **model_kwargs)
    model.learn(32)
    model.save(str(path))
    return model, env


@pytest.fixture(scope="module")
def byo(tmp_path_factory):
    """A researcher's own zips: default MlpPolicy on Guesser-v1, a ReLU {pi, vf} net on CueGiver-v1."""
    import torch

    folder = tmp_path_factory.mktemp("byo")
    guesser = _train("huesenv/Guesser-v1", folder / "guesser.zip")
    cue_giver = _train(
        "huesenv/CueGiver-v1",
        folder / "cue_giver.zip",
        policy_kwargs={"activation_fn": torch.nn.ReLU, "net_arch": {"pi": [32], "vf": [16]}},
    )
    return {
        "guesser": (folder / "guesser.zip", *guesser),
        "cue_giver": (folder / "cue_giver.zip", *cue_giver),
    }


def test_the_zips_are_plain_model_saves(byo):
    import json

    for path, *_ in byo.values():
        data = json.loads(zipfile.ZipFile(path).read("data"))
        assert "huesenv_settings" not in data and "huesenv_human_data" not in data
    pk = json.loads(zipfile.ZipFile(byo["cue_giver"][0]).read("data"))["policy_kwargs"]
    assert ":serialized:" in pk  # the activation class made SB3 pickle it: read from its readable copy


@pytest.mark.parametrize("role", ["guesser", "cue_giver"])
def test_byo_zip_plays_a_game_as_sb3_predict_does(byo, role):
    from huesenv.agents import make_agent
    from huesenv.envs.hues_cues.adapters import answer_to_action, query_for

    path, model, env = byo[role]
    agent = make_agent(f"policy:{path}")
    s = agent.settings
    assert (s.role, s.env_id, s.cue_encoding, len(s.vocabulary)) == (
        role,
        "huesenv/Guesser-v1" if role == "guesser" else "huesenv/CueGiver-v1",
        "index",
        100,
    )
    assert s.extra["flat_cue_weight"] == 4.0 and s.extra["inferred"]
    agent.check_env(env)  # the inferred settings agree with the env's own
    base = env.unwrapped
    for seed in (1, 2):
        obs, _ = env.reset(seed=seed)
        done, steps = False, 0
        while not done:
            mask = base.action_masks()
            theirs = int(model.predict(obs, action_masks=mask, deterministic=True)[0])
            query = query_for(base.game, base.learner)
            answer = agent.act(query)
            decision = answer_to_action(answer, query, base.game.action_mask(base.learner), base.game.layout)
            assert decision.valid and decision.action == theirs, (seed, steps, query)
            obs, _, term, trunc, _ = env.step(decision.action)
            done, steps = term or trunc, steps + 1
        assert steps >= 2


def test_byo_zip_activation_is_read_from_the_readable_copy(byo):
    from huesenv.agents.sb3_zip import load_sb3_policy

    policy = load_sb3_policy(byo["cue_giver"][0]).policy
    assert type(policy.mlp_extractor.policy_net[1]).__name__ == "ReLU"
    assert type(load_sb3_policy(byo["guesser"][0]).policy.mlp_extractor.policy_net[1]).__name__ == "Tanh"


def test_byo_cli_guess_and_one_line_options(byo, capsys):
    guesser, cue_giver = byo["guesser"][0], byo["cue_giver"][0]
    assert main(["agents", "guess", f"policy:{guesser}", "BANANA", "--top-k", "3"]) == 0
    capsys.readouterr()
    # the option settles an ambiguity; a wrong one is one line naming the zip
    assert main(["agents", "guess", f"policy:{cue_giver}", "BANANA", "--opt", "role=guesser"]) == 2
    err = capsys.readouterr().err.strip()
    assert str(cue_giver) in err and "480 actions" in err and "\n" not in err
    assert main(["agents", "guess", f"policy:{cue_giver}", "BANANA", "--opt", "role=selfplay"]) == 0


def test_byo_zip_with_its_own_vocabulary_needs_it(tmp_path, capsys):
    from huesenv.agents import make_agent
    from huesenv.vocabulary import normalise_word, word_texts

    words = list(word_texts())[:20]
    path = tmp_path / "small.zip"
    _train("huesenv/CueGiver-v1", path, env_kwargs={"vocabulary": words, "opponents": "random"})
    assert main(["agents", "guess", f"policy:{path}", "BANANA"]) == 2
    err = capsys.readouterr().err.strip()
    assert "20-word cue vocabulary" in err and "cue_vocabulary=" in err and "\n" not in err
    listed = tmp_path / "words.txt"
    listed.write_text("\n".join(words) + "\n")
    agent = make_agent(f"policy:{path}", cue_vocabulary=str(listed))
    assert agent.vocabulary == tuple(normalise_word(w) for w in words)
    with pytest.raises(ValueError, match="19 words"):
        make_agent(f"policy:{path}", cue_vocabulary=words[:19])


def test_hints_are_refused_for_checkpoints_that_record_settings(tmp_path):
    from huesenv.agents.policy import PolicyAgent

    with pytest.raises(ValueError, match="record no settings"):
        PolicyAgent(tmp_path / "policy.pt", role="guesser")


# -- the inference rules on their own (no training) ----------------------------------------------------------------
def _data(low="-4.0", high="100.0", shape=None):
    space = {
        ":type:": "<class 'gymnasium.spaces.box.Box'>",
        ":serialized:": "x",
        "low_repr": low,
        "high_repr": high,
    }
    if shape is not None:
        space["_shape"] = [shape]
    return {"observation_space": space}


def test_inference_of_layouts_and_its_ambiguities():
    from huesenv.agents.sb3_zip import infer_settings

    s = infer_settings(_data(), 6021, 480, "z")
    assert (s["role"], s["cue_encoding"], len(s["vocabulary"]), s["extra"]["include_board"]) == (
        "guesser",
        "index",
        100,
        False,
    )
    # 5815 + 2 x 384 is MiniLM cues, or an index cue over 381 words: huesenv's own vocabulary decides
    e = infer_settings(_data(), 6583, 480, "z")
    assert e["cue_encoding"] == "embedding" and e["extra"]["cue_dim"] == 384
    with pytest.raises(ValueError, match="381-word cue vocabulary"):
        infer_settings(_data(), 6583, 480, "z", {"cue_encoding": "index"})
    b = infer_settings(_data(), 6021 + 1440, 581, "z")
    assert b["extra"]["include_board"] and b["role"] == "cue_giver"
    with pytest.raises(ValueError, match="pass flat_cue_weight"):
        infer_settings(_data(low="-1.0"), 6021, 480, "z")
    assert (
        infer_settings(_data(low="-1.0"), 6021, 480, "z", {"flat_cue_weight": 0.5})["extra"][
            "flat_cue_weight"
        ]
        == 0.5
    )
    assert infer_settings(_data(low="-7.5", high="100.0"), 6021, 480, "z")["extra"]["flat_cue_weight"] == 7.5
    with pytest.raises(ValueError, match="fit neither"):
        infer_settings(_data(), 6021, 300, "z")
    with pytest.raises(ValueError, match="no flat layout"):
        infer_settings(_data(), 1234, 480, "z")
    with pytest.raises(ValueError, match="do not match"):
        infer_settings(_data(shape=999), 6021, 480, "z")
    with pytest.raises(ValueError, match="Dict"):
        infer_settings(
            {"observation_space": {":type:": "<class 'gymnasium.spaces.dict.Dict'>"}}, 6021, 480, "z"
        )


def test_readable_policy_kwargs_take_only_torch_activations():
    from huesenv.agents.sb3_zip import readable_policy_kwargs

    relu = "<class 'torch.nn.modules.activation.ReLU'>"
    assert (
        readable_policy_kwargs({":type:": "<class 'dict'>", ":serialized:": "x", "activation_fn": relu}, "z")[
            1
        ]
        == "ReLU"
    )
    with pytest.raises(ValueError, match="activation_fn"):
        readable_policy_kwargs(
            {":type:": "<class 'dict'>", ":serialized:": "x", "activation_fn": "<class 'evil.Thing'>"}, "z"
        )
    with pytest.raises(ValueError, match="features_extractor_class"):
        readable_policy_kwargs(
            {":type:": "<class 'dict'>", ":serialized:": "x", "features_extractor_class": "<class 'a.B'>"},
            "z",
        )
    with pytest.raises(ValueError, match="stored pickled"):
        readable_policy_kwargs({":type:": "<class 'dict'>", ":serialized:": "x"}, "z")
    assert readable_policy_kwargs(None, "z") == ({}, "Tanh")


def test_hints_that_fit_nothing_say_what_would():
    from huesenv.agents.sb3_zip import infer_settings

    with pytest.raises(ValueError, match=r"do not fit cue_encoding=embedding \(they fit cue_encoding=index"):
        infer_settings(_data(), 6021, 480, "z", {"cue_encoding": "embedding"})
    with pytest.raises(ValueError, match="expected index, embedding or text"):
        infer_settings(_data(), 6021, 480, "z", {"cue_encoding": "bag"})
    with pytest.raises(ValueError, match="expected true or false"):
        infer_settings(_data(), 6021, 480, "z", {"include_board": "yes"})


# -- what an evaluation says about a policy that records no human data ---------------------------------------------
def test_unknown_training_data_is_labelled_never_held_out(byo):
    import pandas as pd

    from huesenv.experiments import evaluation
    from huesenv.experiments.config import ExperimentConfig, load_config
    from huesenv.humans import load_humans

    spec = f"policy:{byo['guesser'][0]}"
    agents = {"byo": spec, "human": "human-replay"}
    assert evaluation.policy_training_data(spec) is None
    assert evaluation.unknown_training(agents) == ["byo"]
    (label,) = evaluation.training_labels(agents)
    assert label.startswith("TRAINING DATA UNKNOWN: byo") and "not a held-out evaluation" in label
    assert evaluation.overlaps(agents, load_humans()) == {}  # nothing to compare: not refused, but labelled
    table = pd.DataFrame({"agent": ["byo", "human"], "fail": [0.1, 0.2]})
    evaluation.mark_trained_on({"t": table}, [], ["byo"])
    assert table["trained_on_reference"].isna().tolist() == [True, False]
    assert table["trained_on_reference"].tolist()[1] is False
    data = dict(load_config("default").data)
    data["agents"] = {**data["agents"], "byo": {"spec": spec}}
    config = ExperimentConfig.from_dict(data, source="test config")
    assert evaluation.evaluation_default(config) is config  # no split recorded: no evaluation part to pick


@pytest.mark.integration
def test_byo_zip_in_a_run_is_labelled_training_data_unknown(byo, tmp_path):
    import json

    from huesenv.experiments.config import ExperimentConfig, load_config
    from huesenv.experiments.experiment import run_experiment

    data = dict(load_config("default").data)
    data.update(
        output=str(tmp_path),
        name="byo",
        games=1,
        agents={"byo": {"spec": f"policy:{byo['guesser'][0]}"}, "human": {"spec": "human-replay"}},
        lineups=[["byo", "human", "human", "human"]],
        wordlevel={"enabled": True, "agents": ["byo"], "top_k": 5},
        report={"formats": ["markdown"], "board_images": 0},
    )
    result = run_experiment(ExperimentConfig.from_dict(data, source="t"), progress=False)
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert any(line.startswith("TRAINING DATA UNKNOWN: byo") for line in summary["summary"])
    assert "TRAINING DATA UNKNOWN" in (result.run_dir / "report.md").read_text()
    wl = result.tables["wordlevel_agents"].set_index("agent")
    assert wl["trained_on_reference"].isna()["byo"]


def test_one_policy_on_every_seat_of_hues_cues_v1_plays_with_role_selfplay(tmp_path, capsys):
    """PettingZoo's "SB3: Action Masking" tutorial wrapper on the AEC env (flat observations): the zip's 581
    actions read as a cue giver by default; ``role=selfplay`` plays every seat as sb3's predict does."""
    import gymnasium
    import pettingzoo.utils
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    from huesenv import hues_cues_v1
    from huesenv.agents import make_agent
    from huesenv.envs.hues_cues.adapters import answer_to_action, query_for

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current = self.agent_selection
            super().step(action)
            nxt = self.agent_selection
            return (
                self.observe(nxt),
                self._cumulative_rewards[current],
                self.terminations[current],
                self.truncations[current],
                self.infos[current],
            )

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = SB3ActionMaskWrapper(hues_cues_v1.env(observation_mode="flat"))
    env.reset(seed=0)
    model = MaskablePPO(
        "MlpPolicy", ActionMasker(env, lambda e: e.action_mask()), n_steps=32, batch_size=16, seed=0
    )
    model.learn(32)
    path = tmp_path / "aec.zip"
    model.save(str(path))
    assert make_agent(f"policy:{path}").settings.role == "cue_giver"  # the default reading of 581 actions
    agent = make_agent(f"policy:{path}", role="selfplay")
    assert agent.settings.env_id == "hues_cues_v1"
    game = hues_cues_v1.env(observation_mode="flat")
    game.reset(seed=3)
    raw, steps = game.unwrapped, 0
    for name in game.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = game.last()
        if term or trunc:
            game.step(None)
            continue
        mask = obs["action_mask"]
        theirs = int(model.predict(obs["observation"], action_masks=mask.astype(bool), deterministic=True)[0])
        query = query_for(raw, name)
        decision = answer_to_action(agent.act(query), query, mask, raw.layout)
        assert decision.valid and decision.action == theirs, (steps, raw.state_obj.phase)
        game.step(theirs)
        steps += 1
    assert steps > 10
