"""One answer parser for every probe, VLM agent and imported reply: :func:`parse_answer`.

Why one parser: a probe's score is only as good as the reading of the model's
reply.  Reading "the first colour mentioned" scores ``The word "RED" is written
in orange.`` as *red* — a wrong answer and a false text-interference
hallucination.  Every path (the probes, the VLM agents deciding whether to
re-ask, replayed reply tables) calls this function so they agree.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.answers``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from huesenv.colour_names import CANONICAL_COLOURS, canonical_colour
from huesenv.colourspace import srgb_to_lab

KINDS: tuple[str, ...] = ("colour", "colours", "threshold", "coverage", "yes_no", "option")

# --------------------------------------------------------------------------- clean-up
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)
_BOXED = re.compile(r"\\boxed\{([^}]*)\}")
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "–": "-", "—": " -- ", "−": "-"})


_THINK = re.compile(r"<(think|thinking|reasoning|thought)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _tables(s: str) -> str:
    """Markdown table rows become sentences: ``| Word "RED" | Orange |`` → ``Word "RED" is Orange .``.

    A row's first cell is the topic of the cells after it, so the row must stay
    one clause (a ``|`` would otherwise split "Question text" from its colour).
    """
    lines = []
    for line in s.split("\n"):
        if _TABLE_RULE.match(line) and "-" in line:
            continue
        if line.strip().startswith("|") and line.count("|") >= 3:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            line = " is ".join(c for c in cells if c) + " ."
        lines.append(line)
    return "\n".join(lines)


def _clean(text: str) -> str:
    s = str(text).translate(_QUOTES)
    after = _THINK.sub(" ", s)
    if after.strip():
        s = after  # a reasoning block is not the answer; what follows it is
    s = _FENCE.sub(lambda m: m.group(1), s)
    s = _tables(s)
    s = _BOXED.sub(lambda m: m.group(1), s)
    s = s.replace("$", " ").replace("\\text", " ")
    return s.strip()


def _strip_emphasis(s: str) -> str:
    return re.sub(r"\*\*|__|`", "", s)


_JSON_KEYS = {
    "colour": ("color", "colour", "answer", "text_color", "font_color", "text_colour", "font_colour"),
    "colours": ("colors", "colours", "answer", "color", "colour"),
    "threshold": ("threshold", "x", "value", "answer", "percentage"),
    "coverage": ("estimated_percentage", "percentage", "coverage", "answer", "value"),
    "yes_no": ("answer", "yes_no"),
    "option": ("answer", "option", "choice"),
}


def _json_value(kind: str, text: str) -> Any:
    """The value of the first known key of the first JSON object in the reply, or ``None``."""
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        low = {str(k).lower(): v for k, v in obj.items()}
        for key in _JSON_KEYS[kind]:
            if key in low and low[key] not in (None, ""):
                return low[key]
    return None


_NOT_ANSWER_KEYS = frozenset(
    {"text", "word", "words", "label", "meaning", "word_meaning", "semantic_meaning", "says", "reads", "content",
     "question", "question_color", "question_colour", "question_text", "background", "background_color",
     "background_colour", "letter", "char", "character", "explanation", "reasoning", "reason", "rationale",
     "note", "notes", "thinking", "analysis"}
)  # fmt: skip


def _json_strings(text: str) -> list[str] | None:
    """Every string value of the first JSON object or array in the reply, nested ones included.

    Keys name what a value is: the text read, the question line, the
    background, a letter or an explanation (:data:`_NOT_ANSWER_KEYS`) are not
    the answer; keys themselves are labels (``{"GREEN": "red"}`` is the word
    GREEN drawn in red).  ``None`` when the reply holds no JSON structure.
    """
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if not isinstance(obj, (dict, list)):
            continue
        out: list[str] = []
        _walk_strings(obj, None, out)
        return out
    return None


def _walk_strings(v: Any, key: str | None, out: list[str]) -> None:
    if key is not None and key.lower() in _NOT_ANSWER_KEYS:
        return
    if isinstance(v, dict):
        for k, x in v.items():
            _walk_strings(x, str(k), out)
    elif isinstance(v, list):
        for x in v:
            _walk_strings(x, key, out)
    elif isinstance(v, str):
        out.append(v)


# --------------------------------------------------------------------------- colour mentions
# Basic colour terms of the languages models drift into (Spanish, French, Portuguese, Italian,
# German), every gender and number: a reply in another language still names a colour.
_FOREIGN: dict[str, str] = {
    w: c
    for c, words in {
        "red": "rojo roja rojos rojas rouge rouges vermelho vermelha rosso rossa rossi rosse rot",
        "orange": "naranja anaranjado anaranjada laranja arancione",
        "yellow": "amarillo amarilla amarillos amarillas jaune jaunes amarelo amarela giallo gialla gelb gelbe",
        "green": "verde verdes vert verte verts vertes grün grüne gruen",
        "blue": "azul azules bleu bleue bleus bleues blu blau blaue",
        "purple": "morado morada morados moradas púrpura purpura violeta viola roxo roxa lila",
        "pink": "rosado rosada rosados rosadas rosa rosas",
        "brown": "marrón marron marrones brun brune marrom marrone braun braune",
        "grey": "gris grises grise cinza grigio grigia grau graue",
        "white": "blanco blanca blancos blancas blanc blanche branco branca bianco bianca weiß weiss weiße",
        "black": "negro negra negros negras noir noire preto preta nero nera schwarz schwarze",
    }.items()
    for w in words.split()
}


def _canon(word: str) -> str | None:
    """The canonical colour of one word, English (:func:`canonical_colour`) or :data:`_FOREIGN`."""
    return canonical_colour(word) or _FOREIGN.get(word.strip().lower())


_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+(?:\.\d+)?|[^\s\w]|_")
_CLAUSE_END = frozenset(".,;:!?()[]{}|\n")
_NEGATIONS = frozenset(
    {"not", "no", "never", "nor", "neither", "without", "isn't", "aren't", "isnt", "wasn't"}
)
_NEG_WINDOW = 3
_NONE_WORDS = frozenset(
    {"none", "nothing", "nowhere", "ninguna", "ninguno"}
)  # "none of the letters are green"
_NONE_WINDOW = 6
_MODIFIERS = frozenset(
    {"light", "dark", "pale", "bright", "deep", "pastel", "vivid", "dull", "ish", "medium", "soft", "hot"}
)
_DRAWING_NOUNS = frozenset(
    {"background", "backdrop", "outline", "outlines", "outlined", "border", "borders", "line", "lines",
     "linework", "stroke", "strokes", "edges", "contour", "contours"}
)  # fmt: skip
_BW_NOUNS = frozenset(
    {"drawing", "image", "outline", "line", "sketch", "picture", "illustration", "photo", "icon", "clipart"}
)
_HEDGE_BEFORE = frozenset(
    {"maybe", "perhaps", "possibly", "some", "few", "small", "slightly", "partly", "partially", "hint",
     "hints", "tinge", "touch", "touches", "bit", "bits", "little", "scattered", "traces", "slight", "expect",
     "expected", "expecting", "might", "part", "partial", "typically", "usually", "normally", "generally",
     "often", "commonly", "traditionally", "naturally", "typical", "usual", "normal"}
)  # fmt: skip
_HEDGE_AFTER = frozenset(
    {"patches", "patch", "spots", "spot", "areas", "area", "parts", "bits", "specks", "flecks", "squares",
     "blocks", "sections", "portions", "accents", "highlights", "tint", "tints"}
)  # fmt: skip
_PRIMARY_WORDS = frozenset(
    {"mostly", "mainly", "primarily", "predominantly", "largely", "answer", "choose", "actually", "wait",
     "instead", "rather", "correction"}
)  # fmt: skip
_CORRECTIONS = frozenset({"actually", "wait", "correction"})
# a correction re-states the answer: the first mention after it in its sentence is the final answer
_CORRECTION_PHRASES = (
    ("actually",), ("wait",), ("correction",), ("looking", "again"), ("looking", "closer"),
    ("on", "second", "thought"), ("on", "closer", "inspection"), ("upon", "closer", "inspection"),
    ("?", "no"),
)  # fmt: skip
_ANSWER_WORDS = frozenset({"answer", "respuesta", "réponse"})
_ANSWER_KEYS = frozenset({"color", "colour", "colors", "colours"})
_ANSWER_GLUE = frozenset(
    {":", "=", "is", "es", "est", "would", "be", "will", "final", "my", "the", "'", '"', "(", "*", "#", ";", "-",
     "=>", ">", "color", "colour", "it's", "it", "la", "el"}
)  # fmt: skip
_SENTENCE_END = frozenset(".!?")
# a forward answer phrase marks the first colour after it in the sentence ("I would say the heart is white")
_FORWARD_PHRASES = (
    ("i'd", "say"), ("i", "would", "say"), ("i'd", "call"), ("i", "would", "call"), ("i'd", "answer"),
    ("i", "would", "answer"), ("i'll", "go", "with"), ("i'd", "go", "with"), ("i", "choose"),
)  # fmt: skip
_CONCLUSIONS = frozenset({"overall", "therefore", "thus", "hence"})
_PRIMARY_PHRASES = (
    ("i'd", "say"),
    ("i", "would", "say"),
    ("call", "it"),
    ("i'd", "call"),
    ("so",),
    ("go", "with"),
    ("going", "with"),
    ("therefore",),
    ("thus",),
    ("overall",),
)
_LIST_GLUE = frozenset({",", "and", "or", "/", "&", "either", "nor", "both", "*", "_", '"', "'"})
_BLACK_AND_WHITE = re.compile(r"black\s*(?:-\s*)?(?:and|&)\s*(?:-\s*)?white(?:\s*-)?\s+(\w+)")
_WRITTEN = frozenset(
    {
        "written",
        "printed",
        "displayed",
        "colored",
        "coloured",
        "rendered",
        "drawn",
        "shown",
        "spelled",
        "typed",
    }
)
_BACKGROUNDS = frozenset({"background", "backdrop", "fondo"})
_COLOUR_NOUNS = frozenset({"color", "colour", "colored", "coloured", "hue", "shade", "tone", "tint"})
_PLACE_WORDS = frozenset({"below", "above", "under", "beneath", "after", "before", "over", "of"})
_TOPICS = frozenset({"question", "word", "words", "text", "letters", "letter", "font"})
_SHOWN_CUES = frozenset(
    {"word", "words", "text", "says", "say", "reads", "read", "spells", "spelling", "spell"}
)
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "its", "it's", "these", "those", "each"})


@dataclass
class _Tok:
    text: str  # original case
    low: str
    start: int
    quoted: bool = False
    bold: bool = False


@dataclass
class _Mention:
    colour: str
    first: int  # token index of the compound's first word
    last: int  # token index of its head
    clause: int
    negated: bool = False
    drawing: bool = False
    shown: bool = False
    question: bool = False
    hedged: bool = False
    primary: bool = False
    final: int = 0  # 2: an explicit answer field ("Answer:", "color=…"); 1: after a correction


def _tokens(text: str) -> list[_Tok]:
    """Tokens with quote and bold flags (a token inside "…"/'…' or **…**)."""
    quoted_spans = [
        m.span() for m in re.finditer(r'"[^"\n]{1,60}"|(?<![A-Za-z])\'[^\'\n]{1,40}\'(?![A-Za-z])', text)
    ]
    bold_spans = [m.span() for m in re.finditer(r"\*\*[^*\n]{1,80}\*\*|__[^_\n]{1,80}__", text)]
    out = []
    for m in _TOKEN.finditer(text):
        pos = m.start()
        out.append(
            _Tok(
                m.group(0),
                m.group(0).lower(),
                pos,
                any(a < pos < b for a, b in quoted_spans),
                any(a < pos < b for a, b in bold_spans),
            )
        )
    return out


_PROTOTYPES = {  # sRGB of each basic term's focal colour, for reading colour codes
    "red": (220, 30, 35), "orange": (250, 135, 10), "yellow": (250, 215, 20), "green": (40, 160, 60),
    "blue": (25, 95, 235), "purple": (145, 40, 180), "pink": (250, 130, 190), "brown": (135, 80, 35),
    "grey": (128, 128, 128), "white": (255, 255, 255), "black": (0, 0, 0),
}  # fmt: skip
_HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
_RGB = re.compile(r"\brgb\s*\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)", re.IGNORECASE)


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB triple: enough to name a colour code by its nearest basic term."""
    lab = srgb_to_lab(np.asarray(rgb, dtype=float))
    return float(lab[0]), float(lab[1]), float(lab[2])


