"""``huesenv probe TASK``: run an agent on a registered probe (logs + report) and/or export its stimuli.

One subcommand per probe of :mod:`huesenv.probes.registry`; each probe adds its own options.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from huesenv.agents import make_agent
from huesenv.agents.devices import with_device
from huesenv.agents.registry import kinds_with, refuses_probes
from huesenv.commands.common import (
    add_allow_code,
    add_device,
    add_out,
    add_progress,
    add_seed,
    existing_file,
    positive_int,
    progress_enabled,
    safe_name,
    warn_unused_device,
)
from huesenv.logs import LogWriter, check_appendable
from huesenv.probes.export import export_stimuli
from huesenv.probes.registry import get_probe, probe_names
from huesenv.probes.replies import import_replies
from huesenv.probes.report import write_report
from huesenv.probes.run import agent_id_of, default_run_id, run_probe


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--agent",
        "--agents",
        dest="agent",
        metavar="SPEC",
        help="agent spec for huesenv.agents.make_agent; kinds that answer probes: "
        + ", ".join(kinds_with("answers_probes")),
    )
    p.add_argument(
        "--replies",
        metavar="FILE",
        help="score replies gathered elsewhere (.csv/.jsonl: trial_id, reply[, agent]) instead of an agent",
    )
    p.add_argument(
        "--keep-excluded",
        action="store_true",
        help="with a GCA survey export as --replies: keep the participants the paper's exclusions drop "
        "(2+ distractor choices or a failed attention check)",
    )
    add_seed(p, default=0, help="stimulus-set and subsampling seed")
    add_device(p)
    add_allow_code(p)
    p.add_argument("--limit", type=positive_int, default=None, help="evaluate a seeded subsample of N trials")
    p.add_argument(
        "--batch-size", type=positive_int, default=16, help="queries per act_batch call (default 16)"
    )
    add_out(p, default="runs/probes", metavar="DIR", help="logs and report folder (default runs/probes)")
    p.add_argument(
        "--run-id",
        type=safe_name,
        default=None,
        help="run id for the log records (default: a hash of task, seed, agent and options)",
    )
    p.add_argument(
        "--export", metavar="DIR", help="write the stimuli as PNG + manifest.csv (ground truth) to DIR"
    )
    add_progress(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "probe",
        help="single-step probes: " + ", ".join(probe_names()),
        description="Run an agent on a probe (JSONL log + metric report) and/or export its stimuli.",
    )
    tasks = p.add_subparsers(dest="probe_task", metavar="TASK")
    tasks.required = True
    for name in probe_names():
        probe = get_probe(name)
        task = tasks.add_parser(
            name,
            help=probe.title,
            description=f"{probe.title}: run an agent on it (--agent), score people's replies (--replies) "
            "and/or write its stimuli (--export).",
        )
        _common(task)
        probe.add_arguments(task, positive_int)
        task.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.agent and not args.export and not args.replies:
        raise ValueError("nothing to do: give --agent SPEC, --replies FILE and/or --export DIR")
    if args.agent and args.replies:
        raise ValueError("--agent and --replies: give one source of answers")
    if args.keep_excluded and not args.replies:
        raise ValueError("--keep-excluded: only with --replies (a GCA survey export)")
    if args.replies:
        existing_file(args.replies, "--replies")
    for flag, value in (
        ("--export", args.export),
        ("--out", args.out if args.agent or args.replies else None),
    ):
        if value and Path(value).exists() and not Path(value).is_dir():
            raise ValueError(f"{flag} {value}: is a file, expected a folder")
    if getattr(args, "data_dir", None) and not Path(args.data_dir).is_dir():
        raise ValueError(f"--data-dir {args.data_dir}: expected a folder of the published GCA dataset")
    trial_kwargs, stim_kwargs = get_probe(args.probe_task).task_kwargs(args)
    if args.export:
        manifest = export_stimuli(args.probe_task, args.export, seed=args.seed, **stim_kwargs)
        print(f"wrote {manifest}")
    if args.agent:
        if refuses_probes(args.agent):  # a whole report of invalid rows would look like a result
            raise ValueError(
                f"--agent {args.agent!r}: agent kind {args.agent.split(':', 1)[0]!r} does not answer probes; "
                f"expected one of the kinds that do: {', '.join(kinds_with('answers_probes'))}"
            )
        check_appendable(Path(args.out) / f"{args.probe_task}.jsonl")  # fails before the agent loads
        warn_unused_device(args.agent, args.device)
        agent = make_agent(args.agent, **with_device(args.agent, {}, args.device))
        # the same id run_probe would derive, needed here for the report folder's name
        run_id = args.run_id or default_run_id(
            args.probe_task, args.seed, agent_id_of(agent), limit=args.limit, **trial_kwargs
        )
        out = Path(args.out)
        log_path = out / f"{args.probe_task}.jsonl"
        with LogWriter(log_path) as writer:
            records = run_probe(
                agent,
                args.probe_task,
                seed=args.seed,
                limit=args.limit,
                batch_size=args.batch_size,
                run_id=run_id,
                on_record=writer.append,
                progress=progress_enabled(args),
                **trial_kwargs,
            )
        files = write_report(args.probe_task, records, out / f"{args.probe_task}_report_{run_id}")
        valid = sum(r.valid for r in records)
        print(f"{len(records)} trials ({valid} valid) by {agent.agent_id}, run {run_id}; log {log_path}")
        for f in files:
            print(f"wrote {f}")
    if args.replies:
        check_appendable(Path(args.out) / f"{args.probe_task}.jsonl")
        notes: list[str] = []
        records = import_replies(
            args.replies,
            args.probe_task,
            seed=args.seed,
            run_id=args.run_id,
            keep_excluded=args.keep_excluded,
            notes=notes,
            **trial_kwargs,
        )
        for note in notes:
            print(note)
        out = Path(args.out)
        log_path = out / f"{args.probe_task}.jsonl"
        with LogWriter(log_path) as writer:
            writer.append(records)
        name = args.run_id or Path(args.replies).stem
        files = write_report(args.probe_task, records, out / f"{args.probe_task}_report_{name}")
        valid = sum(r.valid for r in records)
        print(f"{len(records)} replies ({valid} readable) from {args.replies}; log {log_path}")
        for f in files:
            print(f"wrote {f}")
    return 0


__all__ = ["register", "run"]
