"""Accuracy of :func:`huesenv.probes.parse_answer` on the reply corpus, per kind and family.

Usage: ``python scripts/parser_accuracy.py [--corpus FILE] [--wrong] [--misses OUT.jsonl]``
(``--corpus`` defaults to ``tests/data/reply_corpus.jsonl``; ``tuning`` names
``tests/data/reply_corpus_tuning.jsonl``; a positional path works too).
Prints one line per kind (n, correct, accuracy), one per (kind, family), one per
corpus batch, and with ``--wrong`` every reply it reads differently from the
expected value.  Batches (the ``batch`` field; absent = 1): 1 was written before
the parser; 2, 3 and 5 were written after it as checks, each scored before the
parser was changed for it; 4 holds adversarial replies (colour codes,
corrections, metaphors — two still read wrong); 6 the yes/no cases found by
probing the parser.

The tuning corpus (``reply_corpus_tuning.jsonl``, 735 replies; it was called
held out until its misses were used to fix the parser) was written
by a second author from the prompts and papers only, before reading the parser
or the first corpus; each row has a ``note`` saying what it tests.  Its batches
were each scored before the parser was changed for them: ``h1`` (486) 443
correct, ``h2`` (154, after the first round of fixes) 149, ``h3`` (95 long-form
and adversarial replies, after the second round) 87; the misses are kept in
``reply_corpus_tuning.misses_*before.jsonl``.  ``--misses`` saves every reply
read differently (with what was read) as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from huesenv.probes import parse_answer, same_reading

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
DEFAULT = DATA / "reply_corpus.jsonl"
NAMED = {
    "main": DEFAULT,
    "tuning": DATA / "reply_corpus_tuning.jsonl",
}


def evaluate(path: Path) -> tuple[dict, list[dict]]:
    counts: dict = defaultdict(lambda: [0, 0])
    wrong = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        got = parse_answer(row["kind"], row["text"], **row.get("kwargs", {}))
        ok = same_reading(row["kind"], got, row["expected"])
        keys = [(row["kind"], "all"), (row["kind"], row["family"])]
        if path.resolve() == DEFAULT.resolve() or "batch" in row:
            keys.append(("batch", f"batch{row.get('batch', 1)}"))
        for key in keys:
            counts[key][0] += 1
            counts[key][1] += ok
        if not ok:
            wrong.append({**row, "line": line_no, "got": sorted(got) if isinstance(got, frozenset) else got})
    return counts, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=None, help="corpus file (or use --corpus)")
    ap.add_argument("--corpus", dest="corpus_opt", default=None, help="corpus file, or 'main' / 'tuning'")
    ap.add_argument("--wrong", action="store_true", help="list the replies read differently")
    ap.add_argument("--misses", default=None, help="write the replies read differently to this JSONL file")
    args = ap.parse_args(argv)
    name = args.corpus_opt or args.corpus or "main"
    path = NAMED.get(name, Path(name))
    if not path.is_file():
        print(f"parser_accuracy: corpus {path}: no such file", file=sys.stderr)
        return 2
    counts, wrong = evaluate(path)
    batches = {k: v for k, v in counts.items() if k[0] == "batch"}
    counts = {k: v for k, v in counts.items() if k[0] != "batch"}
    total = [sum(v[0] for k, v in counts.items() if k[1] == "all"), 0]
    total[1] = sum(v[1] for k, v in counts.items() if k[1] == "all")
    for (kind, fam), (n, ok) in sorted(
        counts.items(), key=lambda kv: (kv[0][0], kv[0][1] != "all", kv[0][1])
    ):
        indent = "" if fam == "all" else "    "
        print(f"{indent}{kind:10s} {fam:17s} n={n:4d} correct={ok:4d} accuracy={ok / n:.3f}")
    print(
        f"all        all               n={total[0]:4d} correct={total[1]:4d} accuracy={total[1] / total[0]:.3f}"
    )
    for (_, batch), (n, ok) in sorted(batches.items()):
        print(f"{batch:20s} n={n:4d} correct={ok:4d} accuracy={ok / n:.3f}")
    if args.misses:
        with open(args.misses, "w", encoding="utf-8") as f:
            for w in wrong:
                f.write(json.dumps(w, ensure_ascii=False) + "\n")
    if args.wrong:
        for w in wrong:
            print(
                f"line {w['line']} [{w['kind']}/{w['family']}] {w['text']!r} kwargs={w['kwargs']} "
                f"expected={w['expected']!r} got={w['got']!r}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
