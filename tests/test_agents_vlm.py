"""Local VLM agent on a tiny randomly initialised Llava built here (tokenizer + processor saved to a temp dir)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from huesenv.agents import CueQuery, GuessQuery, ProbeQuery, evaluate_words, make_agent  # noqa: E402
from huesenv.agents.chat import ATTEMPT_SEPARATOR  # noqa: E402
from huesenv.agents.parsing import parse_coordinate, parse_coordinates, parse_cue, parse_probe  # noqa: E402
from huesenv.board import parse_coord  # noqa: E402
from huesenv.vocabulary import Word  # noqa: E402

WORDS = ("user assistant board cell row column word red green blue apple banana sky A B C D E F G H I J K L M N O P "
         + " ".join(str(i) for i in range(1, 31))).split()
TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {% for c in m['content'] %}{% if c['type'] == 'image' %}"
            "<image> {% else %}{{ c['text'] }} {% endif %}{% endfor %}{% endfor %}"
            "{% if add_generation_prompt %}assistant: {% endif %}")


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import (CLIPImageProcessor, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaForConditionalGeneration, LlavaProcessor, PreTrainedTokenizerFast)

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([" ".join(WORDS)], trainers.WordLevelTrainer(
        special_tokens=["<unk>", "<pad>", "<s>", "</s>", "<image>"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                   eos_token="</s>", extra_special_tokens={"image_token": "<image>"})
    torch.manual_seed(0)
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                       num_attention_heads=2, image_size=32, patch_size=16, projection_dim=16),
        text_config=LlamaConfig(vocab_size=len(fast), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                                pad_token_id=1, bos_token_id=2, eos_token_id=3),
        image_token_id=fast.convert_tokens_to_ids("<image>"), vision_feature_layer=-1,
        vision_feature_select_strategy="default")
    model = LlavaForConditionalGeneration(config)
    processor = LlavaProcessor(image_processor=CLIPImageProcessor(size={"shortest_edge": 32},
                                                                  crop_size={"height": 32, "width": 32}),
                               tokenizer=fast, patch_size=16, vision_feature_select_strategy="default",
                               chat_template=TEMPLATE, num_additional_image_tokens=1)
    path = tmp_path_factory.mktemp("tiny_vlm")
    model.save_pretrained(path)
    processor.save_pretrained(path)
    return path, {w: fast.convert_tokens_to_ids(w) for w in WORDS}


def bias(ids, pairs):
    """sequence_bias forcing the given token sequence (a way to constrain the random model's output)."""
    return {"sequence_bias": [[[ids[a] for a in seq], b] for seq, b in pairs]}


def test_parse_coordinates():
    assert parse_coordinates("I'd say I18, maybe c5 or row B column 7; a 5x5 frame; Q5, A31, P 30") == [
        parse_coord("I18"), parse_coord("C5"), parse_coord("B7"), parse_coord("P30")]
    assert parse_coordinate("nothing here") is None and parse_coordinate(None) is None
    legal = np.ones(480, bool)
    legal[parse_coord("I18")] = False
    assert parse_coordinate("I18 then J19", legal) == parse_coord("J19")
    assert parse_cue("I pick Banana!", ("APPLE", "BANANA")) == "BANANA"
    assert parse_cue("sunshine", None, forbidden={"SUN"}) == "sunshine"
    assert parse_probe("It is reddish.", ("white", "red", "green")) == (1, "red")
    assert parse_probe("no idea", ("white", "red")) == (None, None)


def test_loads_through_real_path_and_answers(tiny_vlm):
    path, ids = tiny_vlm
    agent = make_agent(f"vlm:{path}", device="cpu", max_new_tokens=2, retries=0,
                       generate_kwargs=bias(ids, [(("I",), 50.0), (("I", "18"), 100.0)]))
    answers = agent.act_batch([GuessQuery(cues=("SKY",)), GuessQuery(cues=("APPLE", "RED"), top_k=3)])
    for ans in answers:
        assert ans.valid and ans.cell == parse_coord("I18") and ans.raw_text.replace(" ", "") == "I18"
    assert agent.agent_id == f"vlm:{path.name}"


def test_malformed_output_is_invalid_with_raw_text(tiny_vlm):
    """Must show: unparsable model text counts as invalid and every attempt's raw text is kept."""
    path, ids = tiny_vlm
    agent = make_agent(f"vlm:{path}", device="cpu", max_new_tokens=3, retries=1,
                       generate_kwargs=bias(ids, [(("banana",), 100.0)]))
    recs = evaluate_words(agent, inputs=[Word("SKY", "Environment"), Word("5", "Nonsense")], top_k=5)
    for r in recs:
        assert r.valid is False and r.cells is None and r.kind == "word_query"
        assert r.raw_text.split(ATTEMPT_SEPARATOR) == ["banana banana banana"] * 2
        assert r.extra["attempts"] == 2


def test_probe_and_cue(tiny_vlm):
    path, ids = tiny_vlm
    agent = make_agent(f"vlm:{path}", device="cpu", max_new_tokens=1, retries=0,
                       generate_kwargs=bias(ids, [(("red",), 100.0)]))
    img = np.full((20, 20, 3), 90, np.uint8)
    probe = agent.act(ProbeQuery(image=img, question="What colour is the apple?", options=("white", "red"),
                                 subject="apple"))
    assert probe.valid and probe.option == 1 and probe.text == "red"
    agent.generate_kwargs = bias(ids, [(("apple",), 100.0)])
    cue = agent.act(CueQuery(card=(10, 20, 30, 40), target=None, vocabulary=("APPLE", "BANANA")))
    assert cue.valid and cue.cue == "APPLE" and cue.target in (10, 20, 30, 40)
    bad = agent.act(CueQuery(card=(10, 20, 30, 40), target=20, vocabulary=("BANANA",)))
    assert not bad.valid and bad.raw_text == "apple" and bad.target == 20
