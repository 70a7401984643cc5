"""huesenv: the board game Hues and Cues as an environment for measuring colour-semantic alignment.

The core (board, vocabularies, categories, envs, logs, metrics) imports without
torch; model agents live in :mod:`huesenv.agents` behind optional extras.
"""

from huesenv.board import N_CELLS, N_COLS, N_ROWS, Board, format_coord, frame, load_board, parse_coord, ring
from huesenv.categories import MACRO_COLOURS, NEUTRAL_CELLS
from huesenv.envs.hues_cues import defaults as _env_defaults
from huesenv.envs.registration import register_envs as _register_game_envs
from huesenv.lazy import lazy_callable
from huesenv.probes.registry import register_probe_envs
from huesenv.vocabulary import category_of, evaluation_inputs, nonsense_inputs, normalise_word, words

__version__ = "0.1.0"


def register_envs() -> None:
    """Register every huesenv Gymnasium id (game envs and probes); calling it again is a no-op."""
    _register_game_envs()
    register_probe_envs()


# The package entry point is the composition root: the env layer names no agent, so the agents
# layer's defaults (a spec string -> agent factory whose default opponent is "human-replay", and the
# MiniLM cue encoder) are installed here, loaded on first use so that `import huesenv` stays light.
_env_defaults.install_defaults(
    agent_factory=lazy_callable("huesenv.agents.registry:seat_agent"),
    table_factory=lazy_callable("huesenv.agents.vector_tables:seat_table"),
    text_encoder=lazy_callable("huesenv.agents.text_encoders:MiniLMTextEncoder"),
)
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
