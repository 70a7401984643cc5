"""An independent hostile-input battery of the ``huesenv`` CLI (issue 18, item 4).

Written from ``--help``, the README and the bundled configs only, as an attacker
or a careless user would type things.  Every case must end with a non-zero exit
code (2: the user's mistake), one line on stderr naming the input, no traceback,
nothing that starts running (a server, a window, a training loop), and every
file that existed before the command byte-identical afterwards.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

import huesenv
from huesenv.cli import main

LONG = "x" * 5000


class _Started(Exception):
    """Raised by the guards below: a bad input got as far as starting real work."""


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hostile")
    cohort = Path(huesenv.__file__).parent / "data" / "humans" / "reconstructed_cohort.csv.gz"
    with gzip.open(cohort, "rt", encoding="utf-8") as fh:  # the packaged cohort: a valid export
        full = [fh.readline().rstrip("\n") for _ in range(401)]
    header, rows = full[0], full[1:]
    (d / "h.csv").write_text("\n".join([header, *rows]) + "\n")
    assert main(["agents", "words", "random", "-o", str(d / "w.jsonl")]) == 0
    log = (d / "w.jsonl").read_text().splitlines()
    rec = json.loads(log[0])
    shutil.copy(Path(__file__).parent / "data" / "v1_games.jsonl", d / "g.jsonl")
    game = (d / "g.jsonl").read_text().splitlines()
    (d / "g_twice.jsonl").write_text("\n".join(game + game) + "\n")  # a game log appended to itself
    for name, key, value, at in (
        ("g_nullgame", "game", None, 5),
        ("g_textgame", "game", "three", 5),
        ("g_badpos", "unit_pos", 999, len(game) - 1),
        ("g_badsize", "unit_size", 3, 7),
    ):
        lines = list(game)
        step = json.loads(lines[at])
        step["extra"][key] = value
        lines[at] = json.dumps(step)
        (d / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    (d / "grun").mkdir()
    shutil.copy(d / "g.jsonl", d / "grun" / "games.jsonl")
    (d / "grun" / "config.yaml").write_text("humans: h.csv\nagents: {random: {spec: random}}\n")
    (d / "empty.csv").write_text("")
    (d / "empty.jsonl").write_text("")
    (d / "blank.jsonl").write_text("\n\n  \n")
    (d / "bin.bin").write_bytes(bytes(range(256)) * 8)
    (d / "bom.csv").write_bytes(b"\xef\xbb\xbf" + "\n".join([header, *rows[:50]]).encode())
    (d / "crlf.csv").write_bytes(("\r\n".join([header, *rows[:50]]) + "\r\n").encode())
    (d / "extra_col.csv").write_text("\n".join(f"{r},extra" for r in [header, *rows[:50]]) + "\n")
    (d / "semi.csv").write_text("\n".join(r.replace(",", ";") for r in [header, *rows[:50]]))
    (d / "missing_col.csv").write_text(
        "\n".join(",".join(r.split(",")[:5]) for r in [header, *rows[:50]]) + "\n"
    )
    (d / "dup_col.csv").write_text(
        "\n".join(f"{r},{r.split(',')[4]}" for r in [header.replace("word", "word")] + rows[:50])
    )
    dup_lines = [header + ",word"] + [f"{r},{r.split(',')[4]}" for r in rows[:50]]
    (d / "dup_col.csv").write_text("\n".join(dup_lines) + "\n")
    (d / "bad_cell.csv").write_text(header + "\n" + rows[0].replace(rows[0].split(",")[5], "Z99", 1) + "\n")
    (d / "header_only.csv").write_text(header + "\n")
    (d / "trunc.jsonl").write_text("\n".join([*log[:3], log[3][: len(log[3]) // 2], *log[4:6]]) + "\n")
    (d / "v99.jsonl").write_text(json.dumps({**rec, "schema_version": 99}) + "\n")
    (d / "v0.jsonl").write_text(json.dumps({**rec, "schema_version": "two"}) + "\n")
    (d / "notobj.jsonl").write_text("[1, 2, 3]\n")
    (d / "nul.jsonl").write_bytes(log[0].encode() + b"\n\x00\x00\x00\n")
    (d / "wrongkind.jsonl").write_text(json.dumps({**rec, "kind": "no_such_kind"}) + "\n")
    (d / "badfield.jsonl").write_text(json.dumps({**rec, "cells": "K4"}) + "\n")
    (d / "badcell.jsonl").write_text(json.dumps({**rec, "answer": "Z99", "cells": ["Z99"]}) + "\n")
    (d / "nan.jsonl").write_text(json.dumps({**rec, "scores": [float("nan")] * 5}) + "\n")
    (d / "dir.csv").mkdir()
    (d / "dir.jsonl").mkdir()
    (d / "notadir").write_text("a file\n")
    (d / "existing.csv").write_text("precious\n")
    (d / "existing.jsonl").write_text(log[0] + "\n")
    # YAML configs
    (d / "empty.yaml").write_text("")
    (d / "list.yaml").write_text("- 1\n- 2\n")
    (d / "scalar.yaml").write_text("42\n")
    (d / "bad.yaml").write_text("games: [1, 2\nseed: {\n")
    (d / "tag.yaml").write_text("games: !!python/object/apply:os.system ['echo pwned']\n")
    (d / "tag2.yaml").write_text("name: !custom x\n")
    bomb = ["a: &a [x,x,x,x,x,x,x,x,x]"]
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        bomb.append(
            f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
    (d / "bomb.yaml").write_text("\n".join(bomb) + "\n")
    (d / "deep.yaml").write_text("games: " + "[" * 5000 + "]" * 5000 + "\n")
    (d / "unknown.yaml").write_text("gamez: 3\n")
    (d / "nested_unknown.yaml").write_text("metrics: {alpah: 0.1}\n")
    (d / "wrongtype.yaml").write_text("games: ten\n")
    (d / "neg.yaml").write_text("games: -4\n")
    (d / "nan.yaml").write_text("games: .nan\n")
    (d / "inf.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nmetrics: {alpha: .inf}\n"
    )
    (d / "float_games.yaml").write_text("games: 2.5\n")
    (d / "bool_games.yaml").write_text("games: true\n")
    (d / "seed_str.yaml").write_text("seed: abc\n")
    (d / "agents_list.yaml").write_text("agents: [random]\n")
    (d / "agent_nospec.yaml").write_text("agents: {r: {kind: random}}\n")
    (d / "lineup_unknown.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nlineups: [[ghost, human, human, human]]\n"
    )
    (d / "lineup_short.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nlineups: [[random]]\n"
    )
    (d / "players.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nnum_players: 0\n"
    )
    (d / "alpha.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nmetrics: {alpha: 2}\n"
    )
    (d / "topk.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nmetrics: {top_k: 0}\n"
    )
    (d / "mode.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\nwandb: {mode: loud}\n"
    )
    (d / "cue.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\ncue_mode: telepathy\n"
    )
    (d / "dupkey.yaml").write_text(
        "agents: {random: {spec: random}, human: {spec: human-replay}}\ngames: 1\ngames: 500\n"
    )
    (d / "bin.yaml").write_bytes(b"\xff\xfe\x00games: 1")
    (d / "crlf.yaml").write_bytes(b"\xef\xbb\xbfgamez: 3\r\n")
    # answer tables for import-answers
    (d / "answers.csv").write_text("Palabra,Answer1,Answer2\nAPPLE,K4,K5\nBANANA,E10,E11\n")
    (d / "answers_badcell.csv").write_text("Palabra,Answer1\nAPPLE,Q99\n")
    (d / "answers_noword.csv").write_text("Word,Answer1\nAPPLE,K4\n")
    (d / "answers_unknownword.csv").write_text("Palabra,Answer1\nNOTAWORD,K4\n")
    (d / "answers_semicolon.csv").write_text("Palabra;Answer1\nAPPLE;K4\n")
    (d / "answers_noanswers.csv").write_text("Palabra\nAPPLE\n")
    (d / "cvd.txt").write_text("")
    (d / "vocab_header.csv").write_text("word,category\n")
    (d / "run").mkdir()
    (d / "run" / "marker.txt").write_text("keep me\n")
    (d / "runfile").write_text("not a run folder\n")
    return d


def _snapshot(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(autouse=True)
def _guards(monkeypatch):
    """Accepting a bad value and starting real work is a failure, not a hang."""
    pytest.importorskip("flask")

    def started(*a, **k):
        raise _Started("started")

    import flask

    monkeypatch.setattr(flask.Flask, "run", started)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("WANDB_MODE", "disabled")
    monkeypatch.delenv("HUESENV_DEBUG", raising=False)


D = "{d}"
CASES: list[tuple[str, list[str], str | None]] = [
    # -- global / argparse
    ("no-command", [], None),
    ("unknown-command", ["frobnicate"], "frobnicate"),
    ("unknown-flag", ["board", "--frobnicate"], "--frobnicate"),
    ("nul-command", ["bo\x00ard"], None),
    # -- board
    ("board-out-dir", ["board", "-o", f"{D}/dir.csv"], "dir.csv"),
    ("board-out-bad-ext", ["board", "-o", f"{D}/b.txt"], "b.txt"),
    ("board-out-no-ext", ["board", "-o", f"{D}/b"], None),
    ("board-out-empty", ["board", "-o", ""], None),
    ("board-out-blank", ["board", "-o", "   "], None),
    ("board-out-under-file", ["board", "-o", f"{D}/notadir/b.csv"], "notadir"),
    ("board-out-nul", ["board", "-o", f"{D}/b\x00.csv"], None),
    ("board-plot-bad-ext", ["board", "--plot", f"{D}/p.csv"], "p.csv"),
    ("board-plot-dir", ["board", "--plot", f"{D}/dir.csv"], None),
    ("board-out-long", ["board", "-o", f"{D}/{LONG}.csv"], None),
    # -- humans summary
    ("humans-missing", ["humans", "summary", "--humans", f"{D}/none.csv"], "none.csv"),
    ("humans-dir", ["humans", "summary", "--humans", f"{D}/dir.csv"], "dir.csv"),
    ("humans-empty", ["humans", "summary", "--humans", f"{D}/empty.csv"], "empty.csv"),
    ("humans-header-only", ["humans", "summary", "--humans", f"{D}/header_only.csv"], "header_only.csv"),
    ("humans-binary", ["humans", "summary", "--humans", f"{D}/bin.bin"], "bin.bin"),
    ("humans-semicolon", ["humans", "summary", "--humans", f"{D}/semi.csv"], "semi.csv"),
    ("humans-missing-col", ["humans", "summary", "--humans", f"{D}/missing_col.csv"], "missing_col.csv"),
    ("humans-dup-col", ["humans", "summary", "--humans", f"{D}/dup_col.csv"], "dup_col.csv"),
    ("humans-bad-cell", ["humans", "summary", "--humans", f"{D}/bad_cell.csv"], "Z99"),
    ("humans-jsonl", ["humans", "summary", "--humans", f"{D}/w.jsonl"], "w.jsonl"),
    ("humans-alpha-0", ["humans", "summary", "--alpha", "0"], "--alpha"),
    ("humans-alpha-1", ["humans", "summary", "--alpha", "1"], "--alpha"),
    ("humans-alpha-neg", ["humans", "summary", "--alpha", "-0.1"], "--alpha"),
    ("humans-alpha-nan", ["humans", "summary", "--alpha", "nan"], "--alpha"),
    ("humans-alpha-inf", ["humans", "summary", "--alpha", "inf"], "--alpha"),
    ("humans-alpha-text", ["humans", "summary", "--alpha", "abc"], "--alpha"),
    ("humans-alpha-empty", ["humans", "summary", "--alpha", ""], "--alpha"),
    ("humans-format", ["humans", "summary", "--format", "xml"], "--format"),
    ("humans-cvd-missing", ["humans", "summary", "--cvd", f"{D}/nocvd.txt"], "nocvd.txt"),
    ("humans-cvd-binary", ["humans", "summary", "--cvd", f"{D}/bin.bin"], "bin.bin"),
    ("humans-vocab-missing", ["humans", "summary", "--vocabulary", f"{D}/novocab.txt"], "novocab.txt"),
    ("humans-vocab-binary", ["humans", "summary", "--vocabulary", f"{D}/bin.bin"], "bin.bin"),
    ("humans-language-none", ["humans", "summary", "--language", "klingon"], "--language"),
    ("humans-gender-none", ["humans", "summary", "--gender", "xyzzy"], "--gender"),
    ("humans-age-none", ["humans", "summary", "--age-range", "500-600"], "--age-range"),
    ("humans-language-empty", ["humans", "summary", "--language", ""], "--language"),
    ("humans-no-action", ["humans"], None),
    ("humans-vocab-empty", ["humans", "summary", "--vocabulary", f"{D}/empty.csv"], "empty.csv"),
    (
        "humans-vocab-header-only",
        ["humans", "summary", "--vocabulary", f"{D}/vocab_header.csv"],
        "vocab_header.csv",
    ),
    (
        "serve-vocab-empty",
        ["collect", "serve", "--vocabulary", f"{D}/empty.csv", "--db", f"{D}/s.db"],
        "empty.csv",
    ),
    ("words-out-v1-log", ["agents", "words", "random", "-o", f"{D}/g.jsonl"], "g.jsonl"),
    ("gca-replies-wrong-kind", ["probe", "gca", "--replies", f"{D}/w.jsonl", "-o", f"{D}/p"], "w.jsonl"),
    ("lb-unfinished-run", ["leaderboard", f"{D}/dir.csv"], "summary.json"),
    ("logs-schema-extra", ["logs", "schema", "extra"], "extra"),
    ("doctor-bogus", ["doctor", "--bogus"], "--bogus"),
    # -- humans reconstruct
    ("recon-seed-text", ["humans", "reconstruct", "--seed", "abc"], "--seed"),
    ("recon-seed-neg", ["humans", "reconstruct", "--seed", "-1", "-o", f"{D}/r.csv"], "--seed"),
    ("recon-seed-huge", ["humans", "reconstruct", "--seed", "9" * 400, "-o", f"{D}/r.csv"], "--seed"),
    ("recon-seed-float", ["humans", "reconstruct", "--seed", "1.5"], "--seed"),
    ("recon-out-bad-ext", ["humans", "reconstruct", "-o", f"{D}/r.txt"], "r.txt"),
    ("recon-out-dir", ["humans", "reconstruct", "-o", f"{D}/dir.csv"], "dir.csv"),
    # -- logs import-answers
    (
        "import-missing",
        ["logs", "import-answers", f"{D}/none.csv", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "none.csv",
    ),
    (
        "import-empty",
        ["logs", "import-answers", f"{D}/empty.csv", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "empty.csv",
    ),
    (
        "import-binary",
        ["logs", "import-answers", f"{D}/bin.bin", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "bin.bin",
    ),
    (
        "import-noword",
        ["logs", "import-answers", f"{D}/answers_noword.csv", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "Palabra",
    ),
    (
        "import-unknown-word",
        ["logs", "import-answers", f"{D}/answers_unknownword.csv", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "NOTAWORD",
    ),
    (
        "import-semicolon",
        ["logs", "import-answers", f"{D}/answers_semicolon.csv", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "answers_semicolon.csv",
    ),
    (
        "import-noanswers",
        ["logs", "import-answers", f"{D}/answers_noanswers.csv", "--agent", "a", "-o", f"{D}/i.jsonl"],
        "answers_noanswers.csv",
    ),
    (
        "import-agent-empty",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "", "-o", f"{D}/i.jsonl"],
        "--agent",
    ),
    (
        "import-agent-blank",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "  ", "-o", f"{D}/i.jsonl"],
        "--agent",
    ),
    (
        "import-agent-newline",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a\nb", "-o", f"{D}/i.jsonl"],
        "--agent",
    ),
    (
        "import-agent-nul",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a\x00b", "-o", f"{D}/i.jsonl"],
        "--agent",
    ),
    ("import-no-out", ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a"], "-o"),
    (
        "import-out-v99",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/v99.jsonl"],
        "v99.jsonl",
    ),
    (
        "import-out-trunc",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/trunc.jsonl"],
        "trunc.jsonl",
    ),
    (
        "import-out-binary",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/bin.bin"],
        "bin.bin",
    ),
    (
        "import-out-dir",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/dir.jsonl"],
        "dir.jsonl",
    ),
    (
        "import-out-same",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/answers.csv"],
        "answers.csv",
    ),
    (
        "import-out-csv-existing",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/existing.csv"],
        "existing.csv",
    ),
    (
        "import-seed-nan",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/i.jsonl", "--seed", "nan"],
        "--seed",
    ),
    (
        "import-runid-dots",
        ["logs", "import-answers", f"{D}/answers.csv", "--agent", "a", "-o", f"{D}/i.jsonl", "--run-id", ""],
        "--run-id",
    ),
    # -- logs to-parquet
    ("parquet-missing", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/none.jsonl"], "none.jsonl"),
    ("parquet-dir", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/dir.jsonl"], "dir.jsonl"),
    ("parquet-trunc", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/trunc.jsonl"], "trunc.jsonl"),
    ("parquet-v99", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/v99.jsonl"], "v99.jsonl"),
    ("parquet-notobj", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/notobj.jsonl"], "notobj.jsonl"),
    ("parquet-nul", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/nul.jsonl"], "nul.jsonl"),
    ("parquet-binary", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/bin.bin"], "bin.bin"),
    ("parquet-empty", ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/empty.jsonl"], "empty.jsonl"),
    ("parquet-out-csv", ["logs", "to-parquet", "-o", f"{D}/o.csv", f"{D}/w.jsonl"], "o.csv"),
    ("parquet-out-same", ["logs", "to-parquet", "-o", f"{D}/w.jsonl", f"{D}/w.jsonl"], "w.jsonl"),
    ("parquet-out-dir", ["logs", "to-parquet", "-o", f"{D}/dir.jsonl", f"{D}/w.jsonl"], "dir.jsonl"),
    (
        "parquet-wrongkind",
        ["logs", "to-parquet", "-o", f"{D}/o.parquet", f"{D}/wrongkind.jsonl"],
        "wrongkind.jsonl",
    ),
    ("parquet-no-logs", ["logs", "to-parquet", "-o", f"{D}/o.parquet"], None),
    # -- logs check
    ("check-missing", ["logs", "check", f"{D}/none.jsonl"], "none.jsonl"),
    ("check-dir", ["logs", "check", f"{D}/dir.jsonl"], "dir.jsonl"),
    ("check-trunc", ["logs", "check", f"{D}/trunc.jsonl"], "trunc.jsonl"),
    ("check-v99", ["logs", "check", f"{D}/v99.jsonl"], "v99.jsonl"),
    ("check-v-text", ["logs", "check", f"{D}/v0.jsonl"], "v0.jsonl"),
    ("check-notobj", ["logs", "check", f"{D}/notobj.jsonl"], "notobj.jsonl"),
    ("check-nul", ["logs", "check", f"{D}/nul.jsonl"], "nul.jsonl"),
    ("check-binary", ["logs", "check", f"{D}/bin.bin"], "bin.bin"),
    ("check-wrongkind", ["logs", "check", f"{D}/wrongkind.jsonl"], "wrongkind.jsonl"),
    ("check-badfield", ["logs", "check", f"{D}/badfield.jsonl"], "badfield.jsonl"),
    ("check-badcell", ["logs", "check", f"{D}/badcell.jsonl"], "badcell.jsonl"),
    ("check-csv", ["logs", "check", f"{D}/h.csv"], "h.csv"),
    ("check-good-then-bad", ["logs", "check", f"{D}/w.jsonl", f"{D}/trunc.jsonl"], "trunc.jsonl"),
    # -- metrics
    ("metrics-missing", ["metrics", f"{D}/none.jsonl", "-o", f"{D}/m"], "none.jsonl"),
    ("metrics-trunc", ["metrics", f"{D}/trunc.jsonl", "-o", f"{D}/m"], "trunc.jsonl"),
    ("metrics-v99", ["metrics", f"{D}/v99.jsonl", "-o", f"{D}/m"], "v99.jsonl"),
    ("metrics-binary", ["metrics", f"{D}/bin.bin", "-o", f"{D}/m"], "bin.bin"),
    ("metrics-empty", ["metrics", f"{D}/empty.jsonl", "-o", f"{D}/m"], "empty.jsonl"),
    ("metrics-blank", ["metrics", f"{D}/blank.jsonl", "-o", f"{D}/m"], "blank.jsonl"),
    ("metrics-no-out", ["metrics", f"{D}/w.jsonl"], "-o"),
    (
        "metrics-out-file",
        ["metrics", f"{D}/w.jsonl", "-o", f"{D}/existing.csv", "--no-plots"],
        "existing.csv",
    ),
    ("metrics-alpha-text", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--alpha", "x"], "--alpha"),
    ("metrics-alpha-2", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--alpha", "2"], "--alpha"),
    ("metrics-alpha-nan", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--alpha", "nan"], "--alpha"),
    ("metrics-topk-0", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--top-k", "0"], "--top-k"),
    ("metrics-topk-neg", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--top-k", "-3"], "--top-k"),
    ("metrics-topk-huge", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--top-k", "99999999999"], "--top-k"),
    ("metrics-topk-float", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--top-k", "2.5"], "--top-k"),
    (
        "metrics-cloud",
        ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--sampled-cloud", "some"],
        "--sampled-cloud",
    ),
    (
        "metrics-humans-missing",
        ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--humans", f"{D}/none.csv"],
        "none.csv",
    ),
    (
        "metrics-humans-badcols",
        ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--humans", f"{D}/missing_col.csv"],
        "missing_col.csv",
    ),
    (
        "metrics-humans-jsonl",
        ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--humans", f"{D}/w.jsonl"],
        "w.jsonl",
    ),
    ("metrics-cvd-missing", ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--cvd", f"{D}/nocvd"], "--cvd"),
    # -- metrics on game logs: scored when whole, refused (naming file, line, field) when not
    ("metrics-game-log-twice", ["metrics", f"{D}/g_twice.jsonl", "-o", f"{D}/m", "--no-plots"], "line 105"),
    ("metrics-game-null", ["metrics", f"{D}/g_nullgame.jsonl", "-o", f"{D}/m", "--no-plots"], "extra.game"),
    ("metrics-game-text", ["metrics", f"{D}/g_textgame.jsonl", "-o", f"{D}/m", "--no-plots"], "line 6"),
    ("metrics-game-unit-pos", ["metrics", f"{D}/g_badpos.jsonl", "-o", f"{D}/m", "--no-plots"], "unit_pos"),
    (
        "metrics-game-unit-size",
        ["metrics", f"{D}/g_badsize.jsonl", "-o", f"{D}/m", "--no-plots"],
        "unit_size",
    ),
    ("metrics-game-run-humans", ["metrics", f"{D}/grun/games.jsonl", "-o", f"{D}/m", "--no-plots"], "humans"),
    # -- agents
    ("agents-no-action", ["agents"], None),
    ("guess-clip-empty", ["agents", "guess", "clip:", "APPLE"], "clip:"),
    ("guess-policy-empty", ["agents", "guess", "policy:", "APPLE"], "policy:"),
    ("guess-policy-missing", ["agents", "guess", f"policy:{D}/none.pt", "APPLE"], "none.pt"),
    ("guess-policy-binary", ["agents", "guess", f"policy:{D}/bin.bin", "APPLE"], "bin.bin"),
    ("guess-vlm-path", ["agents", "guess", "vlm:/nonexistent", "APPLE"], "/nonexistent"),
    ("guess-random-kwarg", ["agents", "guess", "random:foo=bar", "APPLE"], "foo"),
    ("guess-unknown", ["agents", "guess", "nosuchagent", "APPLE"], "nosuchagent"),
    ("guess-spec-empty", ["agents", "guess", "", "APPLE"], None),
    ("guess-spec-colon", ["agents", "guess", ":", "APPLE"], None),
    ("guess-spec-nul", ["agents", "guess", "ran\x00dom", "APPLE"], None),
    ("guess-word-empty", ["agents", "guess", "random", ""], None),
    ("guess-word-blank", ["agents", "guess", "random", "   "], None),
    ("guess-word-nul", ["agents", "guess", "random", "APP\x00LE"], None),
    ("guess-topk-0", ["agents", "guess", "random", "APPLE", "--top-k", "0"], "--top-k"),
    ("guess-topk-neg", ["agents", "guess", "random", "APPLE", "--top-k", "-1"], "--top-k"),
    ("guess-topk-481", ["agents", "guess", "random", "APPLE", "--top-k", "481"], "--top-k"),
    ("guess-topk-nan", ["agents", "guess", "random", "APPLE", "--top-k", "nan"], "--top-k"),
    ("guess-seed-text", ["agents", "guess", "random", "APPLE", "--seed", "s"], "--seed"),
    ("guess-device-gpu", ["agents", "guess", "text-embedding", "APPLE", "--device", "gpu"], "gpu"),
    (
        "guess-device-cuda-abc",
        ["agents", "guess", "text-embedding", "APPLE", "--device", "cuda:abc"],
        "cuda:abc",
    ),
    ("guess-device-empty", ["agents", "guess", "random", "APPLE", "--device", ""], "--device"),
    ("guess-opt-noeq", ["agents", "guess", "random", "APPLE", "--opt", "seed"], "seed"),
    ("guess-opt-emptykey", ["agents", "guess", "random", "APPLE", "--opt", "=3"], "=3"),
    ("guess-opt-unknown", ["agents", "guess", "random", "APPLE", "--opt", "colour=red"], "colour"),
    ("words-out-dir", ["agents", "words", "random", "-o", f"{D}/dir.jsonl"], "dir.jsonl"),
    ("words-out-under-file", ["agents", "words", "random", "-o", f"{D}/notadir/w.jsonl"], "notadir"),
    ("words-out-v99", ["agents", "words", "random", "-o", f"{D}/v99.jsonl"], "v99.jsonl"),
    ("words-out-trunc", ["agents", "words", "random", "-o", f"{D}/trunc.jsonl"], "trunc.jsonl"),
    ("words-out-csv", ["agents", "words", "random", "-o", f"{D}/existing.csv"], "existing.csv"),
    (
        "words-batch-0",
        ["agents", "words", "random", "-o", f"{D}/w2.jsonl", "--batch-size", "0"],
        "--batch-size",
    ),
    (
        "words-batch-neg",
        ["agents", "words", "random", "-o", f"{D}/w2.jsonl", "--batch-size", "-8"],
        "--batch-size",
    ),
    ("words-runid-empty", ["agents", "words", "random", "-o", f"{D}/w2.jsonl", "--run-id", ""], "--run-id"),
    (
        "words-runid-newline",
        ["agents", "words", "random", "-o", f"{D}/w2.jsonl", "--run-id", "a\nb"],
        "--run-id",
    ),
    ("words-topk-0", ["agents", "words", "random", "-o", f"{D}/w2.jsonl", "--top-k", "0"], "--top-k"),
    ("words-bad-spec", ["agents", "words", "random:seed=abc", "-o", f"{D}/w2.jsonl"], "seed"),
    # -- probe
    ("probe-no-task", ["probe"], None),
    ("gca-nothing", ["probe", "gca"], None),
    ("gca-agent-empty", ["probe", "gca", "--agent", "", "-o", f"{D}/p"], "--agent"),
    ("gca-agent-unknown", ["probe", "gca", "--agent", "nosuch", "-o", f"{D}/p"], "nosuch"),
    ("gca-limit-0", ["probe", "gca", "--agent", "random", "--limit", "0", "-o", f"{D}/p"], "--limit"),
    ("gca-limit-neg", ["probe", "gca", "--agent", "random", "--limit", "-5", "-o", f"{D}/p"], "--limit"),
    (
        "gca-batch-0",
        ["probe", "gca", "--agent", "random", "--batch-size", "0", "-o", f"{D}/p"],
        "--batch-size",
    ),
    ("gca-replies-missing", ["probe", "gca", "--replies", f"{D}/none.jsonl", "-o", f"{D}/p"], "none.jsonl"),
    ("gca-replies-binary", ["probe", "gca", "--replies", f"{D}/bin.bin", "-o", f"{D}/p"], "bin.bin"),
    (
        "gca-runid-dotdot",
        ["probe", "gca", "--agent", "random", "--limit", "1", "-o", f"{D}/p", "--run-id", "../../escape"],
        "--run-id",
    ),
    (
        "gca-runid-abs",
        ["probe", "gca", "--agent", "random", "--limit", "1", "-o", f"{D}/p", "--run-id", "/tmp/abs"],
        "--run-id",
    ),
    (
        "gca-out-file",
        ["probe", "gca", "--agent", "random", "--limit", "1", "-o", f"{D}/existing.csv"],
        "existing.csv",
    ),
    ("gca-export-file", ["probe", "gca", "--export", f"{D}/existing.csv"], "existing.csv"),
    ("gca-condition", ["probe", "gca", "--agent", "random", "--conditions", "bogus"], "bogus"),
    ("interf-types-5", ["probe", "interference", "--agent", "random", "--types", "5"], "5"),
    (
        "interf-per-type-0",
        ["probe", "interference", "--agent", "random", "--per-type", "0", "-o", f"{D}/p"],
        "--per-type",
    ),
    (
        "interf-per-type-neg",
        ["probe", "interference", "--agent", "random", "--per-type", "-1", "-o", f"{D}/p"],
        "--per-type",
    ),
    # -- config show (the tournament's config validation, without running)
    ("config-no-action", ["config"], None),
    ("config-missing", ["config", "show", f"{D}/none.yaml"], "none.yaml"),
    ("config-unknown-bundled", ["config", "show", "defualt"], "defualt"),
    ("config-dir", ["config", "show", f"{D}/dir.csv"], "dir.csv"),
    ("config-empty", ["config", "show", f"{D}/empty.yaml"], "empty.yaml"),
    ("config-list", ["config", "show", f"{D}/list.yaml"], "list.yaml"),
    ("config-scalar", ["config", "show", f"{D}/scalar.yaml"], "scalar.yaml"),
    ("config-syntax", ["config", "show", f"{D}/bad.yaml"], "bad.yaml"),
    ("config-python-tag", ["config", "show", f"{D}/tag.yaml"], "tag.yaml"),
    ("config-custom-tag", ["config", "show", f"{D}/tag2.yaml"], "tag2.yaml"),
    ("config-alias-bomb", ["config", "show", f"{D}/bomb.yaml"], "bomb.yaml"),
    ("config-deep", ["config", "show", f"{D}/deep.yaml"], "deep.yaml"),
    ("config-unknown-key", ["config", "show", f"{D}/unknown.yaml"], "gamez"),
    ("config-nested-unknown", ["config", "show", f"{D}/nested_unknown.yaml"], "alpah"),
    ("config-wrong-type", ["config", "show", f"{D}/wrongtype.yaml"], "games"),
    ("config-neg-games", ["config", "show", f"{D}/neg.yaml"], "games"),
    ("config-nan-games", ["config", "show", f"{D}/nan.yaml"], "games"),
    ("config-inf-alpha", ["config", "show", f"{D}/inf.yaml"], "alpha"),
    ("config-float-games", ["config", "show", f"{D}/float_games.yaml"], "games"),
    ("config-bool-games", ["config", "show", f"{D}/bool_games.yaml"], "games"),
    ("config-seed-str", ["config", "show", f"{D}/seed_str.yaml"], "seed"),
    ("config-agents-list", ["config", "show", f"{D}/agents_list.yaml"], "agents"),
    ("config-agent-nospec", ["config", "show", f"{D}/agent_nospec.yaml"], "kind"),
    ("config-lineup-unknown", ["config", "show", f"{D}/lineup_unknown.yaml"], "ghost"),
    ("config-lineup-short", ["config", "show", f"{D}/lineup_short.yaml"], "lineup"),
    ("config-players-0", ["config", "show", f"{D}/players.yaml"], "num_players"),
    ("config-alpha-2", ["config", "show", f"{D}/alpha.yaml"], "alpha"),
    ("config-topk-0", ["config", "show", f"{D}/topk.yaml"], "top_k"),
    ("config-wandb-mode", ["config", "show", f"{D}/mode.yaml"], "loud"),
    ("config-cue-mode", ["config", "show", f"{D}/cue.yaml"], "telepathy"),
    ("config-dup-key", ["config", "show", f"{D}/dupkey.yaml"], "games"),
    ("config-binary", ["config", "show", f"{D}/bin.yaml"], "bin.yaml"),
    ("config-crlf-unknown", ["config", "show", f"{D}/crlf.yaml"], "gamez"),
    ("config-csv-as-yaml", ["config", "show", f"{D}/h.csv"], "h.csv"),
    ("set-noeq", ["config", "show", "--set", "games"], "games"),
    ("set-emptykey", ["config", "show", "--set", "=3"], "=3"),
    ("set-empty", ["config", "show", "--set", ""], "--set"),
    ("set-unknown", ["config", "show", "--set", "gamez=3"], "gamez"),
    ("set-unknown-nested", ["config", "show", "--set", "metrics.alpah=0.1"], "alpah"),
    ("set-deep-unknown", ["config", "show", "--set", "games.x=1"], "games"),
    ("set-games-text", ["config", "show", "--set", "games=abc"], "games"),
    ("set-games-neg", ["config", "show", "--set", "games=-1"], "games"),
    ("set-games-nan", ["config", "show", "--set", "games=nan"], "games"),
    ("set-games-huge", ["config", "show", "--set", "games=1e400"], "games"),
    ("set-tag", ["config", "show", "--set", "games=!!python/name:os.system"], "games"),
    ("set-agent-bad-spec", ["config", "show", "--set", "agents.random.spec=clip:"], "clip:"),
    ("set-agent-factory", ["config", "show", "--set", "tournament.agent_factory=os:system"], "agent_factory"),
    ("set-play-fn", ["config", "show", "--set", "tournament.play_fn=subprocess:call"], "play_fn"),
    ("set-dot-key", ["config", "show", "--set", "metrics..alpha=0.1"], None),
    (
        "guess-api-key-env",
        ["agents", "guess", "api-vlm:gpt-4o", "APPLE", "--opt", "api_key_env=HOME"],
        "api_key_env",
    ),
    ("cfg-games-flag-text", ["config", "show", "--games", "ten"], "--games"),
    ("cfg-games-flag-0", ["config", "show", "--games", "0"], "games"),
    ("cfg-games-flag-neg", ["config", "show", "--games", "-2"], "--games"),
    ("cfg-seed-flag-nan", ["config", "show", "--seed", "nan"], "--seed"),
    ("cfg-seed-flag-neg", ["config", "show", "--seed", "-1"], "--seed"),
    ("cfg-name-dotdot", ["config", "show", "--name", ".."], "--name"),
    ("cfg-name-dot", ["config", "show", "--name", "."], "--name"),
    ("cfg-name-slash", ["config", "show", "--name", "a/b"], "--name"),
    ("cfg-name-abs", ["config", "show", "--name", "/etc/x"], "--name"),
    ("cfg-name-empty", ["config", "show", "--name", ""], "--name"),
    ("cfg-name-long", ["config", "show", "--name", LONG], "--name"),
    ("cfg-name-nul", ["config", "show", "--name", "a\x00b"], "--name"),
    ("cfg-name-newline", ["config", "show", "--name", "a\nb"], "--name"),
    ("cfg-name-set-dotdot", ["config", "show", "--set", "name=../../x"], "name"),
    ("cfg-agents-empty-spec", ["config", "show", "--agents", "x="], "x="),
    ("cfg-agents-empty-name", ["config", "show", "--agents", "=random"], "=random"),
    ("cfg-agents-unknown", ["config", "show", "--agents", "x=nosuchagent"], "nosuchagent"),
    ("cfg-agents-unplayed", ["config", "show", "--agents", "mine=random"], "mine"),
    ("cfg-agents-empty", ["config", "show", "--agents", ""], "--agents"),
    ("cfg-agents-commas", ["config", "show", "--agents", ",,,"], "--agents"),
    ("cfg-device-gpu", ["config", "show", "--device", "gpu"], "gpu"),
    ("cfg-device-cuda-neg", ["config", "show", "--device", "cuda:-1"], "cuda:-1"),
    (
        "tour-humans-missing",
        ["tournament", "--games", "1", "-o", f"{D}/runs", "--humans", f"{D}/none.csv"],
        "none.csv",
    ),
    (
        "tour-humans-dir",
        ["tournament", "--games", "1", "-o", f"{D}/runs", "--humans", f"{D}/dir.csv"],
        "dir.csv",
    ),
    ("cfg-backend", ["config", "show", "--backend", "slurm"], "slurm"),
    ("cfg-num-cpus-0", ["config", "show", "--num-cpus", "0"], "--num-cpus"),
    ("cfg-num-cpus-neg", ["config", "show", "--num-cpus", "-4"], "--num-cpus"),
    (
        "tour-weights-missing",
        ["tournament", "--games", "1", "-o", f"{D}/runs", "--weights-dir", f"{D}/noweights"],
        "noweights",
    ),
    (
        "tour-weights-file",
        ["tournament", "--games", "1", "-o", f"{D}/runs", "--weights-dir", f"{D}/existing.csv"],
        "existing.csv",
    ),
    (
        "tour-out-file-2",
        ["tournament", "--games", "1", "--name", "x", "-o", f"{D}/existing.csv"],
        "existing.csv",
    ),
    ("cfg-games-and-set", ["config", "show", "--games", "2", "--set", "games=3"], "--games"),
    ("cfg-seed-and-set", ["config", "show", "--seed", "2", "--set", "seed=3"], "--seed"),
    ("cfg-name-and-set", ["config", "show", "--name", "a", "--set", "name=b"], "--name"),
    ("cfg-out-and-set", ["config", "show", "-o", "a", "--set", "output=b"], "--out"),
    ("cfg-crlf-bom-yaml", ["config", "show", f"{D}/crlf.yaml"], "gamez"),
    # -- tournament / wordlevel (must fail before any game)
    ("tour-unknown-config", ["tournament", "nosuchconfig", "-o", f"{D}/runs"], "nosuchconfig"),
    ("tour-set-unknown", ["tournament", "--set", "gamez=1", "-o", f"{D}/runs"], "gamez"),
    ("tour-set-noeq", ["tournament", "--set", "games", "-o", f"{D}/runs"], "games"),
    ("tour-games-0", ["tournament", "--games", "0", "-o", f"{D}/runs"], "games"),
    ("tour-name-dotdot", ["tournament", "--name", "..", "-o", f"{D}/runs"], "--name"),
    ("tour-name-abs", ["tournament", "--name", f"{D}/abs", "-o", f"{D}/runs"], "--name"),
    (
        "tour-agent-unplayed",
        ["tournament", "--agents", "x=random:foo=bar", "--games", "1", "-o", f"{D}/runs"],
        "x=",
    ),
    (
        "tour-agent-kwarg",
        ["tournament", "--agents", "random=random:foo=bar", "--games", "1", "-o", f"{D}/runs"],
        "foo",
    ),
    ("tour-bad-agent", ["tournament", "--agents", "x=clip:", "--games", "1", "-o", f"{D}/runs"], "clip:"),
    (
        "tour-sweep-unknown",
        ["tournament", "--agents", "random,nosuch", "--games", "1", "-o", f"{D}/runs"],
        "nosuch",
    ),
    ("tour-out-file", ["tournament", "--games", "1", "-o", f"{D}/existing.csv"], "existing.csv"),
    ("tour-out-under-file", ["tournament", "--games", "1", "-o", f"{D}/notadir/runs"], "notadir"),
    ("tour-wandb-bogus", ["tournament", "--wandb", "loud", "-o", f"{D}/runs"], "loud"),
    ("tour-backend", ["tournament", "--backend", "slurm"], "slurm"),
    (
        "tour-humans-binary",
        ["tournament", "--humans", f"{D}/bin.bin", "--games", "1", "-o", f"{D}/runs"],
        "bin.bin",
    ),
    (
        "tour-humans-badcols",
        ["tournament", "--humans", f"{D}/missing_col.csv", "--games", "1", "-o", f"{D}/runs"],
        "missing_col.csv",
    ),
    (
        "tour-factory",
        ["tournament", "--set", "tournament.agent_factory=os:system", "--games", "1", "-o", f"{D}/runs"],
        "agent_factory",
    ),
    ("tour-config-bomb", ["tournament", f"{D}/bomb.yaml", "-o", f"{D}/runs"], "bomb.yaml"),
    ("tour-list-and-config", ["tournament", "--list-configs", "nosuch"], None),
    ("wl-unknown-config", ["wordlevel", "nosuchconfig", "-o", f"{D}/runs"], "nosuchconfig"),
    ("wl-sweep-plain", ["wordlevel", "--agents", "random,text-embedding", "-o", f"{D}/runs"], "--agents"),
    ("wl-name-slash", ["wordlevel", "--name", "a/../../b", "-o", f"{D}/runs"], "--name"),
    # -- leaderboard
    ("lb-missing", ["leaderboard", f"{D}/norun"], "norun"),
    ("lb-file", ["leaderboard", f"{D}/runfile"], "runfile"),
    ("lb-not-a-run", ["leaderboard", f"{D}/run"], "run"),
    ("lb-empty-dir", ["leaderboard", f"{D}/dir.csv"], "dir.csv"),
    ("lb-seed-text", ["leaderboard", f"{D}/run", "--seed", "x"], "--seed"),
    ("lb-no-runs", ["leaderboard"], None),
    # -- replay
    ("replay-missing", ["replay", f"{D}/none.jsonl", "--list"], "none.jsonl"),
    ("replay-dir", ["replay", f"{D}/dir.jsonl", "--list"], "dir.jsonl"),
    ("replay-empty", ["replay", f"{D}/empty.jsonl", "--list"], "empty.jsonl"),
    ("replay-trunc", ["replay", f"{D}/trunc.jsonl", "--list"], "trunc.jsonl"),
    ("replay-binary", ["replay", f"{D}/bin.bin", "--list"], "bin.bin"),
    ("replay-no-games", ["replay", f"{D}/w.jsonl", "-o", f"{D}/r.gif"], "w.jsonl"),
    ("replay-v99", ["replay", f"{D}/v99.jsonl", "--list"], "v99.jsonl"),
    ("replay-game-text", ["replay", f"{D}/w.jsonl", "--game", "x"], "--game"),
    ("replay-fps-0", ["replay", f"{D}/w.jsonl", "--fps", "0", "-o", f"{D}/r.gif"], "--fps"),
    ("replay-fps-neg", ["replay", f"{D}/w.jsonl", "--fps", "-5", "-o", f"{D}/r.gif"], "--fps"),
    ("replay-fps-nan", ["replay", f"{D}/w.jsonl", "--fps", "nan", "-o", f"{D}/r.gif"], "--fps"),
    ("replay-reveal", ["replay", f"{D}/w.jsonl", "--reveal-target", "never"], "never"),
    ("replay-list-and-game", ["replay", f"{D}/g.jsonl", "--list", "--game", "0"], "--list"),
    ("replay-list-and-out", ["replay", f"{D}/g.jsonl", "--list", "-o", f"{D}/r.gif"], "--list"),
    ("replay-game-absent", ["replay", f"{D}/g.jsonl", "--game", "999", "-o", f"{D}/r.gif"], "999"),
    ("replay-game-neg", ["replay", f"{D}/g.jsonl", "--game", "-1", "-o", f"{D}/r.gif"], "-1"),
    ("replay-out-txt", ["replay", f"{D}/g.jsonl", "-o", f"{D}/r.txt"], "r.txt"),
    ("replay-out-existing-file", ["replay", f"{D}/g.jsonl", "-o", f"{D}/existing.csv"], "existing.csv"),
    # -- more paths and names
    ("humans-path-empty", ["humans", "summary", "--humans", ""], "--humans"),
    ("humans-path-nul", ["humans", "summary", "--humans", f"{D}/h\x00.csv"], None),
    ("metrics-log-dash", ["metrics", "-", "-o", f"{D}/m"], None),
    (
        "metrics-humans-empty",
        ["metrics", f"{D}/w.jsonl", "-o", f"{D}/m", "--humans", f"{D}/empty.csv"],
        "empty.csv",
    ),
    ("lb-same-run-twice", ["leaderboard", f"{D}/run", f"{D}/run"], "run"),
    ("lb-out-bad-ext", ["leaderboard", f"{D}/run", "-o", f"{D}/lb.docx"], None),
    ("cfg-set-huge-value", ["config", "show", "--set", "name=" + "n" * 100000], "name"),
    ("cfg-set-unicode-key", ["config", "show", "--set", "gämes=3"], "gämes"),
    ("cfg-name-unicode-slash", ["config", "show", "--name", "a\u2215..\u2215b\\c"], "--name"),
    ("guess-opt-json-bad", ["agents", "guess", "random", "APPLE", "--opt", "seed={"], "seed"),
    ("words-runid-dotdot", ["agents", "words", "random", "-o", f"{D}/w3.jsonl", "--run-id", "../x"], None),
    # -- collect
    ("collect-no-action", ["collect"], None),
    ("export-db-missing", ["collect", "export", "--db", f"{D}/none.db", "-o", f"{D}/e.csv"], "none.db"),
    ("export-db-binary", ["collect", "export", "--db", f"{D}/bin.bin", "-o", f"{D}/e.csv"], "bin.bin"),
    ("export-db-empty", ["collect", "export", "--db", f"{D}/empty.csv", "-o", f"{D}/e.csv"], "empty.csv"),
    ("export-db-text", ["collect", "export", "--db", f"{D}/h.csv", "-o", f"{D}/e.csv"], "h.csv"),
    ("export-db-dir", ["collect", "export", "--db", f"{D}/dir.csv", "-o", f"{D}/e.csv"], "dir.csv"),
    (
        "export-same",
        ["collect", "export", "--db", f"{D}/existing.csv", "-o", f"{D}/existing.csv"],
        "existing.csv",
    ),
    ("export-bad-ext", ["collect", "export", "--db", f"{D}/none.db", "-o", f"{D}/e.txt"], None),
    (
        "export-task",
        ["collect", "export", "--db", f"{D}/none.db", "-o", f"{D}/e.csv", "--task", "x"],
        "--task",
    ),
    ("serve-port-huge", ["collect", "serve", "--port", "99999", "--db", f"{D}/s.db"], "--port"),
    ("serve-port-neg", ["collect", "serve", "--port", "-1", "--db", f"{D}/s.db"], "--port"),
    ("serve-port-text", ["collect", "serve", "--port", "http", "--db", f"{D}/s.db"], "--port"),
    (
        "serve-gca-trials-0",
        ["collect", "serve", "--task", "gca", "--gca-trials", "0", "--db", f"{D}/s.db"],
        "--gca-trials",
    ),
    (
        "serve-words-0",
        ["collect", "serve", "--words-per-participant", "0", "--db", f"{D}/s.db"],
        "--words-per-participant",
    ),
    (
        "serve-vocab-missing",
        ["collect", "serve", "--vocabulary", f"{D}/novocab", "--db", f"{D}/s.db"],
        "novocab",
    ),
    (
        "serve-vocab-binary",
        ["collect", "serve", "--vocabulary", f"{D}/bin.bin", "--db", f"{D}/s.db"],
        "bin.bin",
    ),
    ("serve-db-dir", ["collect", "serve", "--db", f"{D}/dir.csv"], "dir.csv"),
    ("serve-db-binary", ["collect", "serve", "--pilot", "--db", f"{D}/bin.bin"], "bin.bin"),
    ("serve-languages", ["collect", "serve", "--pilot", "--languages", "", "--db", f"{D}/s.db"], "languages"),
    ("serve-host-empty", ["collect", "serve", "--host", "", "--db", f"{D}/s.db"], "--host"),
    (
        "serve-attention-beyond",
        ["collect", "serve", "--task", "gca", "--gca-attention", "5,999", "--db", f"{D}/s.db"],
        "999",
    ),
    (
        "serve-attention-text",
        ["collect", "serve", "--gca-attention", "5,x", "--db", f"{D}/s.db"],
        "--gca-attention",
    ),
    ("serve-port-zero", ["collect", "serve", "--port", "0", "--db", f"{D}/s.db"], "--port"),
    # -- train (must fail before any training)
    ("tour-train-config", ["tournament", "learned_guesser", "-o", f"{D}/runs"], "train experiment"),
    ("cfg-train-config", ["config", "show", "selfplay"], "train experiment"),
    ("train-exp-tournament-config", ["train", "experiment", "default"], "default.yaml"),
    ("train-no-what", ["train"], None),
    ("train-steps-0", ["train", "guesser", "--fast", "--steps", "0", "-o", f"{D}/t"], "--steps"),
    ("train-steps-neg", ["train", "guesser", "--fast", "--steps", "-10", "-o", f"{D}/t"], "--steps"),
    ("train-steps-text", ["train", "guesser", "--steps", "many"], "--steps"),
    (
        "train-budget-neg",
        ["train", "guesser", "--fast", "--time-budget", "-1", "-o", f"{D}/t"],
        "--time-budget",
    ),
    (
        "train-budget-nan",
        ["train", "guesser", "--fast", "--time-budget", "nan", "-o", f"{D}/t"],
        "--time-budget",
    ),
    ("train-threads-0", ["train", "guesser", "--fast", "--threads", "0", "-o", f"{D}/t"], "--threads"),
    ("train-envs-0", ["train", "guesser", "--fast", "--num-envs", "0", "-o", f"{D}/t"], "--num-envs"),
    ("train-set-unknown", ["train", "guesser", "--fast", "--set", "lernrate=1", "-o", f"{D}/t"], "lernrate"),
    ("train-set-noeq", ["train", "guesser", "--fast", "--set", "lr", "-o", f"{D}/t"], "lr"),
    (
        "train-out-file",
        ["train", "guesser", "--fast", "--steps", "64", "-o", f"{D}/existing.csv"],
        "existing.csv",
    ),
    ("train-device", ["train", "guesser", "--fast", "--device", "gpu", "-o", f"{D}/t"], "gpu"),
    ("train-tracker", ["train", "guesser", "--tracker", "mlflow"], "mlflow"),
    ("train-opponents", ["train", "guesser", "--opponents", "nosuch", "-o", f"{D}/t"], "nosuch"),
    ("train-exp-missing", ["train", "experiment", f"{D}/none.yaml"], "none.yaml"),
    ("train-exp-unknown-key", ["train", "experiment", f"{D}/unknown.yaml"], "gamez"),
    # -- play (must fail before a window opens)
    ("play-seat-neg", ["play", "--seat", "-1"], "--seat"),
    ("play-seat-9", ["play", "--seat", "9"], "--seat"),
    ("play-agents-bad", ["play", "--agents", "clip:"], "clip:"),
    ("play-delay-neg", ["play", "--delay", "-1"], "--delay"),
    ("play-delay-nan", ["play", "--delay", "nan"], "--delay"),
    ("play-log-dir", ["play", "--log", f"{D}/dir.jsonl"], "dir.jsonl"),
    ("play-log-v99", ["play", "--log", f"{D}/v99.jsonl"], "v99.jsonl"),
    ("play-cue-mode", ["play", "--cue-mode", "mime"], "mime"),
    ("play-device", ["play", "--device", "gpu"], "gpu"),
]


@pytest.mark.parametrize(("argv", "expect"), [pytest.param(a, e, id=i) for i, a, e in CASES])
def test_hostile_input(files, argv, expect, capsys, monkeypatch):
    argv = [a.replace(D, str(files)) for a in argv]
    monkeypatch.chdir(files)
    before = _snapshot(files)
    try:
        code = main(argv)
    except _Started:
        pytest.fail("silently accepted: the bad input started real work")
    except SystemExit as exit_:  # pragma: no cover - main() must not exit itself
        pytest.fail(f"main() raised SystemExit({exit_.code}) instead of returning")
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    assert code == 2, f"exit {code} (expected 2, a user error); stderr: {err[-400:]!r}"
    last = err.rstrip("\n").splitlines()[-1] if err.strip() else ""
    assert last.startswith("huesenv"), f"stderr's last line is not the error line: {err[-400:]!r}"
    assert "internal error" not in last
    if expect is not None:
        assert expect.lower() in last.lower(), f"the message does not name {expect!r}: {last!r}"
    after = _snapshot(files)
    changed = [k for k in before if before[k] != after.get(k)]
    assert not changed, f"files changed or lost by a failing command: {changed}"
    # nothing new left behind that blocks the next start (a run folder, a partial output)
    for new in set(after) - set(before):
        path = files / new
        if path.exists():
            path.unlink()
    for leftover in ("runs", "m", "p", "t"):
        shutil.rmtree(files / leftover, ignore_errors=True)


GOOD: list[tuple[str, list[str]]] = [
    ("humans-bom", ["humans", "summary", "--humans", f"{D}/bom.csv", "--format", "csv"]),
    ("humans-crlf", ["humans", "summary", "--humans", f"{D}/crlf.csv", "--format", "csv"]),
    ("humans-extra-col", ["humans", "summary", "--humans", f"{D}/extra_col.csv", "--format", "csv"]),
    ("check-log", ["logs", "check", f"{D}/w.jsonl"]),
    ("config-default", ["config", "show"]),
    ("config-set-repeated", ["config", "show", "--set", "games=2", "--set", "games=3"]),
    ("config-agents-replace", ["config", "show", "--agents", "random=random"]),
    ("guess-device-cpu", ["agents", "guess", "random", "APPLE", "--device", "cpu"]),
    ("guess-unicode-word", ["agents", "guess", "random", "ÁRBOL 🌳"]),
]


@pytest.mark.parametrize("argv", [pytest.param(a, id=i) for i, a in GOOD])
def test_positive_controls(files, argv, capsys, monkeypatch):
    """Careful inputs that look odd but are fine still work (the battery does not pass by refusing all)."""
    monkeypatch.chdir(files)
    assert main([a.replace(D, str(files)) for a in argv]) == 0, capsys.readouterr().err


@pytest.mark.integration
def test_failed_start_leaves_nothing_that_blocks_the_next(tmp_path, capsys):
    """A start refused for a bad agent spec, then the corrected command in the same folder, runs."""
    common = ["tournament", "--games", "1", "--no-wordlevel", "--no-progress", "-o", str(tmp_path)]
    assert main([*common, "--agents", "random=random:nosuchkwarg=1", "--name", "r"]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert main([*common, "--name", "r"]) == 0, capsys.readouterr().err


def test_battery_size():
    assert len(CASES) >= 140
    assert len({c[0] for c in CASES}) == len(CASES)
    assert os.name  # keep the os import honest