def _nearest_term(rgb: tuple[int, int, int]) -> str:
    lab = _lab(rgb)
    return min(_PROTOTYPES, key=lambda k: sum((a - b) ** 2 for a, b in zip(lab, _lab(_PROTOTYPES[k]))))


def _colour_codes(text: str) -> str:
    """``#FF0000`` / ``rgb(255, 0, 0)`` → the nearest basic colour name (a careful reader names the code)."""

    def hex_name(m: re.Match) -> str:
        h = m.group(1)
        h = "".join(c * 2 for c in h) if len(h) == 3 else h
        return " " + _nearest_term((int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))) + " "

    def rgb_name(m: re.Match) -> str:
        return " " + _nearest_term(tuple(min(255, int(v)) for v in m.groups())) + " "  # type: ignore[arg-type]

    return _RGB.sub(rgb_name, _HEX.sub(hex_name, text))


def _dashes(text: str) -> str:
    """A spaced dash separates clauses ("pink -- not blue"); a joined hyphen joins words ("blue-green")."""
    return re.sub(r"\s+-+\s+|--+|\n", " ; ", text)


def _is_boundary(tok: _Tok) -> bool:
    return tok.text in _CLAUSE_END or tok.low in ("but", "while", "whereas", "although", "though", "however")


def _word_list(words: str | Sequence[str] | None) -> list[str]:
    if not words:
        return []
    if isinstance(words, str):
        words = [words]
    out: list[str] = []
    for w in words:
        out += [x for x in re.findall(r"[A-Za-z#*_?]+", str(w))]
    return out


