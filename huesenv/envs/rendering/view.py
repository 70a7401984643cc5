"""What a frame shows, as plain data: re-exported from the game layer (:mod:`huesenv.game.view`).

No pygame import here, so envs and log readers can build views without the
``render`` extra installed.
"""

from huesenv.game.view import RenderView

__all__ = ["RenderView"]
