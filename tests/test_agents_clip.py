"""CLIP agent on a tiny randomly initialised open_clip model, loaded through the real code path."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

open_clip: Any = None  # set by _model_libraries
torch: Any = None

from huesenv.agents import CueQuery, GuessQuery, ProbeQuery, evaluate_words, make_agent  # noqa: E402
from huesenv.agents.clip_agent import ClipAgent, colour_patch, parse_clip_spec, split_model_name  # noqa: E402
from huesenv.board import frame, load_board  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _model_libraries():
    """Import open_clip and torch when these tests run, not when they are collected (collection stays fast)."""
    global open_clip, torch
    open_clip = pytest.importorskip("open_clip")
    torch = pytest.importorskip("torch")


pytestmark = pytest.mark.xdist_group(
    "model_libraries"
)  # shares open_clip's import (test_agents_text_embedding.py)
TINY = "huesenv-tiny-clip"
TINY_CFG = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 64, "head_width": 32, "patch_size": 16},
    "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


@pytest.fixture(scope="module")
def tiny_ckpt(tmp_path_factory):
    """Register the tiny config with open_clip and save random weights as a local checkpoint."""
    cfg_dir = tmp_path_factory.mktemp("oc_cfg")
    (cfg_dir / f"{TINY}.json").write_text(json.dumps(TINY_CFG))
    open_clip.add_model_config(cfg_dir)
    torch.manual_seed(0)
    model = open_clip.create_model(TINY, pretrained=None)
    ckpt = cfg_dir / "random.pt"
    torch.save(model.state_dict(), ckpt)
    return str(ckpt)


@pytest.fixture(scope="module")
def agent(tiny_ckpt, tmp_path_factory):
    return make_agent(f"clip:{TINY}/{tiny_ckpt}", device="cpu", cache_dir=tmp_path_factory.mktemp("cache"))


def test_all_162_paper_models_are_expressible(shared_dir):
    table = pd.read_csv(shared_dir / "reference" / "paper_table5_models.csv")
    pairs = set(open_clip.list_pretrained())
    assert len(table) == 162
    for name in table["model"]:
        model, tag = parse_clip_spec(name)
        assert (model, tag) in pairs, name
        assert f"{model}-{tag}" == name
    # models whose names prefix other model names split correctly
    assert split_model_name("ViT-B-16-SigLIP-256-webli") == ("ViT-B-16-SigLIP-256", "webli")


def test_spec_forms():
    assert parse_clip_spec("ViT-B-32/laion2b_s34b_b79k") == ("ViT-B-32", "laion2b_s34b_b79k")
    assert parse_clip_spec("hf-hub:timm/ViT-B-16-SigLIP") == ("hf-hub:timm/ViT-B-16-SigLIP", None)
    assert parse_clip_spec("ViT-B-32") == ("ViT-B-32", None)
    with pytest.raises(ValueError):
        parse_clip_spec("NotAModel-foo")
    with pytest.raises(ValueError):
        make_agent("clip")


def test_ranking_equals_direct_open_clip(agent, tiny_ckpt):
    """Must show: the agent's ranking is exactly a direct open_clip cosine ranking."""
    model, _, preprocess = open_clip.create_model_and_transforms(TINY, pretrained=tiny_ckpt)
    model.eval()
    tokenizer = open_clip.get_tokenizer(TINY)
    board = load_board()
    with torch.no_grad():
        pixels = torch.stack([preprocess(colour_patch(rgb, 32)) for rgb in board.rgb])
        img = model.encode_image(pixels)
        img = img / img.norm(dim=-1, keepdim=True)
        words = ["banana", "sky", "zizax"]
        txt = model.encode_text(tokenizer(words))
        txt = txt / txt.norm(dim=-1, keepdim=True)
    direct = (txt @ img.T).numpy()
    answers = agent.act_batch([GuessQuery(cues=(w.upper(),), top_k=10) for w in words])
    for row, ans in zip(direct, answers):
        expected = np.argsort(-row, kind="stable")[:10]
        np.testing.assert_array_equal(ans.cells, expected)
        np.testing.assert_allclose(ans.scores, row[expected], rtol=1e-4, atol=1e-5)


