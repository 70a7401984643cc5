"""The collection server's settings: :class:`CollectConfig` and its validation (no Flask needed).

:func:`check_config` refuses, with one line naming the setting, any value that
could not serve participants: counts out of range (``gca_trials=0`` used to
start a server whose every onboarding failed), an age policy or completion
address that is not allowed, a rate that is not a rate.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from huesenv.collect import participants as parts
from huesenv.collect.tasks import gca as gca_task
from huesenv.collect.tasks import words as words_task
from huesenv.vocabulary import Word

TASKS = ("words", "gca", "tessellation")
_COMPLETION_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
DEFAULT_INFORMATION = (
    "This study asks which colours you associate with things. It takes a few minutes.",
    "We store your answers with the details below and a random identifier; we do not ask for your name or "
    "contact details. Taking part is voluntary: you can stop at any time by closing the page.",
    "(The researchers running this study replace this text with their approved information sheet.)",
)
MAX_GCA_TRIALS = 1000
MAX_WORDS_PER_PARTICIPANT = 1000
MAX_INFORMATION_BYTES = 400_000  # 100,000 characters of at most 4 UTF-8 bytes each


@dataclass
class CollectConfig:
    """Everything a collection server needs; see ``huesenv collect serve --help`` for the CLI spelling.

    ``information`` is the consent/information text shown before onboarding:
    one string for every interface language or a mapping ``{"en": ..., "es": ...}``
    (paragraphs separated by blank lines, shown as plain text); ``None`` shows a
    generic placeholder (``collect serve`` allows that only with ``--pilot``).  ``completion_url`` may contain ``{code}`` (replaced by
    ``completion_code``), e.g. ``https://app.prolific.com/submissions/complete?cc={code}``.
    ``start_rate`` is ``(N, seconds)``: at most N new participants per client
    address per window (``None``: no limit).  ``trust_proxy``: how many reverse
    proxies' ``X-Forwarded-*`` headers to believe (0 when clients connect directly).
    """

    db_path: str | Path
    task: str = "words"
    vocabulary: Sequence[Word] | None = None  # None: the paper's 100 words
    words_per_participant: int = words_task.DEFAULT_WORDS_PER_PARTICIPANT
    assignment: str = "balanced"
    show_feedback: bool = True
    languages: Sequence[str] = parts.DEFAULT_LANGUAGES
    gca_trials: int = gca_task.PAPER_TRIALS
    gca_attention_positions: Sequence[int] = gca_task.PAPER_ATTENTION_POSITIONS
    gca_introspection: str = "alternate"
    gca_source: gca_task.StimulusSource | None = None  # None: the probes package's generator
    gca_prerender: bool = False  # render every stimulus in a background thread at start-up
    seed: int | None = None  # None: the seed stored in the database on creation
    secure_cookies: bool = True
    trust_proxy: int = 0
    start_rate: tuple[int, float] | None = (30, 600.0)
    information: str | Mapping[str, str] | None = None
    pilot: bool = False  # a trial run (``--pilot``): the database and every export are marked as a pilot's
    age_policy: str = "adult"
    adult_age: int = 18
    completion_code: str | None = None
    completion_url: str | None = None
    completion_redirect_s: int = (
        5  # the end page sends the participant to completion_url after this (0: never)
    )
    require_platform_id: bool = False  # refuse onboarding without ?PROLIFIC_PID=
    no_consent_code: str | None = None  # the code a participant who does not consent is given
    no_consent_url: str | None = None  # where they return the study ('{code}' replaced)
    gca_image_cache: str | Path | None = None  # None: the database path + ".gca-images/"
    secret_key_file: str | Path | None = None  # None: the database path + ".key"
    extra_flask_config: dict = field(default_factory=dict)


def _whole(value: object, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} {value!r}: expected a whole number {lo}-{hi}")
    return value


def check_config(config: CollectConfig) -> None:
    """Refuse a configuration that could not serve participants (one line naming the setting)."""
    if config.task not in TASKS:
        raise ValueError(f"--task {config.task!r}: expected one of {', '.join(TASKS)}")
    _whole(config.words_per_participant, "--words-per-participant", 1, MAX_WORDS_PER_PARTICIPANT)
    _whole(config.gca_trials, "--gca-trials", 1, MAX_GCA_TRIALS)
    for pos in config.gca_attention_positions:
        _whole(pos, "--gca-attention item", 1, MAX_GCA_TRIALS * 2)
    _whole(config.trust_proxy, "--trust-proxy", 0, 5)
    _whole(config.adult_age, "--adult-age", 16, 21)
    parts.age_ranges(config.age_policy)
    if config.start_rate is not None:
        n, window = config.start_rate
        _whole(n, "--start-limit count", 1, 1_000_000)
        if not 0 < float(window) <= 86400:
            raise ValueError(f"--start-limit window {window!r}: expected 0 < seconds <= 86400")
    for flag, code, url in (
        ("--completion", config.completion_code, config.completion_url),
        ("--no-consent", config.no_consent_code, config.no_consent_url),
    ):
        _check_code_and_url(flag, code, url)
    _whole(config.completion_redirect_s, "--completion-redirect", 0, 600)
    if config.seed is not None:
        _whole(config.seed, "--seed", 0, 2**63 - 1)


def _check_code_and_url(flag: str, code: str | None, url: str | None) -> None:
    if code is not None and not _COMPLETION_CODE.fullmatch(code):
        raise ValueError(f"{flag}-code {code!r}: expected 1-64 letters, digits, '-' or '_'")
    if url is None:
        return
    if not re.fullmatch(r"https://[^\s\"'<>]+", url) and not re.fullmatch(
        r"http://(127\.0\.0\.1|localhost)(:[0-9]+)?(/[^\s\"'<>]*)?", url
    ):
        raise ValueError(f"{flag}-url {url!r}: expected an https:// address")
    if "{code}" in url and code is None:
        raise ValueError(f"{flag}-url contains {{code}} but no {flag}-code is set")


def paragraphs(text: str) -> tuple[str, ...]:
    """Information text → paragraphs (blank lines separate them)."""
    return tuple(p.strip() for p in re.split(r"\n\s*\n", text) if p.strip())
