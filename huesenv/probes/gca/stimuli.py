"""GCA stimuli: outline drawings recoloured in 16×16 patches up to a coverage τ.

The procedure (paper, Appendix A.3), with our choices where it is silent.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.gca.stimuli``.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from huesenv.colour_names import canonical_colour
from huesenv.probes.choices import distinct
from huesenv.probes.gca.objects import (
    CONDITIONS,
    MANIPULATION_COLOURS,
    MANIPULATION_RGB,
    OBJECTS,
    SHAPE_VARIANTS,
    SHAPES,
    object_by_name,
    render_shape,
    shape_name,
)
from huesenv.probes.gca.outlines import DARK_LEVEL, SIZE, render_icon
from huesenv.trust import read_user_text

TAUS: tuple[int, ...] = (0, 5, 10, 20, 30, 40, 50, 55, 60, 70, 80, 90, 100)
PATCH = 16
DEFAULT_SEED = 0
MAX_MANIFEST_BYTES = 16 << 20


def base_images(base: str, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(grey, mask) of an object (by catalogue name) or a shape id like ``"hexagon-2"``."""
    if kind == "shape":
        shape, _, variant = base.rpartition("-")
        return render_shape(shape, int(variant))
    return render_icon(object_by_name(base).icon)


def eligible_pixels(grey: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Foreground pixels that are not outline (see module docstring)."""
    return np.asarray(mask, dtype=bool) & (np.asarray(grey) >= DARK_LEVEL)


def patch_counts(eligible: np.ndarray, patch: int = PATCH) -> np.ndarray:
    """Eligible pixels per patch, flattened row-major over the patch grid."""
    h, w = eligible.shape
    return eligible.reshape(h // patch, patch, w // patch, patch).sum(axis=(1, 3)).ravel()


def patch_order(eligible: np.ndarray, base: str, seed: int = DEFAULT_SEED) -> np.ndarray:
    """The seeded colouring order of the patches that hold eligible pixels."""
    counts = patch_counts(eligible)
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(base.encode("utf-8"))])
    return rng.permutation(np.flatnonzero(counts > 0))


def patches_needed(counts: np.ndarray, order: np.ndarray, tau: float) -> tuple[int, int]:
    """(number of patches coloured at τ, eligible pixels they hold) — the first ``k`` reaching ⌈τ·N⌉."""
    if not 0 <= tau <= 100:
        raise ValueError(f"tau: {tau} is not a percentage in [0, 100]")
    n = int(counts.sum())
    target = math.ceil(tau / 100.0 * n - 1e-9)
    if target <= 0:
        return 0, 0
    cum = np.cumsum(counts[order])
    k = int(np.searchsorted(cum, target)) + 1
    return k, int(cum[k - 1])


def coloured_mask(eligible: np.ndarray, order: np.ndarray, tau: float, patch: int = PATCH) -> np.ndarray:
    """Pixels coloured at τ: eligible pixels of the first patches in ``order`` reaching ⌈τ·N⌉."""
    counts = patch_counts(eligible, patch)
    k, _ = patches_needed(counts, order, tau)
    if k == 0:
        return np.zeros_like(eligible, dtype=bool)
    chosen = np.zeros(counts.size, dtype=bool)
    chosen[order[:k]] = True
    h, w = eligible.shape
    grid = chosen.reshape(h // patch, w // patch)
    return eligible & np.kron(grid, np.ones((patch, patch), dtype=bool)).astype(bool)


def recolour(grey: np.ndarray, coloured: np.ndarray, rgb: Sequence[int]) -> np.ndarray:
    """RGB image: grey everywhere, ``rgb × grey/255`` on coloured pixels."""
    out = np.repeat(np.asarray(grey, dtype=np.uint8)[:, :, None], 3, axis=2)
    factor = grey[coloured].astype(np.float64)[:, None] / 255.0
    out[coloured] = np.clip(np.rint(np.asarray(rgb, dtype=np.float64)[None, :] * factor), 0, 255).astype(
        np.uint8
    )
    return out


@dataclass(frozen=True)
class GCAStimulus:
    """One recoloured image: ``base`` (object name or shape id), its condition, colour and nominal τ (%)."""

    base: str
    kind: str  # "object" | "shape"
    condition: str  # "prior" | "counterfactual" | "shape"
    colour: str
    tau: int
    seed: int = DEFAULT_SEED

    @property
    def subject(self) -> str:
        """What the question calls it ("apple", "hexagon")."""
        return self.base.rpartition("-")[0] if self.kind == "shape" else self.base

    @property
    def stimulus_id(self) -> str:
        return f"{self.condition}/{self.base.replace(' ', '_')}/{self.colour}/{self.tau:03d}"

    def _parts(self) -> tuple[np.ndarray, np.ndarray]:
        grey, _ = base_images(self.base, self.kind)
        return grey, _coloured_cached(self.base, self.kind, self.seed, self.tau)

    def coloured(self) -> np.ndarray:
        """Boolean mask of the pixels this stimulus colours."""
        return self._parts()[1]

    def coverage(self) -> float:
        """Realised coloured share of the eligible pixels, in % (≥ τ, < τ + one patch)."""
        counts = _counts_cached(self.base, self.kind)
        n = int(counts.sum())
        _, got = patches_needed(counts, _order_cached(self.base, self.kind, self.seed), self.tau)
        return 100.0 * got / n if n else 0.0

    def image(self) -> np.ndarray:
        """The recoloured (512, 512, 3) uint8 image (a fresh copy; the last few are cached)."""
        return _image_cached(self).copy()

    def ground_truth(self) -> dict:
        """Everything the manifest records about this stimulus."""
        grey, mask = base_images(self.base, self.kind)
        elig = eligible_pixels(grey, mask)
        return {
            "stimulus_id": self.stimulus_id,
            "object": self.subject,
            "base": self.base,
            "kind": self.kind,
            "condition": self.condition,
            "colour": self.colour,
            "tau": self.tau,
            "coverage": round(self.coverage(), 4),
            "eligible_pixels": int(elig.sum()),
            "mask_pixels": int(np.asarray(mask).sum()),
            "seed": self.seed,
        }


@lru_cache(maxsize=8)
def _image_cached(stim: GCAStimulus) -> np.ndarray:
    """Consecutive trials ask about the same stimulus: render it once."""
    grey, col = stim._parts()
    out = recolour(grey, col, MANIPULATION_RGB[stim.colour])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def _counts_cached(base: str, kind: str) -> np.ndarray:
    grey, mask = base_images(base, kind)
    return patch_counts(eligible_pixels(grey, mask))


@lru_cache(maxsize=256)
def _order_cached(base: str, kind: str, seed: int) -> np.ndarray:
    grey, mask = base_images(base, kind)
    return patch_order(eligible_pixels(grey, mask), base, seed)


@lru_cache(maxsize=32)
def _coloured_cached(base: str, kind: str, seed: int, tau: int) -> np.ndarray:
    grey, mask = base_images(base, kind)
    out = coloured_mask(eligible_pixels(grey, mask), _order_cached(base, kind, seed), tau)
    out.setflags(write=False)
    return out


def gca_stimuli(
    *,
    seed: int = DEFAULT_SEED,
    conditions: Iterable[str] = CONDITIONS,
    taus: Iterable[int] = TAUS,
    objects: Iterable[str] | None = None,
    shapes: Iterable[str] = SHAPES,
    colours: Iterable[str] = MANIPULATION_COLOURS,
    counterfactual_zero: bool = False,
) -> list[GCAStimulus]:
    """The full seeded stimulus set: prior and counterfactual objects, shapes × 5 variants × colours, × τ.

    Counterfactual objects get no τ = 0 image by default: the paper has "no '0%'
    colored split" for counterfactual (Appendix B, Table 2's note) — an uncoloured
    outline is the same image for the prior and the counterfactual colour, so it
    belongs to the prior condition only.  ``counterfactual_zero=True`` adds them
    back (the pre-0.3 set).
    """
    conditions = distinct(conditions, "condition")
    for c in conditions:
        if c not in CONDITIONS:
            raise ValueError(f"condition: {c!r} is not one of {CONDITIONS}")
    taus = tuple(int(t) for t in taus)
    names = distinct(objects, "object") if objects is not None else tuple(o.name for o in OBJECTS)
    objs = [object_by_name(n) for n in names]
    colours = tuple(colours)
    out: list[GCAStimulus] = []
    for cond in conditions:
        if cond == "shape":
            for shape in shapes:
                for v in range(len(SHAPE_VARIANTS)):
                    for colour in colours:
                        out += [
                            GCAStimulus(shape_name(shape, v), "shape", "shape", colour, t, seed) for t in taus
                        ]
            continue
        for obj in objs:
            colour = obj.canonical if cond == "prior" else obj.counterfactual
            keep = [t for t in taus if cond != "counterfactual" or t != 0 or counterfactual_zero]
            out += [GCAStimulus(obj.name, "object", cond, colour, t, seed) for t in keep]
    return out


# ---------------------------------------------------------------- published dataset


_CONDITION_ALIASES = {
    "prior": "prior",
    "color": "prior",
    "colour": "prior",
    "canonical": "prior",
    "world-knowledge": "prior",
    "world_knowledge": "prior",
    "counterfactual": "counterfactual",
    "counterfact": "counterfactual",
    "shape": "shape",
    "shapes": "shape",
}


@dataclass(frozen=True)
class FileStimulus:
    """A GCA image read from a local copy of the published dataset (same fields as :class:`GCAStimulus`)."""

    path: str
    base: str
    kind: str
    condition: str
    colour: str
    tau: int
    known_coverage: float | None = None

    @property
    def subject(self) -> str:
        return self.base

    @property
    def stimulus_id(self) -> str:
        return f"{self.condition}/{self.base.replace(' ', '_')}/{self.colour}/{self.tau:03d}"

    def coverage(self) -> float:
        return float(self.tau) if self.known_coverage is None else float(self.known_coverage)

    def image(self) -> np.ndarray:
        from PIL import Image

        with Image.open(self.path) as im:
            im = im.convert("RGB")
            if im.size != (SIZE, SIZE):
                im = im.resize((SIZE, SIZE), Image.Resampling.LANCZOS)
            return np.asarray(im, dtype=np.uint8).copy()

    def ground_truth(self) -> dict:
        return {
            "stimulus_id": self.stimulus_id,
            "object": self.subject,
            "base": self.base,
            "kind": self.kind,
            "condition": self.condition,
            "colour": self.colour,
            "tau": self.tau,
            "coverage": self.coverage(),
            "source_file": self.path,
        }


_FILE_NAME = re.compile(r"^(?P<object>.+?)[_-](?P<colour>[a-z]+)[_-](?P<tau>\d{1,3})$", re.IGNORECASE)


def _percent(text: str, src: str, line: int, field: str) -> float:
    """A manifest percentage (``tau``, ``coverage``): a finite number in [0, 100], or a ``ValueError`` naming it."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not 0 <= value <= 100:  # also refuses nan and inf
        raise ValueError(f"{src}, line {line}, field {field}: {text!r} is not a number in [0, 100]")
    return value


def load_gca_folder(root: str | os.PathLike) -> list[FileStimulus]:
    """Read a local copy of the published GCA dataset.

    Expected layout (either):

    1. ``<root>/manifest.csv`` with columns ``file,object,condition,color,tau``
       (``colour`` accepted for ``color``; optional ``coverage`` in %; extra
       columns ignored — so ``huesenv probe gca --export DIR`` output loads
       back); ``file`` relative to ``<root>``;
       ``condition`` one of prior|counterfactual|shape (aliases: color,
       canonical, world-knowledge, counterfact, shapes).
    2. No manifest: ``<root>/<condition>/**/<object>_<color>_<tau>.png``
       (``-`` also accepted as separator; object names may contain ``_``).

    Images of any size are resized to 512×512 (LANCZOS).  Bad rows raise
    ``ValueError`` naming the file, line and field.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: GCA dataset folder not found")
    out: list[FileStimulus] = []
    manifest = root / "manifest.csv"

    def _make(
        src: str, line: int, file: str, obj: str, cond: str, colour: str, tau: str, cov: str | None
    ) -> None:
        c = _CONDITION_ALIASES.get(cond.strip().lower())
        if c is None:
            raise ValueError(
                f"{src}, line {line}, field condition: {cond!r} is not one of {sorted(_CONDITION_ALIASES)}"
            )
        col = canonical_colour(colour)
        if col is None:
            raise ValueError(f"{src}, line {line}, field color: {colour!r} is not a colour name")
        t = int(round(_percent(tau, src, line, "tau")))
        path = root / file
        if Path(file).is_absolute() or not path.resolve().is_relative_to(root.resolve()):
            raise ValueError(
                f"{src}, line {line}, field file: {file!r} is outside the dataset folder {root} "
                "(expected a path relative to it)"
            )
        if not path.is_file():
            raise ValueError(f"{src}, line {line}, field file: {path} does not exist")
        kc = _percent(cov, src, line, "coverage") if cov not in (None, "") else None
        name = obj.strip().replace("_", " ")
        kind = "shape" if c == "shape" else "object"
        out.append(FileStimulus(str(path), name, kind, c, col, t, kc))

    if manifest.is_file():
        text = read_user_text(manifest, expected="a stimuli manifest CSV", max_bytes=MAX_MANIFEST_BYTES)
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = set(reader.fieldnames or ())
        colour_col = "color" if "color" in header else "colour"
        missing = {"file", "object", "condition", "tau", colour_col} - header
        if missing:
            raise ValueError(f"{manifest}, line 1, field header: missing column(s) {sorted(missing)}")
        for i, row in enumerate(reader, start=2):
            _make(
                str(manifest),
                i,
                row["file"],
                row["object"],
                row["condition"],
                row[colour_col],
                row["tau"],
                row.get("coverage"),
            )
        return out
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(sub.rglob("*.png")):
            m = _FILE_NAME.match(path.stem)
            if not m:
                raise ValueError(f"{path}, line 0, field file name: expected <object>_<color>_<tau>.png")
            _make(
                str(path), 0, str(path.relative_to(root)), m["object"], sub.name, m["colour"], m["tau"], None
            )
    if not out:
        raise ValueError(
            f"{root}, line 0, field manifest: no manifest.csv and no <condition>/*.png images found"
        )
    return out


__all__ = [
    "FileStimulus",
    "GCAStimulus",
    "PATCH",
    "TAUS",
    "base_images",
    "coloured_mask",
    "eligible_pixels",
    "gca_stimuli",
    "load_gca_folder",
    "patch_counts",
    "patch_order",
    "patches_needed",
    "recolour",
]