def _masked_match(shown: str, words: set[str]) -> bool:
    """Whether a masked shown word ("bl#e", "r_d") can be read as one of ``words``."""
    if not re.search(r"[#*_?]", shown):
        return False
    pattern = re.compile("^" + "".join("[a-z]" if ch in "#*_?" else re.escape(ch) for ch in shown) + "$")
    return any(pattern.match(w) for w in words)


def _run_length(toks: list[_Tok], i: int, skip: set[int]) -> int:
    """How many colour words in a row, joined by spaces only, contain token ``i``."""
    lo = i
    while lo > 0 and (lo - 1) not in skip and _canon(toks[lo - 1].low):
        lo -= 1
    hi = i
    while hi + 1 < len(toks) and (hi + 1) not in skip and _canon(toks[hi + 1].low):
        hi += 1
    return hi - lo + 1


def _mentions(text: str, subject: str | None, shown_word: str | Sequence[str] | None) -> list[_Mention]:
    toks = _tokens(_dashes(_colour_codes(text)))
    n = len(toks)
    subj = [w.lower() for w in re.findall(r"[A-Za-z]+", subject or "")]
    shown = _word_list(shown_word)
    shown_low = {w.lower() for w in shown}
    # clause index per token
    clause_of, c = [], 0
    for t in toks:
        if _is_boundary(t):
            c += 1
        clause_of.append(c)
    # subject mentions ("the orange"): mark those token indices as not-colour
    skip: set[int] = set()
    if subj:
        k = len(subj)
        for i in range(1, n - k + 1):
            if toks[i - 1].low in _DETERMINERS and [t.low for t in toks[i : i + k]] in (
                subj,
                subj[:-1] + [subj[-1] + "s"],
            ):
                if i + k < n and toks[i + k].low in _COLOUR_NOUNS:
                    continue  # "an orange color", "the orange hue": the colour, not the object
                skip.update(range(i, i + k))
    out: list[_Mention] = []
    i = 0
    while i < n:
        colour = None if i in skip else _canon(toks[i].low)
        if colour is None:
            i += 1
            continue
        first = i
        head, j = i, i + 1
        # extend the compound over colour words, modifiers and hyphens
        while j < n:
            t = toks[j]
            if (
                t.text == "-"
                and j + 1 < n
                and (j + 1) not in skip
                and (_canon(toks[j + 1].low) or toks[j + 1].low in _MODIFIERS)
            ):
                j += 1
                continue
            if j in skip:
                break
            c2 = _canon(t.low)
            if c2 is not None and toks[j - 1].text != "-" and _run_length(toks, j - 1, skip) >= 3:
                break  # "red blue green orange": a list written without commas, not one compound
            if c2 is not None:
                colour, head = c2, j
                j += 1
                continue
            if t.low in _MODIFIERS and j + 1 < n and _canon(toks[j + 1].low):
                j += 1
                continue
            break
        # a leading modifier ("light blue") belongs to the compound too
        while first > 0 and toks[first - 1].low in _MODIFIERS:
            first -= 1
        m = _Mention(colour, first, head, clause_of[head])
        _flag(m, toks, clause_of, shown_low)
        out.append(m)
        i = j
    _mark_final(out, toks)
    return out


