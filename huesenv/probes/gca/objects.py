"""The GCA catalogue: manipulation colours, objects with their colour priors, and shapes.

**Colours.** The paper's nine manipulation colours with the sRGB values we paint
(:data:`MANIPULATION_RGB`; saturated, mid-lightness exemplars of each basic term,
chosen so each is named its own term by :func:`huesenv.colour_names.parse_colour`
and lies ≥ 20 ΔE2000 from the others).  The distractor colour offered with
each question is one of the other eight, never grey (anti-aliased outline edges
are grey, so grey is never "absent from the image").

**Objects.** :data:`OBJECTS` — 49 outline icons (Tabler Icons, MIT; see
``huesenv/data/gca/SOURCES.md``) with a strong colour prior.  The canonical colour
is the object's typical real-world colour restricted to the nine manipulation
colours (the paper took GPT-4o's first colour after mapping "gold"→yellow,
"silver"→grey; we write ours down once, here).  The counterfactual colour is an
atypical colour from the same nine (the paper took Visual CounterFact's
``incorrect`` attribute); we pick one that no common variety of the object has.

**Shapes.** circle, triangle, square, pentagon, hexagon, each in
:data:`SHAPE_VARIANTS` = 5 transformed variants (rotation, scale, translation;
the parameters are a fixed table, not random, so the set never changes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MANIPULATION_COLOURS: tuple[str, ...] = (
    "red",
    "brown",
    "pink",
    "green",
    "blue",
    "yellow",
    "purple",
    "orange",
    "grey",
)
MANIPULATION_RGB: dict[str, tuple[int, int, int]] = {
    "red": (220, 30, 35),
    "brown": (135, 80, 35),
    "pink": (250, 130, 190),
    "green": (40, 160, 60),
    "blue": (25, 95, 235),
    "yellow": (250, 215, 20),
    "purple": (145, 40, 180),
    "orange": (250, 135, 10),
    "grey": (128, 128, 128),
}
CONDITIONS: tuple[str, ...] = ("prior", "counterfactual", "shape")


@dataclass(frozen=True)
class GCAObject:
    """An outline with its colour prior: ``name`` as asked in the question, ``icon`` the file stem."""

    name: str
    icon: str
    canonical: str
    counterfactual: str


# name, icon, canonical colour, counterfactual colour
_OBJECT_TABLE: tuple[tuple[str, str, str, str], ...] = (
    ("apple", "apple", "red", "blue"),
    ("avocado", "avocado", "green", "pink"),
    ("basketball", "ball-basketball", "orange", "green"),
    ("tennis ball", "ball-tennis", "yellow", "purple"),
    ("bell", "bell", "yellow", "blue"),
    ("brain", "brain", "pink", "green"),
    ("bread", "bread", "brown", "blue"),
    ("light bulb", "bulb", "yellow", "brown"),
    ("school bus", "bus", "yellow", "purple"),
    ("cactus", "cactus", "green", "pink"),
    ("carrot", "carrot", "orange", "blue"),
    ("cheese", "cheese", "yellow", "blue"),
    ("cherry", "cherry", "red", "blue"),
    ("christmas tree", "christmas-tree", "green", "orange"),
    ("clover", "clover", "green", "orange"),
    ("coin", "coin", "yellow", "pink"),
    ("cookie", "cookie", "brown", "green"),
    ("crown", "crown", "yellow", "green"),
    ("water drop", "droplet", "blue", "brown"),
    ("fried egg", "egg-fried", "yellow", "blue"),
    ("fire extinguisher", "fire-extinguisher", "red", "pink"),
    ("fire hydrant", "fire-hydrant", "red", "purple"),
    ("fire truck", "firetruck", "red", "green"),
    ("goldfish", "fish", "orange", "purple"),
    ("flame", "flame", "orange", "green"),
    ("heart", "heart", "red", "green"),
    ("horse", "horse", "brown", "blue"),
    ("ice cream", "ice-cream", "pink", "grey"),
    ("leaf", "leaf", "green", "pink"),
    ("lemon", "lemon", "yellow", "blue"),
    ("lollipop", "lollipop", "pink", "brown"),
    ("lungs", "lungs", "pink", "blue"),
    ("mailbox", "mailbox", "blue", "pink"),
    ("watermelon", "melon", "green", "purple"),
    ("moon", "moon", "yellow", "green"),
    ("mouse", "mouse", "grey", "green"),
    ("mushroom", "mushroom", "brown", "blue"),
    ("chili pepper", "pepper", "red", "blue"),
    ("pig", "pig", "pink", "green"),
    ("piggy bank", "pig-money", "pink", "blue"),
    ("potted plant", "plant", "green", "purple"),
    ("sprout", "plant-2", "green", "red"),
    ("pumpkin", "pumpkin-scary", "orange", "blue"),
    ("sausage", "sausage", "brown", "blue"),
    ("seedling", "seeding", "green", "purple"),
    ("star", "star", "yellow", "brown"),
    ("submarine", "submarine", "yellow", "pink"),
    ("tractor", "tractor", "green", "pink"),
    ("tree", "tree", "green", "blue"),
)
OBJECTS: tuple[GCAObject, ...] = tuple(GCAObject(*row) for row in _OBJECT_TABLE)

SHAPES: tuple[str, ...] = ("circle", "triangle", "square", "pentagon", "hexagon")
_SIDES = {"circle": 0, "triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6}
# (rotation in degrees, scale, dx, dy in px): variant 0 is the centred, upright shape.
SHAPE_VARIANTS: tuple[tuple[float, float, float, float], ...] = (
    (0.0, 1.00, 0.0, 0.0),
    (15.0, 0.90, -20.0, 10.0),
    (-25.0, 0.80, 25.0, -15.0),
    (40.0, 0.95, 10.0, 25.0),
    (180.0, 0.85, -15.0, -25.0),
)
SHAPE_RADIUS = 200.0
SHAPE_STROKE_PX = 12


def shape_name(shape: str, variant: int) -> str:
    """The base-image id of a shape variant, e.g. ``"pentagon-3"``."""
    return f"{shape}-{variant}"


def shape_vertices(shape: str, variant: int, size: int = 512) -> list[tuple[float, float]]:
    """The polygon (or 256-gon circle) of a shape variant in pixel coordinates."""
    if shape not in _SIDES:
        raise ValueError(f"shape: {shape!r} is not one of {SHAPES}")
    if not 0 <= variant < len(SHAPE_VARIANTS):
        raise ValueError(f"shape variant: {variant} is not in 0..{len(SHAPE_VARIANTS) - 1}")
    rot, scale, dx, dy = SHAPE_VARIANTS[variant]
    n = _SIDES[shape] or 256
    r = SHAPE_RADIUS * scale
    cx, cy = size / 2 + dx, size / 2 + dy
    start = -math.pi / 2 + (math.pi / n if n == 4 else 0.0) + math.radians(rot)
    return [
        (cx + r * math.cos(start + 2 * math.pi * k / n), cy + r * math.sin(start + 2 * math.pi * k / n))
        for k in range(n)
    ]


@lru_cache(maxsize=64)
def render_shape(shape: str, variant: int, size: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """A shape variant as (grey uint8, mask bool): black outline on white; the mask is the known polygon."""
    from PIL import Image, ImageDraw

    ss = 4
    pts = [(x * ss, y * ss) for x, y in shape_vertices(shape, variant, size)]
    img = Image.new("L", (size * ss, size * ss), 255)
    ImageDraw.Draw(img).polygon(pts, outline=0, width=SHAPE_STROKE_PX * ss)
    grey = np.asarray(img.resize((size, size), Image.Resampling.LANCZOS), dtype=np.uint8)
    m = Image.new("L", (size * ss, size * ss), 0)
    ImageDraw.Draw(m).polygon(pts, fill=255)
    mask = np.asarray(m.resize((size, size), Image.Resampling.NEAREST)) > 127
    grey.setflags(write=False)
    mask.setflags(write=False)
    return grey, mask


def object_by_name(name: str) -> GCAObject:
    for obj in OBJECTS:
        if obj.name == name:
            return obj
    raise ValueError(f"object: {name!r} is not in the GCA catalogue")


__all__ = [
    "CONDITIONS",
    "GCAObject",
    "MANIPULATION_COLOURS",
    "MANIPULATION_RGB",
    "OBJECTS",
    "SHAPES",
    "SHAPE_VARIANTS",
    "object_by_name",
    "render_shape",
    "shape_name",
    "shape_vertices",
]
