"""Self-play on a tiny budget: the files, the lexicon outputs, and the policy playing both roles."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.protocol import CueQuery, GuessQuery  # noqa: E402
from huesenv.experiments.rl.selfplay import SelfPlayConfig, cue1_allowed, selfplay_vocabulary, train_selfplay  # noqa: E402


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
