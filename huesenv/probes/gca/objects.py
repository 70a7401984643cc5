"""The GCA catalogue: manipulation colours, objects with their colour priors, and shapes.

**Colours.** The paper's nine manipulation colours with the sRGB values we paint
(:data:`MANIPULATION_RGB`; saturated, mid-lightness exemplars of each basic term,
chosen so each is named its own term by :func:`huesenv.colour_names.canonical_colour`
and lies ≥ 20 ΔE2000 from the others).  The distractor colour offered with
each question is one of the other eight, never grey (anti-aliased outline edges
are grey, so grey is never "absent from the image").

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.gca.objects``.
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
CATEGORIES: tuple[str, ...] = (
    "fruit",
    "vegetable",
    "animal",
    "plant",
    "nature",
    "food",
    "drink",
    "vehicle",
    "tool",
    "object",
    "furniture",
    "building",
    "body",
    "sport",
    "music",
    "symbol",
)


@dataclass(frozen=True)
class GCAObject:
    """An outline with its colour prior: ``name`` as asked in the question, ``icon`` the file stem."""

    name: str
    icon: str
    canonical: str
    counterfactual: str
    category: str


# name, icon, canonical colour, counterfactual colour
# name (as the question says it), icon file stem, canonical colour, counterfactual colour, category
_OBJECT_TABLE: tuple[tuple[str, str, str, str, str], ...] = (
    ("apple", "apple", "red", "blue", "fruit"),
    ("avocado", "avocado", "green", "pink", "fruit"),
    ("basketball", "ball-basketball", "orange", "green", "sport"),
    ("tennis ball", "ball-tennis", "yellow", "purple", "sport"),
    ("bell", "bell", "yellow", "blue", "object"),
    ("brain", "brain", "pink", "green", "body"),
    ("bread", "bread", "brown", "blue", "food"),
    ("light bulb", "bulb", "yellow", "brown", "object"),
    ("school bus", "bus", "yellow", "purple", "vehicle"),
    ("cactus", "cactus", "green", "pink", "plant"),
    ("carrot", "carrot", "orange", "blue", "vegetable"),
    ("cheese", "cheese", "yellow", "blue", "food"),
    ("cherry", "cherry", "red", "blue", "fruit"),
    ("christmas tree", "christmas-tree", "green", "orange", "plant"),
    ("clover", "clover", "green", "orange", "plant"),
    ("coin", "coin", "yellow", "pink", "object"),
    ("cookie", "cookie", "brown", "green", "food"),
    ("crown", "crown", "yellow", "green", "object"),
    ("water drop", "droplet", "blue", "brown", "nature"),
    ("fried egg", "egg-fried", "yellow", "blue", "food"),
    ("fire extinguisher", "fire-extinguisher", "red", "pink", "object"),
    ("fire hydrant", "fire-hydrant", "red", "purple", "object"),
    ("fire truck", "firetruck", "red", "green", "vehicle"),
    ("goldfish", "fish", "orange", "purple", "animal"),
    ("flame", "flame", "orange", "green", "nature"),
    ("heart", "heart", "red", "green", "symbol"),
    ("horse", "horse", "brown", "blue", "animal"),
    ("ice cream", "ice-cream", "pink", "grey", "food"),
    ("leaf", "leaf", "green", "pink", "plant"),
    ("lemon", "lemon", "yellow", "blue", "fruit"),
    ("lollipop", "lollipop", "pink", "brown", "food"),
    ("lungs", "lungs", "pink", "blue", "body"),
    ("mailbox", "mailbox", "blue", "pink", "object"),
    ("watermelon", "melon", "red", "blue", "fruit"),
    ("moon", "moon", "yellow", "green", "nature"),
    ("computer mouse", "mouse", "grey", "green", "object"),
    ("mushroom", "mushroom", "brown", "blue", "vegetable"),
    ("chili pepper", "pepper", "red", "blue", "vegetable"),
    ("pig", "pig", "pink", "green", "animal"),
    ("piggy bank", "pig-money", "pink", "blue", "object"),
    ("potted plant", "plant", "green", "purple", "plant"),
    ("sprout", "plant-2", "green", "red", "plant"),
    ("pumpkin", "pumpkin-scary", "orange", "blue", "vegetable"),
    ("sausage", "sausage", "brown", "blue", "food"),
    ("seedling", "seeding", "green", "purple", "plant"),
    ("star", "star", "yellow", "brown", "nature"),
    ("submarine", "submarine", "yellow", "pink", "vehicle"),
    ("tractor", "tractor", "green", "pink", "vehicle"),
    ("tree", "tree", "green", "blue", "plant"),
    ("bird", "lucide-bird", "blue", "brown", "animal"),
    ("butterfly", "butterfly", "orange", "green", "animal"),
    ("cat", "cat", "grey", "green", "animal"),
    ("deer", "deer", "brown", "blue", "animal"),
    ("dog", "dog", "brown", "blue", "animal"),
    ("rat", "lucide-rat", "grey", "green", "animal"),
    ("shrimp", "lucide-shrimp", "pink", "green", "animal"),
    ("snail", "lucide-snail", "brown", "blue", "animal"),
    ("squirrel", "lucide-squirrel", "brown", "blue", "animal"),
    ("turtle", "lucide-turtle", "green", "pink", "animal"),
    ("worm", "lucide-worm", "pink", "blue", "animal"),
    ("biceps", "lucide-biceps-flexed", "pink", "blue", "body"),
    ("barn", "building-cottage", "red", "blue", "building"),
    ("castle", "lucide-castle", "grey", "pink", "building"),
    ("beer", "beer", "yellow", "blue", "drink"),
    ("coffee", "coffee", "brown", "green", "drink"),
    ("glass of water", "lucide-glass-water", "blue", "brown", "drink"),
    ("milkshake", "milkshake", "pink", "green", "drink"),
    ("soda cup", "lucide-cup-soda", "red", "green", "drink"),
    ("wine glass", "lucide-wine", "red", "green", "drink"),
    ("baguette", "baguette", "brown", "blue", "food"),
    ("burger", "burger", "brown", "blue", "food"),
    ("cake", "cake", "pink", "green", "food"),
    ("candy", "candy", "pink", "green", "food"),
    ("candy cane", "lucide-candy-cane", "red", "blue", "food"),
    ("chicken drumstick", "lucide-drumstick", "brown", "blue", "food"),
    ("coffee bean", "lucide-bean", "brown", "blue", "food"),
    ("croissant", "lucide-croissant", "brown", "blue", "food"),
    ("donut", "lucide-donut", "pink", "green", "food"),
    ("ham", "lucide-ham", "pink", "green", "food"),
    ("ice cream cone", "lucide-ice-cream-cone", "pink", "grey", "food"),
    ("meat", "meat", "red", "blue", "food"),
    ("pizza", "pizza", "yellow", "blue", "food"),
    ("popcorn", "lucide-popcorn", "yellow", "blue", "food"),
    ("sandwich", "lucide-sandwich", "brown", "blue", "food"),
    ("slice of cake", "lucide-cake-slice", "pink", "green", "food"),
    ("steak", "lucide-beef", "brown", "blue", "food"),
    ("sundae", "lucide-ice-cream-bowl", "pink", "green", "food"),
    ("banana", "lucide-banana", "yellow", "blue", "fruit"),
    ("grapes", "lucide-grape", "purple", "orange", "fruit"),
    ("orange", "lucide-citrus", "orange", "blue", "fruit"),
    ("star fruit", "carambola", "yellow", "blue", "fruit"),
    ("armchair", "lucide-armchair", "brown", "green", "furniture"),
    ("bed", "lucide-bed", "brown", "green", "furniture"),
    ("sofa", "lucide-sofa", "brown", "green", "furniture"),
    ("drum", "lucide-drum", "red", "green", "music"),
    ("guitar", "lucide-guitar", "brown", "blue", "music"),
    ("campfire", "campfire", "orange", "blue", "nature"),
    ("earth", "lucide-earth", "blue", "pink", "nature"),
    ("lightning bolt", "bolt", "yellow", "green", "nature"),
    ("mountain", "mountain", "grey", "pink", "nature"),
    ("rock", "lucide-stone", "grey", "pink", "nature"),
    ("amphora", "lucide-amphora", "brown", "blue", "object"),
    ("balloon", "balloon", "red", "brown", "object"),
    ("bandage", "bandage", "brown", "blue", "object"),
    ("barrel", "barrel", "brown", "blue", "object"),
    ("basket", "basket", "brown", "blue", "object"),
    ("brick wall", "lucide-brick-wall", "red", "blue", "object"),
    ("briefcase", "briefcase", "brown", "blue", "object"),
    ("cardboard box", "lucide-package", "brown", "blue", "object"),
    ("christmas bauble", "christmas-ball", "red", "green", "object"),
    ("dollar bill", "cash", "green", "pink", "object"),
    ("fence", "lucide-fence", "brown", "blue", "object"),
    ("first aid kit", "first-aid-kit", "red", "green", "object"),
    ("gas pump", "gas-station", "red", "green", "object"),
    ("gift", "lucide-gift", "red", "brown", "object"),
    ("key", "key", "yellow", "pink", "object"),
    ("lifebuoy", "lifebuoy", "red", "green", "object"),
    ("magnet", "magnet", "red", "green", "object"),
    ("medal", "lucide-medal", "yellow", "blue", "object"),
    ("road sign", "lucide-signpost", "brown", "blue", "object"),
    ("siren", "lucide-siren", "red", "green", "object"),
    ("tent", "lucide-tent", "green", "pink", "object"),
    ("trophy", "trophy", "yellow", "blue", "object"),
    ("umbrella", "umbrella", "blue", "brown", "object"),
    ("wallet", "lucide-wallet", "brown", "blue", "object"),
    ("acorn", "lucide-nut", "brown", "blue", "plant"),
    ("cannabis leaf", "lucide-cannabis", "green", "pink", "plant"),
    ("flower", "flower", "pink", "brown", "plant"),
    ("hop", "lucide-hop", "green", "pink", "plant"),
    ("oak tree", "lucide-tree-deciduous", "green", "purple", "plant"),
    ("palm tree", "lucide-tree-palm", "green", "purple", "plant"),
    ("pine tree", "lucide-tree-pine", "green", "pink", "plant"),
    ("rose", "lucide-rose", "red", "blue", "plant"),
    ("shrub", "lucide-shrub", "green", "pink", "plant"),
    ("trees", "trees", "green", "purple", "plant"),
    ("tulip", "lucide-flower-2", "red", "green", "plant"),
    ("wheat", "lucide-wheat", "yellow", "blue", "plant"),
    ("american football", "ball-american-football", "brown", "blue", "sport"),
    ("alien", "alien", "green", "pink", "symbol"),
    ("map pin", "map-pin", "red", "green", "symbol"),
    ("smiley face", "mood-smile", "yellow", "purple", "symbol"),
    ("anvil", "lucide-anvil", "grey", "pink", "tool"),
    ("artist palette", "lucide-palette", "brown", "blue", "tool"),
    ("axe", "lucide-axe", "brown", "purple", "tool"),
    ("bow", "bow", "brown", "blue", "tool"),
    ("eraser", "eraser", "pink", "green", "tool"),
    ("hammer", "hammer", "brown", "purple", "tool"),
    ("ladder", "ladder", "brown", "blue", "tool"),
    ("paintbrush", "lucide-paintbrush", "brown", "purple", "tool"),
    ("pen", "ballpen", "blue", "pink", "tool"),
    ("pencil", "pencil", "yellow", "blue", "tool"),
    ("shovel", "lucide-shovel", "grey", "pink", "tool"),
    ("sword", "lucide-sword", "grey", "pink", "tool"),
    ("wrench", "tool", "grey", "pink", "tool"),
    ("lettuce", "lucide-leafy-green", "green", "pink", "vegetable"),
    ("salad", "salad", "green", "purple", "vegetable"),
    ("backhoe", "backhoe", "yellow", "purple", "vehicle"),
    ("bulldozer", "bulldozer", "yellow", "purple", "vehicle"),
    ("forklift", "forklift", "yellow", "purple", "vehicle"),
    ("kayak", "kayak", "yellow", "purple", "vehicle"),
    ("tank", "tank", "green", "pink", "vehicle"),
    ("taxi", "lucide-car-taxi-front", "yellow", "purple", "vehicle"),
    ("traffic cone", "lucide-traffic-cone", "orange", "blue", "vehicle"),
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
    "CATEGORIES",
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
