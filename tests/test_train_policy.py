"""policy:PATH agents: checkpoint round trip, the settings check, and the one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.policy_net import (  # noqa: E402
    PolicyMismatchError,
    PolicySettings,
    build_guesser_net,
    check_settings,
    guesser_forward,
    load_checkpoint,
    save_checkpoint,
)
from huesenv.agents.protocol import CueQuery, GuessQuery  # noqa: E402
from huesenv.vocabulary import word_texts  # noqa: E402

VOCAB = word_texts()


def _guesser_checkpoint(path, favourite: dict[int, int], env_id="huesenv/GuesserVector-v0"):
    """A guesser whose top cell for word i is favourite[i] (others: cell 0)."""
    torch.manual_seed(0)
    net = build_guesser_net(len(VOCAB), hidden=8)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(0.01)
        # route the cue embedding straight into the policy head
        net["cue"].weight.zero_()
        net["occupied"].weight.zero_()
        net["body"][1].weight.copy_(torch.eye(8))
        net["body"][1].bias.zero_()
        net["pi"].weight.zero_()
        net["pi"].bias.zero_()
        for k, (word, cell) in enumerate(sorted(favourite.items())[:8]):
            net["cue"].weight[word, k] = 1.0
            net["pi"].weight[cell, k] = 10.0
    settings = PolicySettings(env_id=env_id, role="guesser", observation_mode="vector-dict", vocabulary=VOCAB)
    save_checkpoint(path, settings, {"guesser": net}, {"guesser": {"vocab_size": len(VOCAB), "hidden": 8}})
    return net


def test_checkpoint_round_trip_same_logits(tmp_path):
    path = tmp_path / "run" / "policy.pt"
    net = _guesser_checkpoint(path, {0: 100, 1: 200})
    ckpt = load_checkpoint(path)
    assert ckpt.settings.vocabulary == VOCAB and ckpt.settings.role == "guesser"
    cue = torch.tensor([0, 1, len(VOCAB)])
    occ = torch.zeros((3, 480), dtype=torch.bool)
    with torch.no_grad():
        a, _ = guesser_forward(net, cue, occ)
        b, _ = guesser_forward(ckpt.nets["guesser"], cue, occ)
    assert torch.equal(a, b)


def test_policy_agent_guesses_its_favourite_cells(tmp_path):
    path = tmp_path / "run" / "policy.pt"
    _guesser_checkpoint(path, {0: 100, 1: 200})
    agent = make_agent(f"policy:{path}")
    assert agent.agent_id == "policy:run"
    first, second, unknown = agent.act_batch(
        [
            GuessQuery(cues=(VOCAB[0],), top_k=3),
            GuessQuery(cues=("ZIZAX", VOCAB[1]), top_k=2),  # the latest known cue counts
            GuessQuery(cues=("ZIZAX",)),
        ]
    )
    assert first.cell == 100 and len(first.cells) == 3 and first.scores[0] >= first.scores[1]
    assert second.cell == 200
    assert unknown.info["fallback"] == "unknown_cue"
    legal = np.ones(480, bool)
    legal[100] = False  # an occupied favourite: the next best legal cell
    ans = agent.act(GuessQuery(cues=(VOCAB[0],), legal=legal))
    assert ans.cell != 100 and legal[ans.cell]


def test_policy_agent_gives_the_cue_its_listener_reads_best(tmp_path):
    path = tmp_path / "policy.pt"
    _guesser_checkpoint(path, {0: 100, 1: 200})
    agent = make_agent(f"policy:{path}")
    # target 200: word 1 puts its mass there; word 0 at 100
    ans = agent.act(CueQuery(card=(5, 200, 300, 400), target=200, vocabulary=(VOCAB[0], VOCAB[1])))
    assert ans.cue == VOCAB[1]
    pick = agent.act(CueQuery(card=(5, 100, 300, 400), target=None, vocabulary=(VOCAB[0], VOCAB[1])))
    assert pick.target == 100
    forbidden = agent.act(
        CueQuery(card=(5, 200), target=200, vocabulary=(VOCAB[0], VOCAB[1]), forbidden=frozenset({VOCAB[1]}))
    )
    assert forbidden.cue == VOCAB[0]


def test_settings_mismatch_is_one_clear_line():
    policy = PolicySettings(env_id="huesenv/Guesser-v1", role="guesser", vocabulary=VOCAB)
    with pytest.raises(PolicyMismatchError, match=r"v1 vs v2") as err:
        check_settings(policy, {"env_id": "huesenv/Guesser-v2"}, source="policy x.pt")
    assert "\n" not in str(err.value) and "policy x.pt" in str(err.value)
    with pytest.raises(
        PolicyMismatchError, match="cue_encoding='index', the env has cue_encoding='embedding'"
    ):
        check_settings(policy, {"env_id": "huesenv/Guesser-v1", "cue_encoding": "embedding"})
    with pytest.raises(PolicyMismatchError, match=r"100-word .* 99 words .*index 0"):
        check_settings(policy, {"vocabulary": VOCAB[1:]})
    check_settings(
        policy, {"env_id": "huesenv/Guesser-v1", "cue_encoding": "index", "vocabulary": list(VOCAB)}
    )


def test_policy_agent_refuses_a_mismatching_env(tmp_path):
    import gymnasium

    path = tmp_path / "policy.pt"
    _guesser_checkpoint(path, {0: 1})
    agent = make_agent(f"policy:{path}")
    env = gymnasium.make("huesenv/Guesser-v1", opponents="random")
    with pytest.raises(
        PolicyMismatchError,
        match="trained on env 'huesenv/GuesserVector-v0', cannot play 'huesenv/Guesser-v1'",
    ):
        agent.check_env(env)
    env.close()


def test_bad_checkpoint_files_give_one_line_errors(tmp_path):
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable torch checkpoint") as err:
        make_agent(f"policy:{junk}")
    assert "\n" not in str(err.value)
    other = tmp_path / "other.pt"
    torch.save({"format": "something-else"}, other)
    with pytest.raises(ValueError, match="field 'format'"):
        load_checkpoint(other)
    with pytest.raises(FileNotFoundError, match="no such file"):
        make_agent(f"policy:{tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match="needs a file"):
        make_agent("policy")
