"""CLIP agent: any open_clip model, zero-shot, on the board's 480 colours.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.clip_agent``.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.cache import TextEmbeddingCache, cache_path, load_arrays, resolve_cache_dir, save_arrays
from huesenv.agents.devices import resolve_device, resolve_precision, torch_dtype
from huesenv.agents.protocol import Answer, ProbeQuery
from huesenv.agents.ranking import l2_normalise
from huesenv.agents.scoring import ScoringAgent
from huesenv.board import Board, load_board

BASIC_COLOUR_TERMS = (
    "black",
    "white",
    "red",
    "green",
    "yellow",
    "blue",
    "brown",
    "purple",
    "pink",
    "orange",
    "grey",
)


@lru_cache(maxsize=1)
def _pretrained_pairs() -> tuple[tuple[str, str], ...]:
    import open_clip

    return tuple((m, p) for m, p in open_clip.list_pretrained())


def split_model_name(name: str) -> tuple[str, str]:
    """Split the paper's ``<model>-<pretrained>`` spelling into open_clip's model name and tag.

    An exact match among ``open_clip.list_pretrained()`` wins; otherwise the longest
    known model name that prefixes ``name`` followed by ``-``.  ``ValueError`` when neither works.
    """
    exact = [(m, p) for m, p in _pretrained_pairs() if f"{m}-{p}" == name]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise ValueError(f"CLIP model {name!r} is ambiguous: {exact}; write it as '<model>/<pretrained>'")
    import open_clip

    models = sorted((m for m in open_clip.list_models() if name.startswith(m + "-")), key=len, reverse=True)
    if models:
        return models[0], name[len(models[0]) + 1 :]
    raise ValueError(
        f"CLIP model {name!r}: no open_clip model name prefixes it; write '<model>/<pretrained>'"
    )


def parse_clip_spec(arg: str) -> tuple[str, str | None]:
    """``"ViT-B-32/openai"`` → ``("ViT-B-32", "openai")``; ``"hf-hub:org/x"`` → ``("hf-hub:org/x", None)``;
    ``"ViT-B-32-openai"`` → split with :func:`split_model_name`; a bare registered model → ``(model, None)``."""
    arg = arg.strip()
    if not arg:
        raise ValueError("CLIP spec: empty model name")
    if arg.startswith("hf-hub:"):
        if len(arg) == len("hf-hub:"):
            raise ValueError("CLIP spec 'hf-hub:': expected 'hf-hub:<org>/<name>'")
        return arg, None
    if "/" in arg:
        model, _, pretrained = arg.partition("/")
        if not model or not pretrained:
            raise ValueError(f"CLIP spec {arg!r}: expected '<model>/<pretrained>'")
        return model, pretrained
    import open_clip

    if arg in open_clip.list_models():
        return arg, None
    return split_model_name(arg)


def colour_patch(rgb: Sequence[int], size: int):
    """A uniform ``size``×``size`` PIL image of one colour."""
    from PIL import Image

    return Image.new("RGB", (size, size), tuple(int(v) for v in rgb))


def _pretrained_stamp(pretrained: str | None) -> str:
    """Tag, or for a local checkpoint its path + size + mtime (a rewritten file invalidates the cache)."""
    if pretrained and os.path.isfile(pretrained):
        st = os.stat(pretrained)
        return f"{os.path.abspath(pretrained)}:{st.st_size}:{st.st_mtime_ns}"
    return str(pretrained)


class ClipAgent(ScoringAgent):
    """Zero-shot open_clip agent (see the module docstring)."""

    name = "clip"

    def __init__(
        self,
        model_name: str,
        pretrained: str | None = None,
        *,
        device: str = "auto",
        precision: str | None = None,
        prompt: str = "{word}",
        lowercase: bool = True,
        probe_template: str = "a {option} {subject}",
        batch_size: int = 128,
        cache_dir: str | os.PathLike | bool | None = None,
        board: Board | None = None,
        cue_strategy: str = "pragmatic",
        contrast: float = 0.5,
        vocabulary: Sequence[str] | None = None,
        seed: int | None = None,
        tag: str | None = None,
    ) -> None:
        super().__init__(cue_strategy=cue_strategy, contrast=contrast, vocabulary=vocabulary)
        if "{word}" not in prompt:
            raise ValueError(f"prompt {prompt!r}: expected a template containing '{{word}}'")

        self.model_name, self.pretrained = model_name, pretrained
        self.tag = tag or self._infer_tag()
        self.device = resolve_device(device)
        self.precision = resolve_precision(self.device, precision)
        self.prompt, self.lowercase, self.probe_template = prompt, lowercase, probe_template
        self.batch_size = int(batch_size)
        self.board = board or load_board()
        self.cache_dir = resolve_cache_dir(cache_dir)
        self.timings: dict[str, float] = {
            "load_s": 0.0,
            "image_encode_s": 0.0,
            "text_encode_s": 0.0,
            "preprocess_s": 0.0,
        }
        # open_clip's model, image transform and tokenizer, loaded by _load on first use
        self._model: Any = None
        self._preprocess: Any = None
        self._tokenizer: Any = None
        self._cells: np.ndarray | None = None
        self._logit_scale = 100.0
        self._text_cache = TextEmbeddingCache(self._path("text", self.prompt, self.lowercase))

    def _infer_tag(self) -> str | None:
        """The pretrained tag: as given, or for a local ``<model>-<tag>.<ext>`` checkpoint file, from its name."""
        if self.pretrained is None or not os.path.isfile(self.pretrained):
            return self.pretrained
        stem = Path(self.pretrained).stem
        return stem[len(self.model_name) + 1 :] if stem.startswith(self.model_name + "-") else None

    @property
    def agent_id(self) -> str:
        if self.pretrained is None:
            return f"clip:{self.model_name}"
        return f"clip:{self.model_name}/{self.tag or Path(self.pretrained).stem}"

    def _local_file_kwargs(self) -> dict:
        """For a local checkpoint of a known tag, the tag's preprocessing and QuickGELU setting.

        open_clip applies a tag's image mean/std, interpolation, resize mode and
        activation only when ``pretrained`` *is* the tag; a file path would silently
        get the defaults, so they are passed explicitly.
        """
        if not (self.pretrained and self.tag and os.path.isfile(self.pretrained)):
            return {}
        import open_clip

        cfg = open_clip.get_pretrained_cfg(self.model_name, self.tag) or {}
        kw = {
            k: cfg[c]
            for k, c in (
                ("image_mean", "mean"),
                ("image_std", "std"),
                ("image_interpolation", "interpolation"),
                ("image_resize_mode", "resize_mode"),
            )
            if cfg.get(c) is not None
        }
        if cfg.get("quick_gelu"):
            kw["force_quick_gelu"] = True
        return kw

    def _path(self, kind: str, *extra: object) -> Path | None:
        if self.cache_dir is None:
            return None
        import open_clip

        return cache_path(
            self.cache_dir,
            f"clip-{kind}",
            self.model_name,
            _pretrained_stamp(self.pretrained),
            self.precision,
            open_clip.__version__,
            *extra,
        )

    # -- model ------------------------------------------------------------------
    def load(self) -> None:
        """Load the model now rather than at the first query (``huesenv play`` does, before its window opens)."""
        self._load()

    def _load(self) -> None:
        if self._model is not None:
            return
        import open_clip

        t0 = time.perf_counter()
        model, _, preprocess = open_clip.create_model_and_transforms(
            self.model_name,
            pretrained=self.pretrained,
            device=self.device,
            precision=self.precision,
            **self._local_file_kwargs(),
        )
        model.eval()
        self._model, self._preprocess = model, preprocess
        self._tokenizer = open_clip.get_tokenizer(self.model_name)
        self.timings["load_s"] += time.perf_counter() - t0

    @property
    def model(self):
        self._load()
        return self._model

    @property
    def image_size(self) -> int:
        size = getattr(self.model.visual, "image_size", 224)
        return int(size[0] if isinstance(size, (tuple, list)) else size)

    def _input_dtype(self):
        return torch_dtype(self.precision) if self.precision != "fp32" else None

    def encode_images(self, images: Sequence) -> np.ndarray:
        """L2-normalised embeddings of PIL images, in batches, through the model's own preprocessing."""
        import torch

        self._load()
        model, preprocess = self._model, self._preprocess
        assert model is not None and preprocess is not None  # _load set them
        out = []
        for start in range(0, len(images), self.batch_size):
            t0 = time.perf_counter()
            pixels = torch.stack([preprocess(im) for im in images[start : start + self.batch_size]])
            pixels = pixels.to(self.device, dtype=self._input_dtype() or pixels.dtype)
            t1 = time.perf_counter()
            with torch.inference_mode():
                feats = model.encode_image(pixels)
            out.append(feats.float().cpu().numpy())
            t2 = time.perf_counter()
            self.timings["preprocess_s"] += t1 - t0
            self.timings["image_encode_s"] += t2 - t1
        return l2_normalise(np.concatenate(out)) if out else np.zeros((0, 0), np.float32)

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised text embeddings, one forward pass per batch."""
        import torch

        self._load()
        model, tokenizer = self._model, self._tokenizer
        assert model is not None and tokenizer is not None  # _load set them
        out = []
        for start in range(0, len(texts), self.batch_size):
            t0 = time.perf_counter()
            tokens = tokenizer(list(texts[start : start + self.batch_size])).to(self.device)
            with torch.inference_mode():
                feats = model.encode_text(tokens)
            out.append(feats.float().cpu().numpy())
            self.timings["text_encode_s"] += time.perf_counter() - t0
        return l2_normalise(np.concatenate(out)) if out else np.zeros((0, 0), np.float32)

    def cell_embeddings(self) -> np.ndarray:
        """``(480, D)`` normalised cell embeddings: memory, else the disk cache, else one batched encode."""
        if self._cells is None:
            path = self._path("board", _board_digest(self.board))
            data = load_arrays(path) if path is not None else None
            if data is not None and data.get("cells", np.zeros(0)).shape[:1] == (len(self.board.rgb),):
                self._cells, self._logit_scale = data["cells"], float(data["logit_scale"])
            else:
                size = self.image_size
                self._cells = self.encode_images([colour_patch(rgb, size) for rgb in self.board.rgb])
                self._logit_scale = self._model_logit_scale()
                if path is not None:
                    save_arrays(
                        path,
                        {
                            "cells": self._cells,
                            "rgb": self.board.rgb,
                            "logit_scale": np.float64(self._logit_scale),
                        },
                    )
        return self._cells

    def text_for(self, word: str) -> str:
        word = word.strip()
        return self.prompt.format(word=word.lower() if self.lowercase else word)

    def text_embeddings(self, words: Sequence[str]) -> np.ndarray:
        return self._text_cache.embed([self.text_for(w) for w in words], self.encode_texts)

    def cell_scores(self, texts: Sequence[str]) -> np.ndarray:
        cells = self.cell_embeddings()
        return self.text_embeddings(texts) @ cells.T

    def _model_logit_scale(self) -> float:
        scale = getattr(self.model, "logit_scale", None)
        return float(scale.exp().item()) if scale is not None else 100.0

    def listener_logits(self, scores: np.ndarray) -> np.ndarray:
        self.cell_embeddings()
        return self._logit_scale * scores

    # -- probes -----------------------------------------------------------------
    def probe_prompts(self, query: ProbeQuery) -> list[str]:
        options = query.options or BASIC_COLOUR_TERMS
        if query.subject:
            return [self.probe_template.format(option=o, subject=query.subject).strip() for o in options]
        return [str(o) for o in options]

    def answer_probes(self, queries: Sequence[ProbeQuery]) -> list[Answer]:
        from PIL import Image

        if not queries:
            return []
        if any(q.image is None for q in queries):  # text-only queries (GCA text prior): nothing to compare
            seen = [i for i, q in enumerate(queries) if q.image is not None]
            got = iter(self.answer_probes([queries[i] for i in seen]) if seen else [])
            no_image = "clip: no image to compare with (text-only query)"
            return [
                next(got) if q.image is not None else Answer(valid=False, raw_text=no_image) for q in queries
            ]
        t0 = time.perf_counter()
        images = self.encode_images([Image.fromarray(np.asarray(q.image, dtype=np.uint8)) for q in queries])
        prompts = [self.probe_prompts(q) for q in queries]
        flat = list(dict.fromkeys(p for ps in prompts for p in ps))
        table = dict(zip(flat, self.encode_texts(flat)))
        per = (time.perf_counter() - t0) / len(queries)
        answers = []
        for q, img, ps in zip(queries, images, prompts):
            sims = np.stack([table[p] for p in ps]) @ img
            i = int(np.argmax(sims))
            options = q.options or BASIC_COLOUR_TERMS
            answers.append(
                Answer(
                    option=i if q.options else None,
                    text=str(options[i]),
                    raw_text=ps[i],
                    scores=sims.astype(np.float64),
                    timings={"probe_s": per},
                    info={"prompt": ps[i]},
                )
            )
        return answers

    def answer_probe(self, query: ProbeQuery) -> Answer:
        return self.answer_probes([query])[0]


def _board_digest(board: Board) -> str:
    return hashlib.sha256(board.rgb.tobytes()).hexdigest()
