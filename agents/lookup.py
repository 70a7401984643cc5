"""The simplest baseline that uses a learner's data: a lookup table of people's cells per word.

Why: a learned guesser trained on human answers must beat what those answers
give with no learning at all.  :class:`LookupAgent` is built from the
*training part* of a split (:mod:`huesenv.humans.splits`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.lookup``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.human_replay import frame_share_table
from huesenv.agents.protocol import Answer, BaseAgent, CueQuery, GuessQuery
from huesenv.agents.text_encoders import make_text_encoder
from huesenv.board import load_board
from huesenv.game.rules import DEFAULT_RULES
from huesenv.humans import load_humans
from huesenv.vocabulary import normalise_word


def ranked_cells(cells: np.ndarray) -> np.ndarray:
    """Distinct cells by answer count (ties: nearer the answers' xy mean, then lower index)."""
    cells = np.asarray(cells, dtype=np.int64)
    xy = load_board().xy
    distinct, counts = np.unique(cells, return_counts=True)
    dist = np.linalg.norm(xy[distinct] - xy[cells].mean(axis=0), axis=1)
    return distinct[np.lexsort((distinct, dist, -counts))]


class LookupAgent(BaseAgent):
    """Per word, the training answers' most chosen cells; other cues borrow the nearest training word's."""

    name = "lookup"

    def __init__(self, humans: Any, *, text_encoder: Any = None, label: str = "train") -> None:
        self.words = tuple(humans.words)
        self.table = {w: ranked_cells(humans.cells(w)) for w in self.words}
        self._cells = {w: np.asarray(humans.cells(w), dtype=np.int64) for w in self.words}
        self._frame_share: np.ndarray | None = None  # (words, 480): share of a word's answers in each frame
        self._encoder = text_encoder
        self._word_vectors: np.ndarray | None = None
        self._nearest: dict[str, str] = {}
        self.label = label
        self._xy = load_board().xy

    @classmethod
    def from_export(cls, path: str, **kwargs: Any) -> LookupAgent:
        """The lookup table of a human export file (``lookup:<file>``; e.g. a split's ``train.csv.gz``)."""
        return cls(load_humans(path), label=Path(path).name.split(".")[0], **kwargs)

    @property
    def agent_id(self) -> str:
        return f"lookup:{self.label}"

    def reset(self, seed: int | None = None) -> None:  # deterministic: nothing to reseed
        return None

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if self._encoder is None:
            self._encoder = make_text_encoder("minilm")
        v = np.asarray(self._encoder.encode([t.lower() for t in texts]), dtype=np.float64)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)

    def nearest_word(self, cue: str) -> str:
        """The training word whose cue embedding is nearest (cosine) to ``cue``'s."""
        if cue not in self._nearest:
            if self._word_vectors is None:
                self._word_vectors = self._encode(list(self.words))
            sims = self._word_vectors @ self._encode([cue])[0]
            self._nearest[cue] = self.words[int(np.argmax(sims))]
        return self._nearest[cue]

    def guess(self, query: GuessQuery) -> Answer:
        legal = query.legal_mask()
        cues = [c for c in query.cues if str(c).strip()]
        if not cues or not legal.any():
            return Answer(valid=False, raw_text="no cue" if legal.any() else "no legal cell")
        cue = cues[-1]
        try:
            key = normalise_word(cue)
        except ValueError:
            key = ""
        info: dict[str, Any] = {}
        if key not in self.table:
            key = self.nearest_word(" ".join(str(cue).split()))
            info["nearest_word"] = key
        ranking = [int(c) for c in self.table[key] if legal[int(c)]]
        k = min(max(1, int(query.top_k)), int(legal.sum()))
        if len(ranking) < k:
            first = ranking[0] if ranking else int(self.table[key][0])
            order = np.argsort(np.linalg.norm(self._xy - self._xy[first], axis=1), kind="stable")
            seen = set(ranking)
            ranking += [int(c) for c in order if legal[int(c)] and int(c) not in seen][: k - len(ranking)]
        cells = np.asarray(ranking[:k], dtype=np.int64)
        return Answer(cells=cells, scores=-np.arange(len(cells), dtype=float), info=info)

    def frame_shares(self) -> np.ndarray:
        """``(words, 480)``: the share of each word's training answers inside each cell's scoring frame."""
        if self._frame_share is None:
            self._frame_share = frame_share_table([self._cells[w] for w in self.words], DEFAULT_RULES)
        return self._frame_share

    def give_cue(self, query: CueQuery) -> Answer:
        row = {w: i for i, w in enumerate(self.words)}
        forbidden = query.forbidden_words
        allowed = []
        for w in query.vocabulary or self.words:
            try:
                key = normalise_word(w)
            except ValueError:
                continue
            if key in row and key not in forbidden:
                allowed.append((w, row[key]))
        targets = query.targets
        if not allowed or not targets:
            return query.no_cue("no allowed cue with training answers")
        value = self.frame_shares()[[i for _, i in allowed]][:, list(targets)]  # (W, T)
        w, t = divmod(int(np.argmax(value)), value.shape[1])
        return Answer(
            target=targets[t],
            cue=allowed[w][0],
            scores=np.asarray([value[w, t]]),
            info={"frame_share": float(value[w, t])},
        )
