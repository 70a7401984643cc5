"""Cards as ``Generator.choice(population, size, replace=False)`` deals them, read from the generator's raw bits.

Why: a game deals a card every round, and numpy's ``choice`` spent about 15 µs
on one, nearly all of it in Python-level argument handling (``np.prod`` of the
size, ``np.full`` of a hash set) around a few random numbers: the largest single
cost of a ``Guesser-v1`` learner step.  :class:`ChoiceDraws` takes the same
random numbers and makes the same cards, draw for draw, in a quarter of the time.

What it reproduces (numpy's ``Generator.choice`` for a population of at most
10,000 without replacement; the test deals against the installed numpy, and
the same cards were seen on numpy 1.25 and 2.4): Floyd's sampling, for ``j``
from ``population - size`` to ``population - 1`` a value drawn in ``[0, j]``
(one drawn before: ``j`` itself), then a Fisher-Yates shuffle of the values,
for ``i`` from ``size - 1`` down to 1 a position drawn in ``[0, i]``.  Each bounded draw is Lemire's method on one
32-bit output (numpy's ``random_bounded_uint64`` → ``buffered_bounded_lemire_uint32``),
and PCG64 gives 32-bit outputs as the low, then the high half of a 64-bit one.

Only for a PCG64 generator that nothing else draws from (a game's own): the
unused halves are kept here, not in the generator, so the generator's state is
not the one ``choice`` would leave.  ``tests/test_game_card_draws.py`` deals
thousands of cards both ways, so a numpy that changed its algorithm is caught.
"""

from __future__ import annotations

import numpy as np

_LOW = 0xFFFFFFFF
#: numpy's choice takes Floyd's path up to this population (a larger one may shuffle a tail instead)
MAX_POPULATION = 10_000


class ChoiceDraws:
    """The cards ``rng.choice(population, size, replace=False)`` would deal, one call after another."""

    def __init__(self, rng: np.random.Generator) -> None:
        if type(rng.bit_generator) is not np.random.PCG64:
            raise TypeError(
                f"ChoiceDraws: expected a PCG64 generator, got {type(rng.bit_generator).__name__}"
            )
        # the bit generator, not its bound ``random_raw``: numpy builds before 2.0 make that a builtin
        # method, which ``deepcopy`` (``GameState.clone``) would leave reading the original game's stream
        self._bits = rng.bit_generator
        self._halves: list[int] = []  # 32-bit outputs not used yet, the next one last
        state = self._bits.state
        if state["has_uint32"]:  # a half the generator kept from a 32-bit draw: numpy serves it first
            self._halves.append(int(state["uinteger"]))

    def _next32(self) -> int:
        halves = self._halves
        if not halves:
            for word in reversed(self._bits.random_raw(4).tolist()):  # low half first: pushed last
                halves.append(word >> 32)
                halves.append(word & _LOW)
        return halves.pop()

    def _bounded(self, high: int) -> int:
        """A value in ``[0, high]`` as numpy's Lemire draw makes it (``high`` below 2**32)."""
        if high == 0:
            return 0  # numpy draws nothing for a range of one value
        span = high + 1
        m = self._next32() * span
        if (m & _LOW) < span:
            threshold = (_LOW - high) % span
            while (m & _LOW) < threshold:
                m = self._next32() * span
        return m >> 32

    def card(self, population: int, size: int) -> tuple[int, ...]:
        """``tuple(rng.choice(population, size, replace=False).tolist())``, from this generator's next draws."""
        if not 0 <= size <= population <= MAX_POPULATION:
            raise ValueError(f"ChoiceDraws.card: expected 0 <= size <= population <= {MAX_POPULATION}")
        bounded = self._bounded
        cells: list[int] = []
        for j in range(population - size, population):  # Floyd's sampling
            value = bounded(j)
            cells.append(j if value in cells else value)
        for i in range(size - 1, 0, -1):  # the Fisher-Yates shuffle of the sample
            k = bounded(i)
            cells[i], cells[k] = cells[k], cells[i]
        return tuple(cells)
