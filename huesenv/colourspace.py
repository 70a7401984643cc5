"""Colour conversions: sRGB → CIE XYZ → CIE 1931 xy / CIELAB, and ΔE2000, all through colour-science.

Why one module: the board, the macro-colour categories, the text-embedding agent's
naming kernel, the reconstructed CVD answers, the interference stimuli and the
probe answer parser all convert sRGB; doing it in one place means one colour space
(IEC 61966-2-1 sRGB, its D65 white, Y in [0, 1], L in [0, 100]), one transfer
function and one ΔE, so two modules can never disagree about a colour.

colour-science is imported inside the functions (:func:`colour_science`): it
takes about a second to import and ``import huesenv`` must stay fast.
"""

from __future__ import annotations

import sys
import threading
from types import ModuleType
from typing import Any

import numpy as np

__all__ = [
    "adapt_to",
    "colour_science",
    "delta_e2000",
    "device_to_xyz",
    "lab_to_srgb",
    "linear_srgb_to_lab",
    "srgb_decode",
    "srgb_to_lab",
    "srgb_to_xyz",
    "rgb_colourspace",
    "xyy_to_xyz",
    "xyz_to_lab",
    "xyz_to_srgb",
    "xyz_to_xy",
]

_COLOUR_IMPORT = threading.Lock()  # one thread imports colour-science (see colour_science)


def colour_science() -> ModuleType:
    """The ``colour`` module, imported on first use with NumPy's print options kept as they were.

    Why: colour-science's ``__init__`` calls ``numpy.set_printoptions(legacy="1.13")``
    for the whole process, so merely loading the human cohort changed how a
    user's NumPy 2 scalars print (``3`` instead of ``np.int64(3)``) and made
    reprs differ with the order things were imported in.  The module is returned
    by an ``import`` statement, not read from ``sys.modules``: while one thread
    imports it, ``sys.modules`` already holds the half-initialised module, and
    only the import statement waits for it (the lock makes one thread the importer).
    """
    if "colour" not in sys.modules:
        with _COLOUR_IMPORT, np.printoptions():  # printoptions: restores every print option on exit
            import colour  # noqa: F401 - the first import, under the print options kept
    import colour

    return colour


def rgb_colourspace(name: str) -> Any:
    """colour-science's RGB colourspace ``name`` ("sRGB", "Display P3", "Adobe RGB (1998)", "NTSC (1953)")."""
    return colour_science().RGB_COLOURSPACES[name]


def _srgb() -> Any:
    return rgb_colourspace("sRGB")


def srgb_decode(rgb: Any, scale: float = 255.0) -> np.ndarray:
    """Linear sRGB in [0, 1] of encoded sRGB values (``scale`` = 255 for 8-bit, 1 for [0, 1] floats)."""
    return np.asarray(_srgb().cctf_decoding(np.asarray(rgb) / scale), dtype=np.float64)


def srgb_to_xyz(rgb: Any, scale: float = 255.0) -> np.ndarray:
    """CIE XYZ (D65, Y in [0, 1]) of encoded sRGB values, shape ``(..., 3)``."""
    colour = colour_science()

    return np.asarray(
        colour.RGB_to_XYZ(np.asarray(rgb) / scale, _srgb(), apply_cctf_decoding=True), dtype=np.float64
    )


def linear_srgb_to_xyz(linear: Any) -> np.ndarray:
    """CIE XYZ (D65) of linear sRGB in [0, 1] (e.g. after a colour-vision simulation)."""
    colour = colour_science()

    return np.asarray(
        colour.RGB_to_XYZ(np.asarray(linear), _srgb(), apply_cctf_decoding=False), dtype=np.float64
    )


def xyz_to_xy(xyz: Any) -> np.ndarray:
    """CIE 1931 xy chromaticity of CIE XYZ."""
    colour = colour_science()

    return np.asarray(colour.XYZ_to_xy(np.asarray(xyz)), dtype=np.float64)


def xyz_to_lab(xyz: Any) -> np.ndarray:
    """CIELAB (the sRGB white, D65; L in [0, 100]) of CIE XYZ."""
    colour = colour_science()

    return np.asarray(colour.XYZ_to_Lab(np.asarray(xyz), _srgb().whitepoint), dtype=np.float64)


def srgb_to_lab(rgb: Any, scale: float = 255.0) -> np.ndarray:
    """CIELAB (D65) of encoded sRGB values (``scale`` as in :func:`srgb_to_xyz`)."""
    return xyz_to_lab(srgb_to_xyz(rgb, scale))


def linear_srgb_to_lab(linear: Any) -> np.ndarray:
    """CIELAB (D65) of linear sRGB in [0, 1]."""
    return xyz_to_lab(linear_srgb_to_xyz(linear))


def delta_e2000(lab_a: Any, lab_b: Any) -> np.ndarray:
    """CIE ΔE2000 between CIELAB colours (broadcast like numpy)."""
    colour = colour_science()

    return np.asarray(
        colour.delta_E(np.asarray(lab_a), np.asarray(lab_b), method="CIE 2000"), dtype=np.float64
    )


def xyy_to_xyz(xyy: Any) -> np.ndarray:
    """CIE XYZ of CIE xyY (a colorimeter's reading)."""
    return np.asarray(colour_science().xyY_to_XYZ(np.asarray(xyy, dtype=np.float64)), dtype=np.float64)


def device_to_xyz(linear: Any, primaries: Any, white_xy: Any, space: str | None = None) -> np.ndarray:
    """CIE XYZ (white Y = 1) of linear RGB on a device with these xy primaries (R, G, B) and white.

    ``space``: the named colourspace's own matrix (sRGB's is IEC's rounded one) instead of a derived one."""
    colour = colour_science()
    device = (
        rgb_colourspace(space)
        if space
        else colour.RGB_Colourspace("device", np.asarray(primaries), np.asarray(white_xy))
    )
    return np.asarray(colour.RGB_to_XYZ(np.asarray(linear), device), dtype=np.float64)


def xyz_to_srgb(xyz: Any) -> np.ndarray:
    """Encoded sRGB in [0, 1] (clipped) of CIE XYZ, for drawing a patch; no chromatic adaptation."""
    colour = colour_science()
    rgb = colour.XYZ_to_RGB(np.asarray(xyz), _srgb(), apply_cctf_encoding=True)
    return np.clip(np.nan_to_num(np.asarray(rgb, dtype=np.float64)), 0.0, 1.0)


def adapt_to(xyz: Any, white: Any, white_to: Any, transform: str = "Von Kries") -> np.ndarray:
    """Von Kries chromatic adaptation of XYZ from ``white`` to ``white_to`` with a named cone transform."""
    colour = colour_science()
    return np.asarray(
        colour.chromatic_adaptation(
            np.asarray(xyz), np.asarray(white), np.asarray(white_to), method="Von Kries", transform=transform
        ),
        dtype=np.float64,
    )


def lab_to_srgb(lab: Any) -> np.ndarray:
    """Encoded sRGB in [0, 1] (clipped to the gamut) of CIELAB (D65): a user corpus given in Lab."""
    return xyz_to_srgb(colour_science().Lab_to_XYZ(np.asarray(lab, dtype=np.float64), _srgb().whitepoint))
