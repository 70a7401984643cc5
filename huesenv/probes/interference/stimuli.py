""" "What color is it" stimuli: a question line and coloured text inside a 512×512 image.

Subsets (paper §III): ``color`` (the text is a colour word drawn in another
colour), ``simple`` (a colour-free word: the control), ``mask`` (as ``color``,
with 1 … ⌊len/2⌋ of the word's characters masked).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.interference.stimuli``.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from huesenv.colour_names import CANONICAL_COLOURS
from huesenv.colourspace import delta_e2000, srgb_to_lab
from huesenv.probes.choices import distinct
from huesenv.probes.fonts import load_font
from huesenv.probes.gca.objects import MANIPULATION_RGB
from huesenv.probes.interference.words import SIMPLE_WORDS

SUBSETS: tuple[str, ...] = ("color", "simple", "mask")
TYPES: tuple[int, ...] = (1, 2, 3, 4)
PER_TYPE = 100
IMAGE_SIZE = 512
MIN_DELTA_E = 20.0
# every basic colour term but the background's (the same order as the parser's canonical names)
TEXT_COLOURS: tuple[str, ...] = tuple(c for c in CANONICAL_COLOURS if c != "white")
TEXT_RGB: dict[str, tuple[int, int, int]] = {
    **{k: v for k, v in MANIPULATION_RGB.items()},
    "black": (0, 0, 0),
}
QUESTION_COLOURS: tuple[str, ...] = tuple(c for c in TEXT_COLOURS if c not in ("black", "grey"))
COLOUR_WORDS: tuple[str, ...] = TEXT_COLOURS
QUESTIONS = {
    1: "What color is the word below?",
    2: "What color is the word below?",
    3: "What colors are the letters of the word below?",
    4: "What colors are the two words below?",
}
PROMPT = "Answer the question shown in the image."
_QUESTION_Y = 70
_QUESTION_FONT = 28


@lru_cache(maxsize=1)
def _lab() -> dict[str, np.ndarray]:
    return {k: srgb_to_lab(np.asarray(v, dtype=float)) for k, v in TEXT_RGB.items()}


def delta_e(a: str | Sequence[int], b: str | Sequence[int]) -> float:
    """ΔE2000 between two library colours (by name) or sRGB triples (0–255)."""

    def lab(x: str | Sequence[int]) -> np.ndarray:
        return _lab()[x] if isinstance(x, str) else srgb_to_lab(np.asarray(x, dtype=float))

    return float(delta_e2000(lab(a), lab(b)))


@lru_cache(maxsize=1)
def _pairwise() -> dict[tuple[str, str], float]:
    """ΔE2000 between every two library colours, computed once (colour-science is slow per call)."""
    names = list(TEXT_RGB)
    labs = np.stack([_lab()[n] for n in names])
    out: dict[tuple[str, str], float] = {}
    for i, a in enumerate(names):
        d = delta_e2000(np.repeat(labs[i : i + 1], len(names), axis=0), labs)
        for j, b in enumerate(names):
            out[(a, b)] = float(d[j])
    return out


def _far(candidates: Iterable[str], others: Iterable[str]) -> list[str]:
    others = list(others)
    table = _pairwise()
    return [c for c in candidates if c not in others and all(table[(c, o)] >= MIN_DELTA_E for o in others)]


@dataclass(frozen=True)
class InterferenceStimulus:
    """One image: ``words`` (1 or 2), per-character colours, question colour, masked character indices."""

    subset: str
    type: int
    index: int
    seed: int
    words: tuple[str, ...]
    char_colours: tuple[tuple[str, ...], ...]
    question_colour: str
    masked: tuple[tuple[int, ...], ...]

    @property
    def stimulus_id(self) -> str:
        return f"{self.subset}/type{self.type}/{self.index:03d}"

    @property
    def text_colours(self) -> tuple[str, ...]:
        """The colours the text is drawn in, in order of appearance, without repeats (the truth set)."""
        out: list[str] = []
        for cols in self.char_colours:
            for c in cols:
                if c not in out:
                    out.append(c)
        return tuple(out)

    @property
    def named_colours(self) -> tuple[str, ...]:
        """The colours the words name (the semantic colour set S(Text(I)); empty for ``simple``)."""
        return (
            tuple(w.lower() for w in self.words if w.lower() in TEXT_COLOURS)
            if self.subset != "simple"
            else ()
        )

    @property
    def truth(self) -> str:
        return ",".join(self.text_colours)

    @property
    def question(self) -> str:
        return QUESTIONS[self.type]

    def layout(self) -> list[list[tuple[int, int, int, int]]]:
        """Per word, per character, the (x0, y0, x1, y1) cell each character occupies."""
        return _render(self)[1]

    def image(self) -> np.ndarray:
        return _render(self)[0].copy()

    def ground_truth(self) -> dict:
        return {
            "stimulus_id": self.stimulus_id,
            "subset": self.subset,
            "type": self.type,
            "text_words": "|".join(self.words),
            "text_colours": ",".join(self.text_colours),
            "char_colours": "|".join(",".join(c) for c in self.char_colours),
            "named_colours": ",".join(self.named_colours),
            "question_colour": self.question_colour,
            "masked": "|".join(",".join(str(i) for i in m) for m in self.masked),
            "truth": self.truth,
            "seed": self.seed,
        }


def _fit_font(words: Sequence[str], max_size: int, width: int = 440) -> Any:  # a PIL font
    size = max_size
    while size > 20:
        font = load_font(size)
        if all(font.getlength(w) <= width for w in words):
            return font
        size -= 4
    return load_font(size)


@lru_cache(maxsize=8)
def _render(stim: InterferenceStimulus) -> tuple[np.ndarray, list]:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (IMAGE_SIZE, IMAGE_SIZE), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    qsize = _QUESTION_FONT
    while load_font(qsize, "bold").getlength(stim.question) > IMAGE_SIZE - 40 and qsize > 12:
        qsize -= 2
    qfont = load_font(qsize, "bold")
    qw = qfont.getlength(stim.question)
    draw.text(
        ((IMAGE_SIZE - qw) / 2, _QUESTION_Y),
        stim.question,
        font=qfont,
        fill=TEXT_RGB[stim.question_colour],
        anchor="ls",
    )
    n = len(stim.words)
    font = _fit_font(stim.words, 110 if n == 1 else 90)
    baselines = [320] if n == 1 else [250, 420]
    cap_top = font.getbbox("H", anchor="ls")[1]
    boxes: list[list[tuple[int, int, int, int]]] = []
    for word, cols, masked, base in zip(stim.words, stim.char_colours, stim.masked, baselines):
        x = (IMAGE_SIZE - font.getlength(word)) / 2
        wb: list[tuple[int, int, int, int]] = []
        for i, ch in enumerate(word):
            adv = font.getlength(ch)
            rgb = TEXT_RGB[cols[i]]
            cell = (int(round(x + 2)), int(round(base + cap_top)), int(round(x + adv - 2)), int(round(base)))
            if i in masked:
                draw.rectangle(cell, fill=rgb)
            else:
                draw.text((x, base), ch, font=font, fill=rgb, anchor="ls")
            wb.append(cell)
            x += adv
        boxes.append(wb)
    arr = np.asarray(img, dtype=np.uint8)
    arr.setflags(write=False)
    return arr, boxes


def _rng(seed: int, subset: str, type_: int, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(subset.encode()), type_, index])


def _pick(rng: np.random.Generator, pool: Sequence[str], k: int = 1) -> list[str]:
    if len(pool) < k:
        raise ValueError(
            f"colour library: only {len(pool)} colours left, {k} needed (MIN_DELTA_E too large?)"
        )
    idx = rng.choice(len(pool), size=k, replace=False)
    return [pool[int(i)] for i in idx]


def make_stimulus(subset: str, type_: int, index: int, seed: int = 0) -> InterferenceStimulus:
    """The seeded stimulus number ``index`` of (subset, type)."""
    if subset not in SUBSETS:
        raise ValueError(f"subset: {subset!r} is not one of {SUBSETS}")
    if type_ not in TYPES:
        raise ValueError(f"type: {type_!r} is not one of {TYPES}")
    rng = _rng(seed, subset, type_, index)
    n_words = 2 if type_ == 4 else 1
    if subset == "simple":
        word_idx = rng.choice(len(SIMPLE_WORDS), size=n_words, replace=False)
        words = [SIMPLE_WORDS[int(i)] for i in word_idx]
        named: list[str] = []
    else:
        named = _pick(rng, COLOUR_WORDS, n_words)
        words = [w.upper() for w in named]
    used = list(named)
    char_colours: list[tuple[str, ...]] = []
    for w in words:
        if type_ == 3:
            cols = _pick(rng, _far(TEXT_COLOURS, used), len(w))
        else:
            cols = _pick(rng, _far(TEXT_COLOURS, used), 1) * len(w)
        used += [c for c in cols if c not in used]
        char_colours.append(tuple(cols))
    question_colour = "black"
    if type_ in (2, 4):
        question_colour = _pick(rng, _far(QUESTION_COLOURS, used), 1)[0]
    masked: list[tuple[int, ...]] = []
    for w in words:
        if subset == "mask":
            k = int(rng.integers(1, len(w) // 2 + 1))
            masked.append(tuple(sorted(int(i) for i in rng.choice(len(w), size=k, replace=False))))
        else:
            masked.append(())
    return InterferenceStimulus(
        subset, type_, index, int(seed), tuple(words), tuple(char_colours), question_colour, tuple(masked)
    )


def interference_stimuli(
    *,
    seed: int = 0,
    subsets: Iterable[str] = SUBSETS,
    types: Iterable[int] = TYPES,
    per_type: int = PER_TYPE,
) -> list[InterferenceStimulus]:
    """The full seeded set: subsets × types × ``per_type`` images (paper: 100 each)."""
    return [
        make_stimulus(s, int(t), i, seed)
        for s, t in itertools.product(distinct(subsets, "subset"), distinct(types, "type"))
        for i in range(int(per_type))
    ]


__all__ = [
    "COLOUR_WORDS",
    "InterferenceStimulus",
    "MIN_DELTA_E",
    "PER_TYPE",
    "PROMPT",
    "QUESTIONS",
    "SIMPLE_WORDS",
    "SUBSETS",
    "TEXT_COLOURS",
    "TEXT_RGB",
    "TYPES",
    "delta_e",
    "interference_stimuli",
    "make_stimulus",
]
