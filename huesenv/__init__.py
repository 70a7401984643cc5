"""huesenv: the board game Hues and Cues as an environment for measuring colour-semantic alignment.

The core (board, vocabularies, categories, envs, logs, metrics) imports without
torch; model agents live in :mod:`huesenv.agents` behind optional extras.
"""

from huesenv.board import N_CELLS, N_COLS, N_ROWS, Board, format_coord, frame, load_board, parse_coord, ring
from huesenv.categories import MACRO_COLOURS, NEUTRAL_CELLS
from huesenv.envs.registration import register_envs
from huesenv.vocabulary import category_of, evaluation_inputs, nonsense_inputs, normalise_word, words

__version__ = "0.1.0"

register_envs()  # gymnasium ids huesenv/* (idempotent; the envs themselves import lazily)

__all__ = [
    "Board",
    "MACRO_COLOURS",
    "NEUTRAL_CELLS",
    "N_CELLS",
    "N_COLS",
    "N_ROWS",
    "category_of",
    "evaluation_inputs",
    "format_coord",
    "frame",
    "load_board",
    "nonsense_inputs",
    "normalise_word",
    "parse_coord",
    "register_envs",
    "ring",
    "words",
]
