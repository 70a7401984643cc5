"""Human data collection: a small Flask web app for the word→cell task, GCA trials and board tessellation.

``huesenv collect serve`` runs it (loopback by default, SQLite storage);
``huesenv collect export`` writes the word answers in the human-baseline
loader's format (:func:`huesenv.humans.load_humans`) and the other tasks as CSV.
Flask is an optional extra (``huesenv[collect]``): it is imported only by
:func:`create_app`, so the export works without it.  Running it for real
participants (HTTPS proxy, consent, platforms, security): ``docs/collect-deployment.md``.
"""

from __future__ import annotations

from huesenv.collect.db import Database
from huesenv.collect.export import (
    EXPORT_COLUMNS,
    export,
    gca_frame,
    participants_frame,
    tessellation_frame,
    word_answers_frame,
    write_table,
)
from huesenv.collect.tasks.gca import GCAServedStimulus, StimulusSource
from huesenv.collect.tasks.tessellation import consensus_table
from huesenv.lazy import lazy_exports

__all__ = [
    "EXPORT_COLUMNS",
    "CollectConfig",
    "Database",
    "GCAServedStimulus",
    "StimulusSource",
    "consensus_table",
    "create_app",
    "export",
    "gca_frame",
    "participants_frame",
    "tessellation_frame",
    "word_answers_frame",
    "write_table",
]


# Flask loads only with the app
__getattr__ = lazy_exports(
    __name__, {"create_app": "huesenv.collect.app", "CollectConfig": "huesenv.collect.config"}
)
