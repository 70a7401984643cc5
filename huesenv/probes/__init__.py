"""Single-step probes: Graded Color Attribution (GCA) and "What color is it" text interference.

Both are gymnasium envs (``huesenv/GCA-v0``, ``huesenv/TextInterference-v0``)
with one trial per episode, plus seeded trial lists for batch evaluation
through :func:`run_probe`; every trial is logged as a ``probe_trial`` record.
Subpackages import lazily so ``import huesenv.probes`` stays light.
"""

from huesenv.lazy import lazy_exports
from huesenv.probes.answers import KINDS, parse_answer
from huesenv.probes.export import export_stimuli
from huesenv.probes.frame import probe_frame
from huesenv.probes.replies import import_replies
from huesenv.probes.report import write_report
from huesenv.probes.run import TASKS, build_trials, run_probe
from huesenv.probes.trials import ParsedAnswer, ProbeTrial, make_record, parse_reply

__all__ = [
    "KINDS",
    "parse_answer",
    "ParsedAnswer",
    "ProbeTrial",
    "TASKS",
    "build_trials",
    "export_stimuli",
    "import_replies",
    "make_record",
    "parse_reply",
    "probe_frame",
    "run_probe",
    "write_report",
]


# the envs import gymnasium: load them on first use
__getattr__ = lazy_exports(
    __name__,
    {
        "GCAEnv": "huesenv.probes.gca.env",
        "TextInterferenceEnv": "huesenv.probes.interference.env",
    },
)