def _follows(toks: list[_Tok], start: int, phrase: tuple[str, ...]) -> bool:
    return tuple(t.low for t in toks[start : start + len(phrase)]) == phrase


def _mark_final(ms: list[_Mention], toks: list[_Tok]) -> None:
    """Answer fields, corrections and forward answer phrases (see the module docstring, *kind colour*)."""
    n = len(toks)

    def next_mention(after: int, limit: int) -> _Mention | None:
        for m in ms:
            if m.first > after:
                stop = any(toks[k].text in _SENTENCE_END for k in range(after + 1, m.first))
                return None if stop or m.first - after > limit else m
        return None

    for i, t in enumerate(toks):
        if t.low in _ANSWER_WORDS:  # "Answer: Red", "the final answer is **red**", "## Answer\nYellow"
            m = next_mention(i, 8)
            if m and {x.low for x in toks[i + 1 : m.first]} <= _ANSWER_GLUE:
                m.final = 2
        elif t.low in _ANSWER_KEYS and i + 1 < n and toks[i + 1].low in ("=", ":", "is", "es", "est"):
            m = next_mention(i + 1, 3)  # "color=white", "Colour: grey", "el color es rojo"
            if m and {x.low for x in toks[i + 2 : m.first]} <= _ANSWER_GLUE:
                m.final = 2
        for phrase in _CORRECTION_PHRASES:
            if _follows(toks, i, phrase):
                m = next_mention(i + len(phrase) - 1, 12)
                if m:
                    m.final = max(m.final, 1)
        for phrase in _FORWARD_PHRASES:
            if _follows(toks, i, phrase):
                m = next_mention(i + len(phrase) - 1, 8)
                if m:
                    m.primary = True


def _possessor(w: str) -> str:
    """ "question's" is the question (a topic word in the possessive)."""
    return w[:-2] if w.endswith("'s") and w[:-2] in _TOPICS | _BACKGROUNDS else w


def _flag(m: _Mention, toks: list[_Tok], clause_of: list[int], shown_low: set[str]) -> None:
    n = len(toks)
    same = [k for k in range(0, m.first) if clause_of[k] == m.clause]
    before = [_possessor(toks[k].low) for k in same]
    # 1. negation
    window = before[-_NEG_WINDOW:]
    m.negated = any(w in _NEGATIONS or w.endswith("n't") for w in window) or bool(
        set(before[-_NONE_WINDOW:]) & _NONE_WORDS
    )
    # 2. describing the drawing
    nxt = toks[m.last + 1].low if m.last + 1 < n else ""
    if nxt in _DRAWING_NOUNS:
        m.drawing = True
    topic = next((w for w in reversed(before) if w in _TOPICS or w in _BACKGROUNDS), None)
    if topic in _BACKGROUNDS:
        m.drawing = True  # "the background is white": the clause is about the background
    if m.colour in ("black", "white"):
        span = " ".join(t.low for t in toks[max(0, m.first - 5) : min(n, m.last + 7)])
        bw = _BLACK_AND_WHITE.search(span)
        if bw and (bw.group(1) in _BW_NOUNS or bw.group(1) in _DRAWING_NOUNS):
            m.drawing = True
    # 3. the shown word
    words = toks[m.first : m.last + 1]
    lows = {t.low for t in words if t.text != "-"}
    if all(t.quoted for t in words):
        m.shown = True  # a quoted colour word is a word being read, not a colour being named
    elif shown_low and (lows & shown_low or any(_masked_match(w, lows) for w in shown_low)):
        prev = toks[m.first - 1].low if m.first > 0 else ""
        if any(t.text.isupper() and len(t.text) > 1 for t in words) or prev in _SHOWN_CUES:
            m.shown = True
    prev_tok = toks[m.first - 1] if m.first > 0 else None
    if shown_low and lows & shown_low and prev_tok is not None and prev_tok.text == "(" and m.first > 1:
        before_paren = toks[m.first - 2]
        if before_paren.quoted or before_paren.text.isupper():
            m.shown = True  # a gloss of the word just read: 'the word "GR__N" (green)'
    if shown_low and lows & shown_low:
        k = m.last + 1
        while k < n and toks[k].text in "\"'":
            k += 1
        if k + 1 < n and toks[k].text in (":", "=", "-") and _canon(toks[k + 1].low):
            m.shown = True  # a label: "green: red, pink: blue" (the word GREEN is red)
    # 3b. "Red is written in orange": a colour that is *written/printed/…* is the text, not its ink
    after = [t.low for t in toks[m.last + 1 : m.last + 4]]
    if after[:1] in (["is"], ["are"], ["was"], ["appears"]) and len(after) > 1 and after[1] in _WRITTEN:
        m.shown = True
    elif len(after) > 1 and after[0] in ("written", "printed", "spelled", "typed") and after[1] == "in":
        m.shown = True
    # 5. question clause
    topics = [
        "question" if k and before[k - 1] == "question" else w  # "the question text" is the question
        for k, w in enumerate(before)
        if w in _TOPICS
        and not (
            set(before[max(0, k - 2) : k]) & _PLACE_WORDS
            and not set(before[max(0, k - 3) : k]) & _COLOUR_NOUNS
        )
        # "the word below the question" is the word; "the colour of the question" is the question
    ]
    if topics and topics[-1] == "question":
        m.question = True
    # hedges and primary markers
    end = next((t.text for t in toks[m.last + 1 :] if t.text in _SENTENCE_END and not t.quoted), "")
    m.hedged = bool(set(before) & _HEDGE_BEFORE) or nxt in _HEDGE_AFTER or end == "?"  # "… or is it red?"
    recent = before[-4:]
    just_before = {toks[k].low for k in range(max(0, m.first - 5), m.first)}  # "No wait, it is purple"
    m.primary = (
        bool(set(recent) & _PRIMARY_WORDS)
        or bool(just_before & (_CORRECTIONS | _CONCLUSIONS))
        or any(tuple(recent[-len(p) - k : len(recent) - k]) == p for p in _PRIMARY_PHRASES for k in (0, 1, 2))
        or any(t.bold for t in words)
    )
    if m.primary and recent and recent[-1] in ("some", "few"):
        m.primary = False


