"""``huesenv agents``: list the agent kinds, ask one agent about a word, run the word-level task.

* ``huesenv agents list`` — every kind :func:`make_agent` accepts (plugins included).
* ``huesenv agents guess SPEC WORD [--top-k 5]`` — the agent's ranked cells for one word.
* ``huesenv agents words SPEC [--out log.jsonl] [--top-k 5] [--seed N]`` — the 116-input
  word task as ``word_query`` records, appended to an episode log (JSON Lines).

``--opt key=value`` passes keyword arguments to the agent (values parsed as JSON
when they can be, e.g. ``--opt device='"cpu"'`` or ``--opt batch_size=64``;
plain text otherwise).  API keys are never options: they come from the environment.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from huesenv.agents.devices import with_device
from huesenv.agents.evaluate import evaluate_words
from huesenv.agents.protocol import GuessQuery
from huesenv.agents.registry import describe_agents, kinds_with, make_agent
from huesenv.board import format_coord
from huesenv.commands.common import (
    add_allow_code,
    add_device,
    add_out,
    add_seed,
    jsonl_target,
    positive_int,
    safe_name,
    top_k_int,
    warn_unused_device,
)
from huesenv.logs import LogWriter, check_appendable


def _opts(pairs: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, pair in enumerate(pairs or [], start=1):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--opt #{i} {pair!r}: expected key=value")
        if key.strip() in out:
            raise ValueError(f"--opt #{i} {pair!r}: {key.strip()!r} given twice")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agents",
        help="list agents, query one, run the word-level task",
        description="Agents by spec: random, human-replay, text-embedding, clip:<model>/<pretrained>, "
        "clip:hf-hub:<id>, vlm:<model>, api-vlm:<model>, and installed plugins.",
    )
    cmds = p.add_subparsers(dest="agents_command", metavar="ACTION")
    cmds.required = True
    ls = cmds.add_parser(
        "list",
        help="list agent kinds",
        description="List the agent kinds, built in and from plugins: the spec that makes each and what it can do.",
    )
    ls.set_defaults(func=run_list)
    for name, helptext, description in (
        ("guess", "ranked cells for one word", "Ask one agent for its top-k cells for one cue, best first."),
        (
            "words",
            "the 116-input word task",
            "Run one agent on the word task (the paper's 100 words and 16 nonsense inputs); print its answers "
            "or append them to a log for `huesenv metrics`.",
        ),
    ):
        q = cmds.add_parser(name, help=helptext, description=description)
        q.add_argument("spec", help="agent spec, e.g. text-embedding or clip:ViT-B-32/openai")
        if name == "guess":
            q.add_argument("word", help="the cue: a word or a two-word cue (quote it), e.g. OCEAN")
        q.add_argument("--top-k", type=top_k_int, default=5, help="cells per answer, 1-480 (default 5)")
        add_seed(q, default=0)
        add_device(q)
        add_allow_code(q)
        q.add_argument(
            "--opt", action="append", metavar="KEY=VALUE", help="agent keyword argument (repeatable)"
        )
        if name == "words":
            add_out(q, metavar="PATH.jsonl", help="append the records to this episode log")
            q.add_argument(
                "--run-id", type=safe_name, default="words", help="run id of the log records (default words)"
            )
            q.add_argument(
                "--batch-size",
                type=positive_int,
                default=None,
                help="words per batched model call (default: the agent's own)",
            )
        q.set_defaults(func=run_guess if name == "guess" else run_words)


def run_list(args: argparse.Namespace) -> int:
    flags = {
        flag: set(kinds_with(flag))
        for flag in ("takes_device", "needs_weights", "takes_vocabulary", "answers_probes")
    }
    for kind, text in describe_agents().items():
        can = [flag.replace("_", " ") for flag, kinds in flags.items() if kind in kinds]
        print(f"{kind:16s} {text}" + (f" [{', '.join(can)}]" if can else ""))
    return 0


def _agent(args: argparse.Namespace):
    # --device reaches the torch-backed agents only (random or human-replay have no device to set)
    warn_unused_device(args.spec, args.device)
    return make_agent(args.spec, **with_device(args.spec, _opts(args.opt), args.device))


def run_guess(args: argparse.Namespace) -> int:
    if not args.word.strip():
        raise ValueError("WORD: expected a cue word, got an empty string")
    if not args.word.isprintable():
        raise ValueError(f"WORD {args.word!r}: expected a cue word without control characters")
    agent = _agent(args)
    knows = getattr(agent, "knows_cue", None)
    if callable(knows) and not knows(
        args.word
    ):  # a learned index-cue policy: never answer a word it cannot read
        raise ValueError(
            f"WORD {args.word!r}: not in {agent.agent_id}'s {len(agent.vocabulary)}-word cue vocabulary "
            "(an index-cue policy reads only those; train with --cue-encoding embedding to read any word)"
        )
    agent.reset(args.seed)
    ans = agent.act(GuessQuery(cues=(args.word,), top_k=args.top_k))
    if not ans.valid or ans.cells is None:
        print(f"{agent.agent_id}: invalid answer; raw text: {ans.raw_text!r}")
        return 1
    scores = [None] * len(ans.cells) if ans.scores is None else ans.scores
    for rank, (cell, score) in enumerate(zip(ans.cells, scores), start=1):
        print(f"{rank:2d}. {format_coord(int(cell)):4s}" + ("" if score is None else f"  {float(score):.4f}"))
    return 0


def run_words(args: argparse.Namespace) -> int:
    if args.out:
        check_appendable(jsonl_target(args.out, "--out"))  # a bad log fails before the agent loads
    agent = _agent(args)
    records = evaluate_words(
        agent, top_k=args.top_k, run_id=args.run_id, seed=args.seed, batch_size=args.batch_size
    )
    if args.out:
        with LogWriter(args.out) as writer:
            writer.append(records)
    invalid = sum(not r.valid for r in records)
    total = sum(r.timings.get("per_query_s", 0.0) for r in records)
    print(
        f"{agent.agent_id}: {len(records)} inputs, {invalid} invalid, {total:.2f} s"
        + (f" -> {args.out}" if args.out else "")
    )
    if not args.out:
        for r in records:
            print(f"{r.word!r:>24} {' '.join(r.cells or ['-'])}")
    return 0
