"""Simulated displays: the board's sRGB values sent, unmanaged, to panels with other primaries, whites, curves.

Why unmanaged: the study's participants played in browsers on uncalibrated screens, so the page's sRGB
numbers drove each panel's own primaries and tone curve.  A profile is the panel's xy primaries, its
white (the full-white chromaticity; luminance is normalised to white Y = 1) and its tone curve (the
sRGB piecewise curve, or a pure power).  Four panels, each also at 5,000 / 7,500 / 9,300 K white
(CIE D-series chromaticity at that CCT, the colour-temperature presets of VESA MCCS, VCP code 14h)
and at gamma 1.8 (classic Mac OS before 10.6) and 2.4 (ITU-R BT.1886's reference display): 24 profiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from huesenv.colourspace import colour_science, device_to_xyz, rgb_colourspace, srgb_decode, xyy_to_xyz

NARROW_NTSC_SHARE = 0.45  # "45 % NTSC", the gamut budget laptop panels' datasheets state
WHITES_K = (5000, 7500, 9300)
GAMMAS = (1.8, 2.4)


@dataclass(frozen=True)
class Profile:
    """One display: ``gamma`` None means the sRGB piecewise curve (IEC 61966-2-1)."""

    name: str
    primaries: tuple[tuple[float, float], ...]  # R, G, B in CIE 1931 xy
    white: tuple[float, float]
    gamma: float | None
    source: str
    space: str | None = None  # a colour-science colourspace whose own matrix it uses (same primaries, white)

    def show(self, rgb: np.ndarray) -> np.ndarray:
        """CIE XYZ (white Y = 1) of 8-bit sRGB values shown on this display, shape ``(..., 3)``."""
        if self.gamma is None:
            linear = srgb_decode(rgb)
        else:
            linear = np.asarray(colour_science().gamma_function(np.asarray(rgb) / 255.0, self.gamma))
        return device_to_xyz(linear, self.primaries, self.white, self.space)

    @property
    def white_xyz(self) -> np.ndarray:
        return xyy_to_xyz([*self.white, 1.0])


def _xy(values: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in np.asarray(values))


def _area(primaries: np.ndarray) -> float:
    (ax, ay), (bx, by), (cx, cy) = primaries
    return abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) / 2


def narrow_primaries() -> np.ndarray:
    """sRGB's primaries pulled toward D65 in xy until the triangle covers 45 % of NTSC (1953)'s area."""
    srgb = np.asarray(rgb_colourspace("sRGB").primaries)
    white = np.asarray(rgb_colourspace("sRGB").whitepoint)
    ntsc = np.asarray(rgb_colourspace("NTSC (1953)").primaries)
    scale = np.sqrt(NARROW_NTSC_SHARE * _area(ntsc) / _area(srgb))
    return white + scale * (srgb - white)


def _bases() -> list[Profile]:
    colour = rgb_colourspace
    wx, wy = (float(v) for v in colour("sRGB").whitepoint)
    d65 = (wx, wy)
    return [
        Profile("srgb", _xy(colour("sRGB").primaries), d65, None, "IEC 61966-2-1:1999 sRGB", "sRGB"),
        Profile(
            "display-p3",
            _xy(colour("Display P3").primaries),
            d65,
            None,
            "Apple Display P3: DCI-P3 primaries (SMPTE EG 432-1), D65, sRGB curve",
            "Display P3",
        ),
        Profile(
            "adobe-rgb",
            _xy(colour("Adobe RGB (1998)").primaries),
            d65,
            563 / 256,
            "Adobe RGB (1998) Color Image Encoding (Adobe Systems, 2005), gamma 563/256",
            "Adobe RGB (1998)",
        ),
        Profile(
            "laptop-45ntsc",
            _xy(narrow_primaries()),
            d65,
            2.2,
            "the 45 % NTSC class of budget laptop panels: sRGB primaries shrunk toward D65 to 45 % of "
            "NTSC (1953)'s xy area, gamma 2.2 (IEC 61966-2-1's reference display)",
        ),
    ]


@lru_cache(maxsize=1)
def bundled_profiles() -> dict[str, Profile]:
    """The 24 bundled profiles by name: each panel, then at each white, then at each gamma."""
    colour = colour_science()
    out: dict[str, Profile] = {}
    for base in _bases():
        out[base.name] = base
        for kelvin in WHITES_K:
            white = colour.CCT_to_xy(kelvin, method="CIE Illuminant D Series")
            name = f"{base.name}-{kelvin}k"
            source = f"{base.source}; white: CIE D-series at {kelvin} K (VESA MCCS preset)"
            out[name] = Profile(name, base.primaries, (float(white[0]), float(white[1])), base.gamma, source)
        for gamma in GAMMAS:
            name = f"{base.name}-gamma{gamma}"
            why = "classic Mac OS" if gamma < 2 else "ITU-R BT.1886 reference display"
            out[name] = Profile(
                name, base.primaries, base.white, gamma, f"{base.source}; gamma {gamma} ({why})"
            )
    return out


def profile(name: str) -> Profile:
    """A bundled profile by name; a one-line error listing the names otherwise."""
    profiles = bundled_profiles()
    if name not in profiles:
        raise ValueError(f"--profiles {name!r}: unknown profile; expected one of {', '.join(profiles)}")
    return profiles[name]