def _answer_mentions(ms: list[_Mention]) -> list[_Mention]:
    """Mentions that can be the answer: hard filters (negated, drawing), then soft ones (shown, question)."""
    hard = [m for m in ms if not m.negated and not m.drawing]
    soft = [m for m in hard if not m.shown and not m.question]
    if soft:
        return soft
    no_question = [m for m in hard if not m.question]
    return no_question or hard


def _single_colour(text: str, subject: str | None, shown_word: Any) -> str | None:
    ms = _answer_mentions(_mentions(text, subject, shown_word))
    if not ms:
        return None
    for level in (2, 1):  # an answer field, then the last correction
        final = [m for m in ms if m.final == level]
        if final:
            m = final[-1]
            return (
                None
                if _alternatives([x for x in ms if x.first >= m.first][:2], _mention_toks(text))
                else m.colour
            )
    primary = [m for m in ms if m.primary]
    if primary:
        return primary[0].colour
    toks = _tokens(_dashes(_colour_codes(text)))
    if _alternatives(ms, toks):
        return None
    ms = _without_enumerations(ms, toks)
    if not ms:
        return None
    plain = [m for m in ms if not m.hedged] or ms
    distinct = list(dict.fromkeys(m.colour for m in plain))
    if len(distinct) == 1:
        return distinct[0]
    a = plain[0]
    b = next(m for m in plain if m.colour != a.colour)
    between = [t.low for t in toks[a.last + 1 : b.first]]
    if "or" in between:
        return None
    if b.clause == a.clause and set(between) & {"and", "&"}:
        return None
    if between and set(between) <= {",", "and", "&", "/"}:
        return None  # a list: "red, white, and blue"
    return a.colour


def _mention_toks(text: str) -> list[_Tok]:
    return _tokens(_dashes(_colour_codes(text)))


def _alternatives(ms: list[_Mention], toks: list[_Tok]) -> bool:
    """Two different colours offered as alternatives, hedged or not: "red or maybe orange" → no single answer."""
    for a, b in zip(ms, ms[1:]):
        between = {t.low for t in toks[a.last + 1 : b.first]}
        if a.colour != b.colour and "or" in between and between <= _OR_GLUE:
            return True
    return False


_OR_GLUE = frozenset({"or", "maybe", "perhaps", "possibly", "probably", "even", ",", "either"})


def _without_enumerations(ms: list[_Mention], toks: list[_Tok]) -> list[_Mention]:
    """Drop lists of several colours ("white, red, and blue"; "between white and red") when other mentions exist.

    A list of colours next to a separate mention is the choices being weighed,
    not the answer: "The options are white, red, and blue. The apple is red." →
    red.  A reply that is nothing but a list keeps it (and gives no single colour).
    """
    groups: list[list[_Mention]] = []
    for m in ms:
        if groups and set(t.low for t in toks[groups[-1][-1].last + 1 : m.first]) <= _LIST_GLUE:
            groups[-1].append(m)
        else:
            groups.append([m])
    lists = [g for g in groups if len({m.colour for m in g}) > 1]
    if not lists or len(lists) == len(groups):
        return ms
    return [m for g in groups if g not in lists for m in g]


def _colour_set(text: str, subject: str | None, shown_word: Any) -> frozenset[str] | None:
    ms = _answer_mentions(_mentions(text, subject, shown_word))
    found = frozenset(m.colour for m in ms)
    return found or None


# --------------------------------------------------------------------------- numbers
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
_WORDNUM = re.compile(
    r"\b(?:("
    + "|".join(_TENS)
    + r")(?:[\s-]+("
    + "|".join(k for k in _UNITS if _UNITS[k] < 10)
    + r"))?|("
    + "|".join(_UNITS)
    + r")|(one hundred|a hundred|hundred))\b(?=\s*(?:%|percent|per cent|pct))",
    re.IGNORECASE,
)
_WORDNUM_BARE = re.compile(_WORDNUM.pattern.split(r"\b(?=")[0] + r"\b", re.IGNORECASE)
_DENOMINATORS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6,
                 "eighth": 8, "tenth": 10}  # fmt: skip
