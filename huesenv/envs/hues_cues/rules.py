"""Compatibility re-export: the rules state machine lives in the game layer, :mod:`huesenv.game.rules`."""

from huesenv.game.rules import *  # noqa: F403
from huesenv.game.rules import __all__  # noqa: F401
