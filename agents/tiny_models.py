"""Tiny randomly initialised models for tests, benchmarks and GPU checks: real architectures, no download.

They exercise the agents' real loading code (local paths) without any weights
from a hub.  Their answers are meaningless; callers constrain generation (e.g.
``sequence_bias``) when they need a parseable answer.
"""

from __future__ import annotations

from pathlib import Path

# A word-level vocabulary: the tokens a board answer needs, so a biased model can say "I 18".
TINY_VLM_WORDS = tuple(
    (
        "user assistant board cell row column word red green blue apple banana sky A B C D E F G H I J K L M N O P "
        + " ".join(str(i) for i in range(1, 31))
    ).split()
)
TINY_VLM_CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {% for c in m['content'] %}{% if c['type'] == 'image' %}"
    "<image> {% else %}{{ c['text'] }} {% endif %}{% endfor %}{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


def build_tiny_llava(
    path: str | Path, *, hidden: int = 16, layers: int = 1, image_size: int = 32, seed: int = 0
) -> dict[str, int]:
    """Save a random Llava (CLIP vision tower + Llama text model), tokenizer and processor to ``path``.

    Returns the token id of every word in :data:`TINY_VLM_WORDS`.
    """
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        [" ".join(TINY_VLM_WORDS)],
        trainers.WordLevelTrainer(special_tokens=["<unk>", "<pad>", "<s>", "</s>", "<image>"]),
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        extra_special_tokens={"image_token": "<image>"},
    )
    torch.manual_seed(seed)
    heads = 2 if hidden < 64 else hidden // 64
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            image_size=image_size,
            patch_size=16,
            projection_dim=hidden,
        ),
        text_config=LlamaConfig(
            vocab_size=len(fast),
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            max_position_embeddings=2048,
            pad_token_id=1,
            bos_token_id=2,
            eos_token_id=3,
        ),
        image_token_id=fast.convert_tokens_to_ids("<image>"),  # type: ignore[call-arg]  # newer transformers' name
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    model = LlavaForConditionalGeneration(config)
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessor(
            size={"shortest_edge": image_size}, crop_size={"height": image_size, "width": image_size}
        ),
        tokenizer=fast,
        patch_size=16,
        vision_feature_select_strategy="default",
        chat_template=TINY_VLM_CHAT_TEMPLATE,
        num_additional_image_tokens=1,
    )
    path = Path(path)
    model.save_pretrained(path)
    processor.save_pretrained(path)
    ids = {w: fast.convert_tokens_to_ids(w) for w in TINY_VLM_WORDS}
    return {w: i for w, i in ids.items() if isinstance(i, int)}  # one token, one id


def coordinate_bias(ids: dict[str, int], row: str = "I", col: str = "18") -> dict:
    """``generate`` kwargs that make a random tiny VLM say ``"<row> <col>"`` (a parseable coordinate)."""
    return {"sequence_bias": [[[ids[row]], 50.0], [[ids[row], ids[col]], 100.0]]}
