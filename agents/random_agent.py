"""The seeded random baseline: uniform over legal cells, cues, targets, options and free-text answers.

Free-text probe questions (no options) get a chance answer the probes can parse
(:mod:`huesenv.probes.trials`), so the baseline has valid trials everywhere.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.random_agent``.
"""

from __future__ import annotations

import re

import numpy as np

from huesenv.agents.protocol import Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery
from huesenv.colour_names import CANONICAL_COLOURS, canonical_colour
from huesenv.vocabulary import word_texts


class RandomAgent(BaseAgent):
    """Uniformly random legal play.  Same seed, same choices (numpy ``default_rng``)."""

    name = "random"

    def __init__(self, seed: int | None = 0, vocabulary: tuple[str, ...] | None = None) -> None:
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
        ):
            raise ValueError(f"random agent: seed {seed!r}: expected a whole number >= 0 or null")
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
        target = query.target
        if target is None:
            target = int(self.rng.choice(np.asarray(query.card)))
        pool = query.vocabulary or self._vocabulary or word_texts()
        allowed = [w for w in pool if w not in query.forbidden]
        if not allowed:
            return query.no_cue("no allowed cue", target)
        return Answer(target=target, cue=str(allowed[int(self.rng.integers(len(allowed)))]))

    def answer_probe(self, query: ProbeQuery) -> Answer:
        if query.options:
            i = int(self.rng.integers(len(query.options)))
            return Answer(option=i, text=query.options[i], raw_text=query.options[i])
        question = query.question or ""
        template = _FORMAT.search(question)
        if template:
            text = _PLACEHOLDER.sub(lambda m: self._fill(m.group(0), question), template.group(1).strip())
            slot = _COLOUR_SLOT.search(text)
            return Answer(text=slot.group(1) if slot else None, raw_text=text)
        if _NUMERIC.search(question):
            text = self._percent()
            return Answer(text=text, raw_text=text)
        colour = self._colour(question)
        return Answer(text=colour, raw_text=colour)

    def _percent(self) -> str:
        return f"{int(self.rng.integers(0, 101))}%"

    def _colour(self, question: str) -> str:
        pool: list[str] = list(CANONICAL_COLOURS)
        offered = _CHOOSE.search(question)
        if offered:
            read = [canonical_colour(w) for w in re.split(r",|\bor\b", offered.group(1))]
            named = [c for c in dict.fromkeys(read) if c is not None]
            if len(named) >= 2:
                pool = named
        return pool[int(self.rng.integers(len(pool)))]

    def _fill(self, placeholder: str, question: str) -> str:
        return self._percent() if placeholder.lower().startswith("x") else self._colour(question)


# "Reply with the format: threshold=x%, color=<color>." → the template after the colon.
_FORMAT = re.compile(r"reply with the format:\s*(.+?)\.?\s*$", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\bx%|<colou?r>", re.IGNORECASE)
_COLOUR_SLOT = re.compile(r"colou?r\s*=\s*([a-z]+)", re.IGNORECASE)
_NUMERIC = re.compile(r"percent|threshold|x%|\d\s*%", re.IGNORECASE)
_CHOOSE = re.compile(r"choose\s+([a-z ,]+?)(?:[.?!]|$)", re.IGNORECASE)
