"""The one place that opens a pygame window (replay, human play and ``render_mode="human"``).

Kept apart from the renderer so that producing frames never touches the
display subsystem: only code that really wants a window imports this.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import Any


def display_problem() -> str | None:
    """Why a window cannot be seen here (None when a display looks available).

    Without this check pygame falls back to an invisible window and an interactive
    replay waits forever for a key nobody can press.
    """
    driver = os.environ.get("SDL_VIDEODRIVER", "").lower()
    if driver in ("dummy", "offscreen"):
        return f"SDL_VIDEODRIVER={driver} draws off-screen"
    if sys.platform.startswith("linux") and driver not in ("kmsdrm", "directfb"):
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    return None


class Window:
    """A pygame display window showing pre-drawn surfaces, with an injectable event source.

    ``events`` defaults to ``pygame.event.get``; tests pass their own callable
    (or post events into pygame's queue under ``SDL_VIDEODRIVER=dummy``).
    """

    def __init__(
        self,
        size: tuple[int, int],
        title: str = "Hues and Cues",
        events: Callable[[], Iterable[Any]] | None = None,
    ) -> None:
        import pygame

        self._pg = pygame
        pygame.display.init()
        pygame.font.init()
        self.screen = pygame.display.set_mode(size)
        pygame.display.set_caption(title)
        self._events = events or pygame.event.get
        self.clock = pygame.time.Clock()
        self.closed = False

    def present(self, surface: Any) -> None:
        if self.closed:
            return
        self.screen.blit(surface, (0, 0))
        self._pg.display.flip()

    def pump(self) -> None:
        """Keep the OS from marking the window unresponsive when nobody reads events."""
        if not self.closed:
            self._pg.event.pump()

    def events(self) -> list[Any]:
        return [] if self.closed else list(self._events())

    def tick(self, fps: float) -> float:
        """Wait for the next frame at ``fps``; returns seconds elapsed since the last tick."""
        return self.clock.tick(max(fps, 1)) / 1000.0

    def start_text_input(self) -> None:
        try:
            self._pg.key.start_text_input()
        except Exception:  # pragma: no cover - some drivers have no text input
            pass

    def close(self) -> None:
        if not self.closed:
            self._pg.display.quit()
            self.closed = True
