"""A game's cards are ``Generator.choice``'s, dealt lazily from the game's generator."""

from __future__ import annotations

import numpy as np

from huesenv.game.rules import GameState, HuesCuesRules


def test_a_cloned_game_deals_its_own_cards() -> None:
    """A clone's deck reads its own copy of the generator: both games deal the cards of the seed, and
    dealing in one leaves the other's draws alone."""
    twin = np.random.default_rng(9)
    expected = [tuple(twin.choice(480, size=4, replace=False).tolist()) for _ in range(12)]
    game = GameState.new(4, 9)
    assert game.deck[1] == expected[1]
    clone = game.clone()
    assert [clone.deck[i] for i in range(12)] == expected
    assert [game.deck[i] for i in range(12)] == expected


def test_a_given_generator_or_bit_generator_is_the_callers() -> None:
    """A Generator or BitGenerator given as the seed is used, not copied: the cards come from ``choice``
    and leave its state as ``choice`` does (a half buffered by an earlier 32-bit draw included)."""
    rules = HuesCuesRules()
    for wrap in (np.random.Generator, lambda bits: bits):
        bits, twin = np.random.PCG64(5), np.random.Generator(np.random.PCG64(5))
        np.random.Generator(bits).integers(0, 2, dtype=np.uint32)  # leaves a half buffered
        twin.integers(0, 2, dtype=np.uint32)
        state = GameState.new(4, wrap(bits), rules)
        assert [state.deck[i] for i in range(3)] == [
            tuple(twin.choice(480, 4, replace=False).tolist()) for _ in range(3)
        ]
        assert bits.state == twin.bit_generator.state
    assert GameState.new(4, np.random.default_rng(5), rules).deck[2] == GameState.new(4, 5, rules).deck[2]
