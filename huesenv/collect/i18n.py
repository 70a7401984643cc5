"""The interface in English and Spanish (the paper's cohort), with Flask-Babel and gettext catalogues.

The English text is the message id (gettext style), so a missing translation
shows English rather than a key.  The Spanish catalogue is
``translations/es/LC_MESSAGES/messages.po`` (the source) compiled to
``messages.mo`` (what Flask-Babel loads); ``tests/test_collect_participant_ready.py``
checks that the two agree and that every message the templates and views use
has a Spanish entry (how to recompile after changing a message: the design notes).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.i18n``.
"""

from __future__ import annotations

from pathlib import Path

UI_LANGUAGES: tuple[tuple[str, str], ...] = (("en", "English"), ("es", "Español"))
DEFAULT_UI = "en"
TRANSLATIONS = Path(__file__).resolve().parent / "translations"


def pick_language(requested: object, accept_languages) -> str:
    """The interface language: a supported ``?lang=`` value, else the best ``Accept-Language`` match, else English."""
    codes = [code for code, _ in UI_LANGUAGES]
    if requested in codes:
        return str(requested)
    best = accept_languages.best_match(codes) if accept_languages is not None else None
    return best or DEFAULT_UI