def test_legal_mask_and_batch_equals_single(agent):
    legal = np.ones(480, bool)
    first = agent.act(GuessQuery(cues=("APPLE",), top_k=3)).cells
    legal[first[:2]] = False
    masked = agent.act(GuessQuery(cues=("APPLE",), legal=legal, top_k=3))
    assert not set(masked.cells) & set(first[:2].tolist())
    assert masked.cells[0] == first[2]


def test_cache_reused_and_board_not_reencoded(agent, tiny_ckpt, tmp_path):
    a = ClipAgent(TINY, tiny_ckpt, device="cpu", cache_dir=tmp_path)
    r1 = evaluate_words(a, top_k=5)
    assert a.timings["image_encode_s"] > 0
    before = a.timings["image_encode_s"]
    a.act(GuessQuery(cues=("NEW WORD",)))
    assert a.timings["image_encode_s"] == before  # board never re-encoded per word
    files = list(tmp_path.rglob("*.npz"))
    assert files and all(tmp_path in f.parents for f in files)
    b = ClipAgent(TINY, tiny_ckpt, device="cpu", cache_dir=tmp_path)
    r2 = evaluate_words(b, top_k=5)
    assert b._model is None  # a full cache hit never loads the model
    assert [r.cells for r in r1] == [r.cells for r in r2]
    assert len(r1) == 116 and all(r.kind == "word_query" and len(r.cells) == 5 for r in r1)


def test_cue_strategies(agent, tiny_ckpt, tmp_path):
    card = (5, 100, 250, 400)
    plain = ClipAgent(TINY, tiny_ckpt, device="cpu", cache_dir=tmp_path, cue_strategy="similarity")
    ans = plain.act(CueQuery(card=card, target=250))
    scores = plain.cell_scores(list(plain._candidates(CueQuery(card=card))))
    assert ans.cue == plain._candidates(CueQuery(card=card))[int(np.argmax(scores[:, 250]))]
    prag = agent.act(CueQuery(card=card, target=None, forbidden=frozenset({"APPLE"})))
    assert prag.target in card and prag.cue and prag.cue != "APPLE"
    # the pragmatic value of the chosen word is the best over the allowed vocabulary
    words = agent._candidates(CueQuery(card=card, forbidden=frozenset({"APPLE"})))
    assert prag.cue in words
    with pytest.raises(ValueError):
        ClipAgent(TINY, tiny_ckpt, cue_strategy="nope")
    assert len(frame(250)) == 9


def test_probe_ranks_one_prompt_per_option(agent):
    img = np.zeros((40, 40, 3), np.uint8)
    img[:] = (200, 30, 30)
    q = ProbeQuery(
        image=img,
        question="What colour is the apple?",
        options=("white", "red", "green"),
        subject="apple",
        task="gca",
    )
    ans = agent.act(q)
    assert ans.option in (0, 1, 2) and ans.raw_text == f"a {q.options[ans.option]} apple"
    assert ans.scores.shape == (3,) and ans.option == int(np.argmax(ans.scores))
    free = agent.act(ProbeQuery(image=img, question="What colour?", options=None))
    assert free.text and free.option is None
    # a text-only query (GCA text prior) has nothing to compare: invalid, and the rest of the batch is answered
    mixed = agent.act_batch([ProbeQuery(image=None, question="x% ?", answer_kind="threshold"), q])
    assert not mixed[0].valid and "text-only" in mixed[0].raw_text
    assert mixed[1].valid and mixed[1].option == ans.option


def test_local_checkpoint_named_after_a_tag_gets_the_tag_preprocessing(tmp_path):
    ckpt = tmp_path / "ViT-B-32-openai.pt"
    ckpt.write_bytes(b"")
    agent = ClipAgent("ViT-B-32", str(ckpt), device="cpu", cache_dir=False)
    assert agent.agent_id == "clip:ViT-B-32/openai" and agent.tag == "openai"
    kw = agent._local_file_kwargs()
    cfg = open_clip.get_pretrained_cfg("ViT-B-32", "openai")
    assert kw["force_quick_gelu"] is True and tuple(kw["image_mean"]) == tuple(cfg["mean"])
    other = ClipAgent("ViT-B-32", str(ckpt), device="cpu", cache_dir=False, tag="laion2b_s34b_b79k")
    assert (
        other.agent_id == "clip:ViT-B-32/laion2b_s34b_b79k"
        and "force_quick_gelu" not in other._local_file_kwargs()
    )
