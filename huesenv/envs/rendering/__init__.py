"""Frames of the board: the plain-data view, the pixel layout, the pygame renderer and its window.

Why here, in the environment layer: the env's ``render()`` draws frames, and a
lower layer must not import an application (:mod:`huesenv.render` holds the
apps built on top: log playback and video export).  ``RenderView`` and the
layout are plain Python; pygame is imported only when a renderer is created.
"""
