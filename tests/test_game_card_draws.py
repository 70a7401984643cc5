"""``ChoiceDraws`` deals the cards numpy's ``Generator.choice`` deals, draw for draw (see its module)."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.game.card_draws import ChoiceDraws
from huesenv.game.rules import Deck, GameState, HuesCuesRules


@pytest.mark.parametrize(("population", "size"), [(480, 4), (480, 1), (480, 9), (7, 7), (3, 2), (10_000, 30)])
def test_cards_are_those_of_generator_choice(population: int, size: int) -> None:
    for seed in range(600):
        numpy_rng, ours = np.random.default_rng(seed), ChoiceDraws(np.random.default_rng(seed))
        for _ in range(14):  # a game's worth of cards, then some: the halves carried between cards
            expected = tuple(numpy_rng.choice(population, size=size, replace=False).tolist())
            assert ours.card(population, size) == expected, (seed, population, size)


def test_lemire_rejections_are_drawn_again() -> None:
    """A range near 2**32 rejects often: the redraws follow numpy's (its ``integers`` takes the same
    32-bit Lemire draw there), as the card after them shows."""
    ours = ChoiceDraws(np.random.default_rng(11))
    numpy_rng = np.random.default_rng(11)
    for high in (2**32 - 2, 3 * 2**30, 2**31 + 1) * 30:
        assert ours._bounded(high) == int(numpy_rng.integers(0, high + 1))
    assert ours.card(480, 4) == tuple(numpy_rng.choice(480, size=4, replace=False).tolist())


def test_only_a_deck_owning_a_pcg64_generator_uses_it() -> None:
    rules = HuesCuesRules()
    assert Deck(np.random.default_rng(0), 4, 100, owned=True)._draws is not None
    assert Deck(np.random.default_rng(0), 4, 100)._draws is None  # a caller's generator: choice itself
    mt = np.random.Generator(np.random.MT19937(0))
    assert Deck(mt, 4, 100, owned=True)._draws is None
    with pytest.raises(TypeError, match="PCG64"):
        ChoiceDraws(mt)
    given = np.random.default_rng(5)
    state = GameState.new(4, given, rules)
    assert state.deck[2] == GameState.new(4, 5, rules).deck[2]  # the same cards either way
    twin = np.random.default_rng(5)
    for _ in range(3):
        twin.choice(480, size=4, replace=False)
    assert given.bit_generator.state == twin.bit_generator.state  # a given generator: choice's state


def test_bad_sizes_are_refused() -> None:
    draws = ChoiceDraws(np.random.default_rng(0))
    for population, size in ((480, 481), (480, -1), (20_000, 4)):
        with pytest.raises(ValueError, match="ChoiceDraws.card"):
            draws.card(population, size)


def test_a_cloned_game_deals_its_own_cards() -> None:
    """A clone's deck reads its own copy of the generator: both games deal the cards of the seed, and
    dealing in one leaves the other's draws alone (on numpy < 2 a kept ``random_raw`` was shared)."""
    twin = np.random.default_rng(9)
    expected = [tuple(twin.choice(480, size=4, replace=False).tolist()) for _ in range(12)]
    game = GameState.new(4, 9)
    assert game.deck[1] == expected[1]  # two cards dealt, halves buffered
    clone = game.clone()
    assert [clone.deck[i] for i in range(12)] == expected
    assert [game.deck[i] for i in range(12)] == expected


def test_a_bit_generator_or_a_buffered_half_is_the_callers() -> None:
    """A BitGenerator given as the seed is wrapped, not copied, by ``default_rng``: the cards come from
    ``choice`` and leave its state as ``choice`` does.  A generator holding a 32-bit half from an
    earlier draw deals that half first, as numpy does."""
    rules = HuesCuesRules()
    bits, twin = np.random.PCG64(5), np.random.Generator(np.random.PCG64(5))
    np.random.Generator(bits).integers(0, 2, dtype=np.uint32)  # leaves a half buffered
    twin.integers(0, 2, dtype=np.uint32)
    state = GameState.new(4, bits, rules)
    assert [state.deck[i] for i in range(3)] == [
        tuple(twin.choice(480, 4, replace=False).tolist()) for _ in range(3)
    ]
    assert bits.state == twin.bit_generator.state
    buffered, numpy_rng = np.random.default_rng(3), np.random.default_rng(3)
    buffered.integers(0, 2, dtype=np.uint32)
    numpy_rng.integers(0, 2, dtype=np.uint32)
    ours = ChoiceDraws(buffered)
    for _ in range(5):
        assert ours.card(480, 4) == tuple(numpy_rng.choice(480, size=4, replace=False).tolist())
