"""What the envs use when the caller names no agent object or text encoder: installed from above.

Why: the env layer sits below :mod:`huesenv.agents` and must not name it, not
even in a string (``tests/test_architecture.py`` checks).  The wrappers take
agent objects, or spec strings that an *agent factory* turns into agents; the
AEC env takes a text encoder object.  When the caller passes none, the env asks
this module, and the package entry point (``huesenv/__init__.py``) installs the
agents layer's defaults here on ``import huesenv`` (which every ``huesenv.*``
import runs first), so ``gymnasium.make("huesenv/Guesser-v1")`` plays against
replayed people and ``cue_encoding="embedding"`` uses the MiniLM of the
``embed`` extra, as before, while the dependency points down.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: ``import huesenv`` installs the defaults and must stay light
    from huesenv.envs.hues_cues.encoding import TextEncoder
    from huesenv.game.protocol import Agent


class AgentFactory(Protocol):
    """Builds the agent of one seat: ``spec`` is a spec string, or ``None`` for the default opponent."""

    def __call__(self, spec: str | None, *, vocabulary: Sequence[str]) -> Agent: ...


class TableFactory(Protocol):
    """Builds the batched game's table opponent (:class:`~huesenv.envs.vector_game.opponents.TableOpponent`)
    of a spec string (``None``: the default opponent, as :class:`AgentFactory`)."""

    def __call__(self, spec: str | None, *, vocabulary: Sequence[str], rules: Any) -> Any: ...


_agent_factory: AgentFactory | None = None
_table_factory: TableFactory | None = None
_text_encoder: Callable[[], TextEncoder] | None = None


def install_defaults(
    *,
    agent_factory: AgentFactory | None = None,
    table_factory: TableFactory | None = None,
    text_encoder: Callable[[], TextEncoder] | None = None,
) -> None:
    """Set the factories for spec strings / default opponents and the default text encoder (``None`` keeps one)."""
    global _agent_factory, _table_factory, _text_encoder
    if agent_factory is not None:
        _agent_factory = agent_factory
    if table_factory is not None:
        _table_factory = table_factory
    if text_encoder is not None:
        _text_encoder = text_encoder


def default_table_factory() -> TableFactory:
    """The installed table factory of the batched game (``ValueError`` when nothing installed one)."""
    if _table_factory is None:
        raise ValueError(
            "opponents: no table factory installed; pass TableOpponent tables or table_factory=... "
            "(import huesenv installs the agents' tables)"
        )
    return _table_factory


def default_agent_factory() -> AgentFactory:
    """The installed agent factory (``ValueError`` when nothing installed one)."""
    if _agent_factory is None:
        raise ValueError(
            "opponents: no agent factory installed; pass agent objects or agent_factory=... "
            "(import huesenv installs the agents' registry)"
        )
    return _agent_factory


def default_text_encoder() -> TextEncoder:
    """A new instance of the installed default text encoder (``ValueError`` when none is installed)."""
    if _text_encoder is None:
        raise ValueError("cue_encoding='embedding' needs a text_encoder: none given and no default installed")
    return _text_encoder()
