"""Outline drawings → 512×512 greyscale images with a foreground mask (the GCA base images).

Why rasterise ourselves: the vendored Tabler outline icons (MIT, see
``huesenv/data/gca/SOURCES.md``) are SVG, and the only dependency we take is the
pure-Python path parser ``svg.path``; drawing happens on PIL, so no system
library (cairo, librsvg) is needed.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.gca.outlines``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from importlib import resources

import numpy as np

SIZE = 512
SUPERSAMPLE = 4
MARGIN = 40
STROKE = 1.0
DARK_LEVEL = 128  # grey below this is outline ("dark"), never recoloured
_CURVE_SAMPLES = 32


def _number_list(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?", text)]


def _path_polylines(d: str) -> list[list[complex]]:
    """Sample an SVG path ``d`` into polylines (one per sub-path), in icon units."""
    from svg.path import Close, Line, Move, parse_path

    out: list[list[complex]] = []
    current: list[complex] = []
    for seg in parse_path(d):
        if isinstance(seg, Move):
            if current:
                out.append(current)
            current = [seg.end]
            continue
        if isinstance(seg, (Line, Close)):
            pts = [seg.start, seg.end]
        else:
            pts = [seg.point(t) for t in np.linspace(0.0, 1.0, _CURVE_SAMPLES)]
        if not current:
            current = [pts[0]]
        current.extend(pts[1:])
    if current:
        out.append(current)
    return out


def _element_polylines(el: ET.Element) -> list[list[complex]]:
    tag = el.tag.rsplit("}", 1)[-1]
    a = el.attrib
    if tag == "path":
        return _path_polylines(a["d"])
    if tag in ("circle", "ellipse"):
        cx, cy = float(a.get("cx", 0)), float(a.get("cy", 0))
        rx = float(a.get("r", a.get("rx", 0)))
        ry = float(a.get("r", a.get("ry", rx)))
        t = np.linspace(0, 2 * math.pi, 4 * _CURVE_SAMPLES)
        return [[complex(cx + rx * math.cos(v), cy + ry * math.sin(v)) for v in t]]
    if tag == "line":
        return [[complex(float(a["x1"]), float(a["y1"])), complex(float(a["x2"]), float(a["y2"]))]]
    if tag in ("polyline", "polygon"):
        v = _number_list(a["points"])
        pts = [complex(v[i], v[i + 1]) for i in range(0, len(v) - 1, 2)]
        return [pts + pts[:1]] if tag == "polygon" else [pts]
    if tag == "rect":
        x, y, w, h = (float(a.get(k, 0)) for k in ("x", "y", "width", "height"))
        return [[complex(x, y), complex(x + w, y), complex(x + w, y + h), complex(x, y + h), complex(x, y)]]
    return []


def svg_polylines(
    svg_text: str, source: str = "<svg>"
) -> tuple[list[list[complex]], tuple[float, float, float, float]]:
    """All stroked polylines of an SVG and its viewBox; unknown structure raises ``ValueError``."""
    try:
        root = ET.fromstring(svg_text[svg_text.index("<svg") :])
    except (ValueError, ET.ParseError) as err:
        raise ValueError(f"{source}, field svg: not an SVG document ({err})") from err
    vb = _number_list(root.attrib.get("viewBox", "0 0 24 24"))
    if len(vb) != 4:
        raise ValueError(f"{source}, field viewBox: expected 4 numbers, got {root.attrib.get('viewBox')!r}")
    polys: list[list[complex]] = []
    for el in root.iter():
        if (
            el.attrib.get("stroke") == "none"
            and el.tag.endswith("path")
            and el.attrib.get("d", "").startswith("M0 0h24v24H0z")
        ):
            continue  # Tabler's invisible bounding box
        polys.extend(_element_polylines(el))
    if not polys:
        raise ValueError(f"{source}, field path: no drawable element found")
    return polys, (vb[0], vb[1], vb[2], vb[3])


def draw_polylines(
    polys: list[list[complex]],
    viewbox: tuple[float, float, float, float],
    *,
    stroke: float = STROKE,
    size: int = SIZE,
    margin: int = MARGIN,
) -> np.ndarray:
    """Draw polylines black on white with round caps/joins; returns (size, size) uint8 grey."""
    from PIL import Image, ImageDraw

    ss = SUPERSAMPLE
    big = size * ss
    x0, y0, w, h = viewbox
    scale = (size - 2 * margin) * ss / max(w, h)
    off_x = (big - w * scale) / 2 - x0 * scale
    off_y = (big - h * scale) / 2 - y0 * scale
    width = max(1, int(round(stroke * scale)))
    r = width / 2
    img = Image.new("L", (big, big), 255)
    draw = ImageDraw.Draw(img)
    for poly in polys:
        pts = [(p.real * scale + off_x, p.imag * scale + off_y) for p in poly]
        if len(pts) > 1:
            draw.line(pts, fill=0, width=width, joint="curve")
        for px, py in (pts[0], pts[-1]):
            draw.ellipse((px - r, py - r, px + r, py + r), fill=0)
    return np.asarray(img.resize((size, size), Image.Resampling.LANCZOS), dtype=np.uint8)


def foreground_mask(grey: np.ndarray, dark_level: int = DARK_LEVEL) -> np.ndarray:
    """Outline pixels plus every region they enclose (see module docstring)."""
    from scipy import ndimage

    return ndimage.binary_fill_holes(grey < dark_level)


@lru_cache(maxsize=128)
def render_icon(name: str, stroke: float = STROKE) -> tuple[np.ndarray, np.ndarray]:
    """A vendored outline icon as (grey uint8 (512,512), mask bool (512,512)); cached, read-only."""
    path = resources.files("huesenv") / "data" / "gca" / "outlines" / f"{name}.svg"
    if not path.is_file():
        raise ValueError(f"huesenv/data/gca/outlines/{name}.svg: no such outline (field icon)")
    polys, vb = svg_polylines(path.read_text(encoding="utf-8"), source=f"outlines/{name}.svg")
    grey = draw_polylines(polys, vb, stroke=stroke)
    mask = foreground_mask(grey)
    grey.setflags(write=False)
    mask.setflags(write=False)
    return grey, mask


__all__ = [
    "DARK_LEVEL",
    "SIZE",
    "STROKE",
    "draw_polylines",
    "foreground_mask",
    "render_icon",
    "svg_polylines",
]