_NUMERATORS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "nine": 9}
_FRACTION = re.compile(
    r"\b(" + "|".join(_NUMERATORS) + r")[\s-]+(" + "|".join(_DENOMINATORS) + r")s?\b|\b(half|majority)\b",
    re.IGNORECASE,
)


def _fraction(s: str) -> float | None:
    """The first spoken fraction as a percentage ("two-fifths" → 40, "a third" → 33.3, "half" → 50)."""
    m = _FRACTION.search(s)
    if m is None:
        return None
    if m.group(3):
        return 50.0
    return round(100.0 * _NUMERATORS[m.group(1).lower()] / _DENOMINATORS[m.group(2).lower()], 1)


_NUM = r"(\d+(?:\.\d+)?|\.\d+)"
_QUAL = r"(?:about|around|roughly|approximately|approx\.?|at least|greater than|more than|over|above|~|≈|only|just|somewhere)?\s*"
_KEY = re.compile(
    r"(?:estimated[_ ]percentage|threshold|\bx\s*%?|percentage|\bvalue|coverage|answer)"
    r"\s*(?:of\s+x\s*%?\s*)?(?:=|:|≈|\bis\b|should be|would be|must be|will be|of)\s*" + _QUAL + _NUM,
    re.IGNORECASE,
)
_PHRASE = re.compile(
    r"(?:should be|would be|i'd say|i would say|i'll say|i will say|choose|go with|estimate|estimated|"
    r"set (?:the threshold |it |x )?at|threshold (?:at|of)|answer is|say)\s*(?:is\s*)?(?:that\s*)?"
    + _QUAL
    + _NUM,
    re.IGNORECASE,
)
_RANGE = re.compile(r"(?:between\s+)?" + _NUM + r"\s*(%?)\s*(?:-|to|and)\s*" + _NUM + r"\s*%", re.IGNORECASE)
_ESTIMATE = re.compile(
    r"(?:about|around|roughly|approximately|approx\.?|~|≈)\s*" + _NUM + r"\s*%", re.IGNORECASE
)
_CHAIN = re.compile(r"\s*%?\s*[-+*/×]\s*\d+(?:\.\d+)?\s*%?\s*=\s*" + _NUM)


_FOREIGN_NUMBERS = {
    "diez": 10, "veinte": 20, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70,
    "ochenta": 80, "noventa": 90, "cien": 100, "dix": 10, "vingt": 20, "trente": 30, "quarante": 40,
    "cinquante": 50, "soixante": 60, "cent": 100,
}  # fmt: skip
_FOREIGN_UNITS = {"uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
                  "ocho": 8, "nueve": 9}  # fmt: skip
_FOREIGN_TENS = re.compile(
    r"\b(" + "|".join(_FOREIGN_NUMBERS) + r")(?:\s+y\s+(" + "|".join(_FOREIGN_UNITS) + r"))?\b(?=\s*%)",
    re.IGNORECASE,
)


def _words_to_digits(s: str) -> str:
    def repl(m: re.Match) -> str:
        if m.group(4):
            return "100"
        if m.group(1):
            return str(_TENS[m.group(1).lower()] + (_UNITS[m.group(2).lower()] if m.group(2) else 0))
        return str(_UNITS[m.group(3).lower()])

    s = re.sub(
        r"\bper\s*cent\b|\bpercent(?:age points?)?\b|\bpct\b|\bpor\s*ciento\b|\bpour\s*cent\b|\bprozent\b",
        "%",
        s,
        flags=re.IGNORECASE,
    )
    s = _FOREIGN_TENS.sub(
        lambda m: str(
            _FOREIGN_NUMBERS[m.group(1).lower()] + _FOREIGN_UNITS.get((m.group(2) or "").lower(), 0)
        ),
        s,
    )
    s = re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:/|out of)\s*100\b(?!\s*%)", r"\1%", s)  # "40/100"
    s = _WORDNUM.sub(repl, s)
    if not re.search(r"\d", s) and _fraction(s) is None:
        # no digits and no fraction: a number word is the answer ("Fifty.")
        s = _WORDNUM_BARE.sub(repl, s)
    return s


def _value(token: str, percent: bool) -> float | None:
    v = float(token)
    if not percent and "." in token and 0.0 < v < 1.0:
        v *= 100.0  # "0.35" is a fraction
    return v if 0.0 <= v <= 100.0 else None


def _midpoints(s: str) -> str:
    def repl(m: re.Match) -> str:
        lo, hi = float(m.group(1)), float(m.group(3))
        if not lo < hi <= 100:
            return m.group(0)
        return f"{(lo + hi) / 2:g}%"

    return _RANGE.sub(repl, s)


_DIGIT_FRACTION = re.compile(r"(?<![\d.])([1-9])\s*/\s*([2-9]|10)(?!\d|\.\d)")


def _fraction_percent(m: re.Match) -> str:
    a, b = int(m.group(1)), int(m.group(2))
    return f"{100.0 * a / b:.1f}%" if a < b else m.group(0)


_UNCOLOURED = re.compile(
    r"(?<![a-z])(?:white|uncolou?red|blank|remaining|the rest|rest of|unfilled|empty|blanco|blanca)(?![a-z])",
    re.IGNORECASE,
)
_SEGMENT = re.compile(r"[.;,\n|]|\band\b|\bwhile\b|\bwhereas\b|\bbut\b", re.IGNORECASE)


