"""The seeded random baseline: uniform over legal cells, cues, targets and options."""

from __future__ import annotations

import numpy as np

from huesenv.agents.protocol import Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery


class RandomAgent(BaseAgent):
    """Uniformly random legal play.  Same seed, same choices (numpy ``default_rng``)."""

    name = "random"

    def __init__(self, seed: int | None = 0, vocabulary: tuple[str, ...] | None = None) -> None:
        self._seed = seed
        self._vocabulary = vocabulary
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def guess(self, query: GuessQuery) -> Answer:
        legal = np.flatnonzero(query.legal_mask())
        if legal.size == 0:
            return Answer(valid=False, raw_text="no legal cell")
        k = min(max(query.top_k, 1), legal.size)
        cells = self.rng.choice(legal, size=k, replace=False)
        return Answer(cells=cells.astype(np.int64), scores=np.zeros(k))

    def give_cue(self, query: CueQuery) -> Answer:
        from huesenv.vocabulary import word_texts

        target = query.target
        if target is None:
            target = int(self.rng.choice(np.asarray(query.card)))
        pool = query.vocabulary or self._vocabulary or word_texts()
        allowed = [w for w in pool if w not in query.forbidden]
        if not allowed:
            return Answer(target=target, cue=None, valid=query.cue_index == 2, raw_text="no allowed cue")
        return Answer(target=target, cue=str(allowed[int(self.rng.integers(len(allowed)))]))

    def answer_probe(self, query: ProbeQuery) -> Answer:
        if not query.options:
            return Answer(valid=False, raw_text="random agent needs options")
        i = int(self.rng.integers(len(query.options)))
        return Answer(option=i, text=query.options[i], raw_text=query.options[i])
