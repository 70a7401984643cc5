"""Shared test settings: the user's W&B/HF/huesenv variables dropped, headless SDL, offline hubs, quiet W&B, one BLAS thread, untranslated messages.

In CI (``CI=true``) nothing that CI is meant to exercise may be skipped quietly:
the ``shared_dir`` fixture fails when ``../shared`` is missing, and any skip whose
reason starts with "could not import" (``pytest.importorskip`` of an optional
package that CI installs with ``[all,test]``) is turned into a failure.
"""

import os
import re
from collections import Counter

# The suite runs the same whatever the user keeps in their environment: W&B, Hugging Face and huesenv
# settings and API keys are dropped before anything reads them (WANDB_MODE=offline once made a
# tournament test crash; a user's HUESENV_API_KEY_VARS or *_API_KEY would change what is sent where).
_USER_SETTINGS = re.compile(r"^(WANDB_|HF_|HUGGINGFACE_|HUGGING_FACE_|TRANSFORMERS_|HUESENV_)|_API_KEY$")
_KEPT = {"HUESENV_SCREENSHOTS", "HUESENV_VENV", "HUESENV_VENV_READY"}  # where CI wants files, not behaviour
for _name in [n for n in os.environ if _USER_SETTINGS.search(n) and n not in _KEPT]:
    del os.environ[_name]

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("WANDB_SILENT", "true")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
# argparse's messages untranslated whatever the user's locale (the tests read them in English); it also
# spares gettext a catalogue lookup per message: ~50 µs each, 120 per CLI parser, 900 parsers a run
os.environ["LANGUAGE"] = "C"

import tempfile
from pathlib import Path

import pytest
from hypothesis import configuration, settings

# Tests write nothing into the checkout: hypothesis keeps no example database, and its other
# caches (.hypothesis/constants) go to the temporary folder instead of the working directory.
configuration.set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "huesenv-hypothesis")
settings.register_profile("huesenv", database=None)
settings.load_profile("huesenv")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
IMPORT_SKIP_PREFIX = "could not import"


def in_ci() -> bool:
    """True under CI (``CI=true``), where missing inputs must fail rather than skip."""
    return os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only reference folder beside the checkout (../shared): skipped locally, a failure in CI."""
    if not SHARED.is_dir():
        reason = f"../shared is not present beside the checkout ({SHARED})"
        if in_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    return SHARED


def _skip_reason(report) -> str:
    """The reason of a skipped report (its longrepr is ``(path, line, message)``), without "Skipped: "."""
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return message.removeprefix("Skipped: ")


def _fail_import_skip_in_ci(report) -> None:
    """Turn a "could not import" skip into a failure under CI, where every optional extra is installed."""
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if reason.startswith(IMPORT_SKIP_PREFIX):
            report.outcome = "failed"
            report.longrepr = f"CI=true but a test was skipped because an import failed: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    _fail_import_skip_in_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    _fail_import_skip_in_ci(report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Files with a ``slow`` test, then those with integration tests, go first (in file order otherwise), so
    that the longest tests do not start last and end the run alone. Under ``--dist loadgroup``
    (scripts/test.sh) the tests of one explicit ``xdist_group`` share a worker: the Ray tests (one local
    cluster at a time), the model libraries (imported once); so do a file's other fast tests (its module
    fixtures built once, not on both workers). Integration tests are spread one by one: grouping them by
    file put the biggest files on one worker each and made the full suite slower."""
    rank: dict[Path, int] = {}
    for item in items:
        own = 0 if item.get_closest_marker("slow") else 1 if item.get_closest_marker("integration") else 2
        rank[item.path] = min(rank.get(item.path, 2), own)
    items.sort(key=lambda item: rank[item.path])
    if items and getattr(items[0].config.option, "loadgroup", False):  # an xdist worker, --dist loadgroup
        _name_groups_in_node_ids(items)


def _name_groups_in_node_ids(items) -> None:
    """pytest >= 9.2 keeps a node id in ``item._id``; xdist 3.8 writes its ``@group`` suffix to
    ``item._nodeid``, which nothing reads, so the groups were ignored. Written here where pytest reads it."""
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # an older pytest reads item._nodeid, where xdist already wrote the suffix
        return
    for item in items:
        if hasattr(item, "_id") and "@" not in item.nodeid:
            marks = item.iter_markers("xdist_group")
            groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks})
            if not groups and item.get_closest_marker("integration") is None:
                groups = [item.path.stem]  # a file's fast tests on one worker: its module fixtures built once
            if groups:
                item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(groups)}")


def pytest_addoption(parser):
    parser.addoption(
        "--file-times",
        action="store_true",
        help="print the seconds spent in each test file (setup+call+teardown)",
    )


_FILE_SECONDS: Counter[str] = Counter()


def pytest_runtest_logreport(report):
    _FILE_SECONDS[report.nodeid.split("::")[0]] += report.duration  # with xdist: on the controller


def pytest_terminal_summary(terminalreporter, config):
    if config.getoption("file_times") and _FILE_SECONDS:
        terminalreporter.write_sep("=", f"seconds per test file ({sum(_FILE_SECONDS.values()):.0f} s in all)")
        for path, seconds in _FILE_SECONDS.most_common():
            terminalreporter.write_line(f"{seconds:8.1f}s {path}")