def _white_shares(s: str) -> set[float]:
    """Numbers stated for the uncoloured part ("40% white", "White pixels: 70%", "the remaining 90%").

    A segment (between commas, "and", "while" …) that names white or the rest,
    and no chromatic colour, states the white share; the probes never ask for it.
    """
    out: set[float] = set()
    for seg in _SEGMENT.split(s):
        if not _UNCOLOURED.search(seg):
            continue
        if any(_canon(w) not in (None, "white", "black") for w in re.findall(r"[^\W\d_]+", seg)):
            continue
        for m in re.finditer(r"(?<![\w.])" + _NUM + r"(\s*%)?", seg):
            v = _value(m.group(1), bool(m.group(2)))
            if v is not None:
                out.add(v)
    return out


_NEGATIVE = re.compile(r"(?:^|(?<=[\s=:(\[]))[-−](?=\.?\d)")


def _percent(text: str) -> float | None:
    s = _words_to_digits(_strip_emphasis(text))
    if _NEGATIVE.search(s):
        return None  # a negative percentage is out of range, like 150 %
    s = re.sub(r"\d+\s*[x×]\s*\d+", " ", s)  # image and patch sizes
    s = _DIGIT_FRACTION.sub(_fraction_percent, s)  # "1/3" → 33.3%
    s = _midpoints(s)
    for m in _KEY.finditer(s):
        token = m.group(1)
        tail = s[m.end() :]
        while (c := _CHAIN.match(tail)) is not None:
            token, tail = c.group(1), tail[c.end() :]
        pct = bool(re.match(r"\s*%", tail))
        v = _value(token, pct)
        if v is not None:
            return v
    for m in _PHRASE.finditer(s):
        v = _value(m.group(1), bool(re.match(r"\s*%", s[m.end() :])))
        if v is not None:
            return v
    nums = [
        (_value(m.group(1), bool(m.group(2))), bool(m.group(2)))
        for m in re.finditer(r"(?<![\w.])" + _NUM + r"(\s*%)?", s)
    ]
    nums = [(v, p) for v, p in nums if v is not None]
    coloured = [(v, p) for v, p in nums if v not in _white_shares(s)]
    if coloured and len(coloured) < len(nums):
        nums = coloured  # "60% white and 40% red": the share asked about is never the uncoloured one
    if nums:
        values = {v for v, _ in nums}
        if len(values) == 1:
            return nums[0][0]
        percents = {v for v, p in nums if p}
        if len(percents) == 1:
            return next(iter(percents))
        estimates = {_value(m.group(1), True) for m in _ESTIMATE.finditer(s)} - {None}
        if len(estimates) == 1:
            return next(iter(estimates))
        return nums[-1][0]
    f = _fraction(s)
    if f is None and _NO_PIXELS.search(s):
        return 0.0  # "No green pixels at all.", "none of the pixels are red"
    return f


