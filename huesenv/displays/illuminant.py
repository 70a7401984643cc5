"""The illuminant condition: the board's colours as surfaces lit by a light whose white matches a display's.

Reflectances are recovered from the board's colours (``colour.XYZ_to_sd``, Mallett & Yuksel 2019 by
default), lit by the CIE D-series illuminant at the correlated colour temperature of the display's
white (Ohno 2013; a Planckian radiator below 4,000 K, where the D series is undefined) and integrated
with the CIE 1931 2° observer, with Y = 1 for the perfect white.  Everything is aligned to one
spectral shape (380-780 nm, 5 nm: the Mallett basis's) so nothing is re-interpolated behind our back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from huesenv.colourspace import colour_science

D_SERIES_MIN_K = 4000.0
CCT_RANGE_K = (1000.0, 25000.0)
RECOVERY = "Mallett 2019"


def _shape() -> Any:
    return colour_science().SpectralShape(380, 780, 5)


MAX_DUV = 0.05  # CCT means something only near the Planckian locus (Ohno 2014: |Duv| ≤ 0.05)


def cct_of(white_xy: Any, where: str = "white") -> float:
    """Correlated colour temperature (K) of a white's xy (Ohno 2013), refused outside 1,000-25,000 K
    or farther than :data:`MAX_DUV` from the Planckian locus."""
    colour = colour_science()
    cct, duv = (
        float(v)
        for v in colour.temperature.uv_to_CCT(colour.xy_to_UCS_uv(np.asarray(white_xy)), method="Ohno 2013")
    )
    if abs(duv) > MAX_DUV:
        raise ValueError(
            f"{where}: its white is {abs(duv):.3f} Duv from the Planckian locus (at most {MAX_DUV})"
        )
    if not CCT_RANGE_K[0] <= cct <= CCT_RANGE_K[1]:
        raise ValueError(
            f"{where}: its white's CCT {cct:.0f} K is outside {CCT_RANGE_K[0]:.0f}-{CCT_RANGE_K[1]:.0f} K"
        )
    return cct


@dataclass(frozen=True)
class Illuminant:
    name: str
    cct: float
    sd: Any  # colour.SpectralDistribution on the common shape

    def light(self, reflectances: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        """XYZ of the surfaces under this light (perfect white Y = 1) and the light's white XYZ."""
        colour = colour_science()
        cmfs = colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"].copy().align(_shape())
        xyz = [colour.sd_to_XYZ(r, cmfs, self.sd) / 100 for r in reflectances]
        white = colour.sd_to_XYZ(colour.sd_ones(_shape()), cmfs, self.sd) / 100
        return np.asarray(xyz, dtype=np.float64), np.asarray(white, dtype=np.float64)


def illuminant_for(white_xy: Any, where: str = "white") -> Illuminant:
    """The D-series illuminant (Planckian below 4,000 K) at the CCT of ``white_xy``."""
    colour = colour_science()
    cct = cct_of(white_xy, where)
    if cct < D_SERIES_MIN_K:
        return Illuminant(f"Planckian {cct:.0f} K", cct, colour.sd_blackbody(cct, _shape()))
    xy = colour.CCT_to_xy(cct, method="CIE Illuminant D Series")
    sd = colour.sd_CIE_illuminant_D_series(xy).copy().align(_shape())
    return Illuminant(f"CIE D-series {cct:.0f} K", cct, sd)


def recovery_methods() -> tuple[str, ...]:
    return tuple(colour_science().XYZ_TO_SD_METHODS)


def recover(xyz: np.ndarray, method: str = RECOVERY) -> list[Any]:
    """One reflectance per colour (XYZ under D65, Y in [0, 1]) by ``colour.XYZ_to_sd``, clipped to [0, 1]."""
    colour = colour_science()
    if method not in colour.XYZ_TO_SD_METHODS:
        raise ValueError(f"--recovery {method!r}: expected one of {', '.join(recovery_methods())}")
    out = []
    for value in np.asarray(xyz):
        sd = colour.XYZ_to_sd(value, method=method, shape=_shape()).copy().align(_shape())
        out.append(colour.SpectralDistribution(np.clip(sd.values, 0.0, 1.0), sd.wavelengths))
    return out
