"""Single-step probes: Graded Color Attribution (GCA) and "What color is it" text interference.

Every probe is registered in :mod:`huesenv.probes.registry` (trials, stimuli,
report tables, CLI options, Gymnasium id: ``huesenv/GCA-v0``,
``huesenv/TextInterference-v0``, one trial per episode); seeded trial lists
run in batches through :func:`run_probe`; every trial is logged as a
``probe_trial`` record.  Every name here loads on first access, so
``import huesenv`` (which registers the probes' Gymnasium ids from the
registry) imports no probe code.
"""

from huesenv.lazy import lazy_exports

_LAZY = {
    "KINDS": "huesenv.probes.answers",
    "parse_answer": "huesenv.probes.answers",
    "same_reading": "huesenv.probes.answers",
    "export_stimuli": "huesenv.probes.export",
    "probe_frame": "huesenv.probes.frame",
    "import_replies": "huesenv.probes.replies",
    "write_report": "huesenv.probes.report",
    "TASKS": "huesenv.probes.run",
    "build_trials": "huesenv.probes.run",
    "run_probe": "huesenv.probes.run",
    "ParsedAnswer": "huesenv.probes.trials",
    "ProbeTrial": "huesenv.probes.trials",
    "make_record": "huesenv.probes.trials",
    "parse_reply": "huesenv.probes.trials",
    "Probe": "huesenv.probes.registry",
    "get_probe": "huesenv.probes.registry",
    "probe_names": "huesenv.probes.registry",
    "register_probe": "huesenv.probes.registry",
    # the envs import gymnasium
    "GCAEnv": "huesenv.probes.gca.env",
    "TextInterferenceEnv": "huesenv.probes.interference.env",
}

__all__ = [name for name in _LAZY if not name.endswith("Env")]

__getattr__ = lazy_exports(__name__, _LAZY)