_NO_PIXELS = re.compile(
    r"\b(?:no|zero|not a single|not any)\s+(?:\w+\s+){0,2}?(?:pixels?|colou?ring|colou?r)\b|"
    r"\bnone of (?:the|its)\s+(?:\w+\s+)?pixels\b|\bnot colou?red at all\b",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------- yes / no
_YES = frozenset({"yes", "yeah", "yep", "yup", "sure", "absolutely", "definitely", "correct", "true", "indeed",
                  "certainly", "affirmative", "right", "sí", "si", "oui", "ja"})  # fmt: skip
_NO = frozenset(
    {"no", "nope", "nah", "not", "false", "incorrect", "never", "negative", "wrong", "non", "nein"}
)
_UNSURE = re.compile(
    r"yes and no|either way|not sure|unsure|hard to (?:say|tell)|can'?t (?:tell|say|determine)|cannot (?:tell|say|"
    r"determine)|difficult (?:call|to say)|it depends|uncertain|no idea|don'?t know|no (?:lo )?sé",
    re.IGNORECASE,
)


_BELIEVE = r"(?:think|believe|suppose|guess|expect|reckon|imagine)"


def _yes_no(text: str) -> bool | None:
    s = _strip_emphasis(text).lower().strip()
    if re.fullmatch(r"[\"'(]*([yn])[\"').!]*", s):
        return s.strip("\"'().! ") == "y"
    fix = re.search(r"\b(?:actually|wait|correction|on second thought)\b[,:.!]?\s*(yes|no)\b", s)
    if fix:
        return fix.group(1) == "yes"
    if re.search(r"\byes\s*(?:/|and|or)\s*no\b|\bno\s*(?:/|and|or)\s*yes\b", s):
        return None
    lean = re.search(
        r"(?:\blean(?:ing|s)?\s+(?:towards?\s+|to\s+)?(?:a\s+)?|\bprobably\s+|\blikely\s+|\bi think\s+)"
        r"[\"']?(yes|no|not)\b",
        s,
    )
    if lean:
        return lean.group(1) == "yes"
    if re.search(r"^(?:definitely|absolutely|certainly|surely|of course)\s+not\b", s):
        return False
    if _UNSURE.search(s):
        return None
    if re.search(
        rf"\b(?:i )?do(?:n'?t| not) {_BELIEVE} so\b|\bprobably not\b|\bnot really\b|\bnot at all\b", s
    ):
        return False
    if re.search(rf"\bi(?:'d| would)? {_BELIEVE} so\b|\bi'?d say so\b|\bprobably(?: yes)?\b", s):
        return True
    copula = re.fullmatch(
        r"(?:it|that|this|they)(?:'s|\s+(?:is|are|was|were|does|do|did))(n't|\s+not)?"
        r"(?:\s+(?:right|correct|true|so|the case))?[\s.!]*|"
        r"(?:it|that|this|they)\s+(isn't|aren't|wasn't|doesn't|don't|didn't)[\s.!]*",
        s,
    )
    but = re.search(r"\bbut\b(?:\s+(?:mostly|mainly|overall|basically|largely|generally))?\s+(yes|no)\b", s)
    if but:  # "Not entirely, but mostly yes."
        return but.group(1) == "yes"
    if copula:  # "It is." / "It is not." answer the question as asked
        return not (copula.group(1) or copula.group(2))
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", s)
    if words:
        if words[0] in _YES:
            return True
        if words[0] in _NO or words[0] == "unlikely":
            return False
    m = re.search(r"\b(?:answer is|answer:|i'?d say|i would say|i say)\s*[\"']?(yes|no)\b", s)
    if m:
        return m.group(1) == "yes"
    m = re.search(r"\b(yes|no|sí|oui|non|ja|nein)\b", s)
    if m:
        return m.group(1) in ("yes", "sí", "oui", "ja")
    if words and words[0] == "likely":
        return True
    return None


# --------------------------------------------------------------------------- options
def _option(text: str, options: Sequence[str], subject: str | None, shown_word: Any) -> int | None:
    s = _strip_emphasis(text).strip()
    k = len(options)
    letters = "abcdefghijklmnopqrstuvwxyz"[:k]
    m = re.match(r"^\(?([A-Za-z])\s*[\).:](?:\s|$)|^\(?([A-Za-z])\)?\s*$", s)
    if m:
        idx = letters.find((m.group(1) or m.group(2)).lower())
        if idx >= 0:
            return idx
    m = re.search(r"\(([A-Z])\)", s)
    if m and m.group(1).lower() in letters:
        return letters.index(m.group(1).lower())
    m = re.search(
        r"\b(?:option|answer|choice)\s*(?:is)?\s*[:#]?\s*\(?([A-Za-z]|\d+)\)?(?![A-Za-z])", s, re.IGNORECASE
    )
    if m:
        tok = m.group(1)
        idx = int(tok) - 1 if tok.isdigit() else letters.find(tok.lower())
        if 0 <= idx < k:
            return idx
    if re.fullmatch(r"\d+\.?", s):
        idx = int(s.rstrip(".")) - 1
        return idx if 0 <= idx < k else None
    canon = [_canon(o) if len(o.split()) == 1 else None for o in options]
    if all(c is not None for c in canon):
        c = _single_colour(s, subject, shown_word)
        return canon.index(c) if c in canon else None
    low = s.lower()
    best: tuple[int, int] | None = None
    for i, o in enumerate(options):
        for mm in re.finditer(r"(?<![a-z])" + re.escape(o.lower()) + r"(?![a-z])", low):
            before = re.findall(r"[a-z']+", low[: mm.start()])[-_NEG_WINDOW:]
            if any(w in _NEGATIONS or w.endswith("n't") for w in before):
                continue
            if best is None or mm.start() < best[0]:
                best = (mm.start(), i)
            break
    return None if best is None else best[1]


# --------------------------------------------------------------------------- public
def parse_answer(
    kind: str,
    text: str | None,
    *,
    subject: str | None = None,
    shown_word: str | Sequence[str] | None = None,
    options: Sequence[str] | None = None,
) -> Any:
    """What a careful reader takes a reply to answer (see the module docstring); ``None`` if unreadable."""
    if kind not in KINDS:
        raise ValueError(f"parse_answer: kind {kind!r} is not one of {KINDS}")
    if kind == "option" and not options:
        raise ValueError("parse_answer: kind 'option' needs options")
    if text is None:
        return None
    s = _clean(text)
    if not s:
        return None
    if kind == "colours":  # nested JSON and lists of objects: every answer value counts
        strings = _json_strings(s)
        found = _colour_set(", ".join(strings), subject, None) if strings else None
        if found:
            return found
    value = _json_value(kind, s)
    if value is not None:
        got: Any
        if isinstance(value, bool):
            got = value if kind == "yes_no" else None
        elif isinstance(value, (int, float)):
            got = _percent(str(value)) if kind in ("threshold", "coverage") else None
            if kind == "option" and isinstance(value, int):
                got = value - 1 if 1 <= value <= len(options or ()) else None
        elif isinstance(value, list):
            joined = ", ".join(str(v) for v in value)
            got = _dispatch(kind, joined, subject, None, options)
        else:
            got = _dispatch(kind, str(value), subject, None, options)
        if got is not None:
            return got
    return _dispatch(kind, s, subject, shown_word, options)


def _dispatch(kind: str, s: str, subject: str | None, shown_word: Any, options: Sequence[str] | None) -> Any:
    if kind == "colour":
        return _single_colour(s, subject, shown_word)
    if kind == "colours":
        return _colour_set(s, subject, shown_word)
    if kind in ("threshold", "coverage"):
        return _percent(s)
    if kind == "yes_no":
        return _yes_no(s)
    return _option(s, list(options or ()), subject, shown_word)


__all__ = ["CANONICAL_COLOURS", "KINDS", "parse_answer"]


def same_reading(kind: str, got: Any, expected: Any) -> bool:
    """Whether two readings agree as a reply corpus means it: sets for colours, ±0.5 points for percentages."""
    if expected is None or got is None:
        return got is None and expected is None
    if kind == "colours":
        return set(got) == set(expected)
    if kind in ("threshold", "coverage"):
        return abs(float(got) - float(expected)) <= 0.5
    return bool(got == expected)
