"""Shared play for agents that score every cell for a text (CLIP, text embedding).

A subclass provides :meth:`ScoringAgent.cell_scores` (texts → ``(n, 480)`` scores,
higher = better match).  This base turns scores into the three jobs.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.scoring``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from scipy.special import log_softmax, logsumexp

from huesenv.agents.protocol import Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery, Query
from huesenv.agents.ranking import ranked_answer
from huesenv.board import N_CELLS, frame
from huesenv.vocabulary import normalise_word, word_texts

CUE_STRATEGIES = ("similarity", "pragmatic")


class ScoringAgent(BaseAgent):
    """Base for agents with a text → per-cell score function."""

    name = "scoring"

    def __init__(
        self,
        *,
        cue_strategy: str = "pragmatic",
        contrast: float = 0.5,
        vocabulary: Sequence[str] | None = None,
    ) -> None:
        if cue_strategy not in CUE_STRATEGIES:
            raise ValueError(f"cue_strategy {cue_strategy!r}: expected one of {CUE_STRATEGIES}")
        self.cue_strategy = cue_strategy
        self.contrast = float(contrast)
        self.vocabulary = tuple(vocabulary) if vocabulary else None

    # -- to implement -----------------------------------------------------------
    def cell_scores(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), 480)`` scores, higher = the cell matches the text better."""
        raise NotImplementedError

    def listener_logits(self, scores: np.ndarray) -> np.ndarray:
        """Scores → a literal listener's logits over cells (default: z-scored per text, ×5)."""
        mu = scores.mean(axis=-1, keepdims=True)
        sd = scores.std(axis=-1, keepdims=True)
        return 5.0 * (scores - mu) / np.maximum(sd, 1e-9)

    # -- batching ---------------------------------------------------------------
    def _texts_of(self, query: Query) -> list[str]:
        if isinstance(query, GuessQuery):
            return list(query.cues)
        if isinstance(query, CueQuery):
            return list(self._candidates(query))
        return []

    def act_batch(self, queries: Sequence[Query]) -> list[Answer]:
        texts = list(dict.fromkeys(t for q in queries for t in self._texts_of(q)))
        t0 = time.perf_counter()
        table = dict(zip(texts, self.cell_scores(texts))) if texts else {}
        encode_s = (time.perf_counter() - t0) / max(len(queries), 1)
        out: list[Answer] = []
        probes = [i for i, q in enumerate(queries) if isinstance(q, ProbeQuery)]
        probe_queries = [q for q in queries if isinstance(q, ProbeQuery)]  # in the order of ``probes``
        probe_answers = dict(zip(probes, self.answer_probes(probe_queries))) if probes else {}
        for i, q in enumerate(queries):
            if isinstance(q, GuessQuery):
                ans = self._guess_from(q, table)
            elif isinstance(q, CueQuery):
                ans = self._cue_from(q, table)
            elif isinstance(q, ProbeQuery):
                ans = probe_answers[i]
            else:
                raise TypeError(f"{self.name}: unsupported query type {type(q).__name__}")
            ans.timings.setdefault("encode_s", encode_s)
            out.append(ans)
        return out

    def act(self, query: Query) -> Answer:
        return self.act_batch([query])[0]

    def answer_probes(self, queries: Sequence[ProbeQuery]) -> list[Answer]:
        return [self.answer_probe(q) for q in queries]

    # -- guessing ---------------------------------------------------------------
    def _guess_from(self, query: GuessQuery, table: dict[str, np.ndarray]) -> Answer:
        if not query.cues:
            return Answer(valid=False, raw_text="no cue given")
        scores = np.mean([table[c] for c in query.cues], axis=0)
        return ranked_answer(scores, query.legal_mask(), query.top_k)

    # -- cue giving -------------------------------------------------------------
    def _candidates(self, query: CueQuery) -> tuple[str, ...]:
        pool = query.vocabulary or self.vocabulary or word_texts()
        return tuple(w for w in pool if normalise_word(w) not in query.forbidden_words)

    def _cue_from(self, query: CueQuery, table: dict[str, np.ndarray]) -> Answer:
        words = self._candidates(query)
        card = [int(c) for c in query.card]
        if not card:
            return Answer(valid=False, raw_text="empty card")
        targets = query.targets
        if not words:
            return query.no_cue("no allowed cue", targets[0])
        scores = np.stack([table[w] for w in words])  # (V, 480)
        if self.cue_strategy == "similarity":
            value = scores[:, targets]  # (V, T)
        else:
            free = np.ones(N_CELLS, bool) if query.occupied is None else ~np.asarray(query.occupied, bool)
            free[card] = True  # the target must stay reachable
            logits = np.where(free, self.listener_logits(scores), -np.inf)
            logp = log_softmax(logits, axis=-1)
            frame_mass = np.stack([logsumexp(logp[:, frame(c)], axis=-1) for c in card], axis=1)  # (V, card)
            per_target = []
            for t in targets:
                j = card.index(t) if t in card else None
                own = logsumexp(logp[:, frame(t)], axis=-1) if j is None else frame_mass[:, j]
                others = [k for k, c in enumerate(card) if c != t]
                rival = frame_mass[:, others].max(axis=1) if others else 0.0
                per_target.append(own - self.contrast * rival)
            value = np.stack(per_target, axis=1)
        flat = int(np.argmax(value))  # first maximum: deterministic
        w, ti = divmod(flat, value.shape[1])
        return Answer(
            target=targets[ti],
            cue=words[w],
            scores=np.asarray([value[w, ti]]),
            info={"cue_strategy": self.cue_strategy},
        )
