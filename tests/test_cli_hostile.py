"""Hostile input for every subcommand: each case must end with ONE error line, a non-zero exit, no traceback.

The commands run in-process through ``huesenv.cli.main`` (fast); a few run as a
subprocess too (marked ``integration``) to check what a user's terminal shows.
``{name}`` in an argument is replaced by a prepared file or folder (see ``files``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from huesenv.cli import main
from huesenv.logs import SCHEMA_VERSION

DATA = Path(__file__).parent / "data"
GOOD_LOG = DATA / "v1_games.jsonl"

CASES: list[tuple[str, list[str]]] = [
    # -- the program itself
    ("no command", []),
    ("unknown command", ["nosuchcommand"]),
    ("unknown flag", ["board", "--bogus"]),
    # -- board
    ("board nothing to do", ["board"]),
    ("board bad extension", ["board", "--export", "{tmp}/b.txt"]),
    ("board export to a folder", ["board", "-o", "{dir}"]),
    ("board plot bad extension", ["board", "--plot", "{tmp}/b.jpg"]),
    ("board plot to a folder", ["board", "--plot", "{dir}"]),
    ("board displays no out", ["board", "displays"]),
    ("board displays unknown profile", ["board", "displays", "--profiles", "nope", "-o", "{tmp}/d"]),
    (
        "board displays missing file",
        ["board", "displays", "--measurements", "{tmp}/missing.csv", "-o", "{tmp}/d"],
    ),
    ("board displays binary", ["board", "displays", "--measurements", "{bin}", "-o", "{tmp}/d"]),
    ("board displays bad sample", ["board", "displays", "--sample", "Z99", "-o", "{tmp}/d"]),
    # -- humans
    ("humans no action", ["humans"]),
    ("humans missing file", ["humans", "summary", "--humans", "{tmp}/missing.csv"]),
    ("humans folder", ["humans", "summary", "--humans", "{dir}"]),
    ("humans binary", ["humans", "summary", "--humans", "{bin}"]),
    ("humans empty", ["humans", "summary", "--humans", "{empty}"]),
    ("humans not a table", ["humans", "summary", "--humans", "{yaml}"]),
    ("humans alpha 0", ["humans", "summary", "--alpha", "0"]),
    ("humans alpha 2", ["humans", "summary", "--alpha", "2"]),
    ("humans alpha nan", ["humans", "summary", "--alpha", "nan"]),
    ("humans alpha text", ["humans", "summary", "--alpha", "x"]),
    ("humans bad format", ["humans", "summary", "--format", "xml"]),
    ("humans binary named csv", ["humans", "summary", "--humans", "{bincsv}"]),
    ("humans vocabulary binary", ["humans", "summary", "--vocabulary", "{bincsv}"]),
    ("humans filters leave nothing", ["humans", "summary", "--language", "klingon"]),
    ("humans vocabulary missing", ["humans", "summary", "--vocabulary", "{tmp}/none.csv"]),
    ("reconstruct negative seed", ["humans", "reconstruct", "--seed", "-1"]),
    ("reconstruct text seed", ["humans", "reconstruct", "--seed", "x"]),
    ("reconstruct huge seed", ["humans", "reconstruct", "--seed", "99999999999999"]),
    ("reconstruct to a folder", ["humans", "reconstruct", "-o", "{dir}"]),
    # -- logs
    ("logs no action", ["logs"]),
    ("import missing csv", ["logs", "import-answers", "{tmp}/no.csv", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import folder csv", ["logs", "import-answers", "{dir}", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import binary csv", ["logs", "import-answers", "{bin}", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import empty csv", ["logs", "import-answers", "{empty}", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import bad header", ["logs", "import-answers", "{badheader}", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import unknown word", ["logs", "import-answers", "{badword}", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import long row", ["logs", "import-answers", "{longrow}", "--agent", "a", "-o", "{tmp}/o.jsonl"]),
    ("import no agent", ["logs", "import-answers", "{csv}", "-o", "{tmp}/o.jsonl"]),
    ("import empty agent", ["logs", "import-answers", "{csv}", "--agent", " ", "-o", "{tmp}/o.jsonl"]),
    ("import no output", ["logs", "import-answers", "{csv}", "--agent", "a"]),
    ("import output folder", ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{dir}"]),
    ("import corrupt log", ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{corrupt}"]),
    ("import v1 log", ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{v1}"]),
    ("import binary log", ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{bin}"]),
    ("import onto itself", ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{csv}"]),
    (
        "import run id ..",
        ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{tmp}/o.jsonl", "--run-id", ".."],
    ),
    (
        "import run id path",
        ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{tmp}/o.jsonl", "--run-id", "a/b"],
    ),
    (
        "import seed text",
        ["logs", "import-answers", "{csv}", "--agent", "a", "-o", "{tmp}/o.jsonl", "--seed", "x"],
    ),
    ("to-parquet missing", ["logs", "to-parquet", "{tmp}/no.jsonl", "-o", "{tmp}/o.parquet"]),
    ("to-parquet bad out ext", ["logs", "to-parquet", "{log}", "-o", "{tmp}/o.csv"]),
    ("to-parquet out folder", ["logs", "to-parquet", "{log}", "-o", "{dir}"]),
    ("to-parquet binary", ["logs", "to-parquet", "{bin}", "-o", "{tmp}/o.parquet"]),
    ("to-parquet corrupt", ["logs", "to-parquet", "{corrupt}", "-o", "{tmp}/o.parquet"]),
    ("to-parquet no out", ["logs", "to-parquet", "{log}"]),
    ("to-parquet one log twice", ["logs", "to-parquet", "{log}", "{log}", "-o", "{tmp}/o.parquet"]),
    ("check missing", ["logs", "check", "{tmp}/no.jsonl"]),
    ("check folder", ["logs", "check", "{dir}"]),
    ("check binary", ["logs", "check", "{bin}"]),
    ("check corrupt", ["logs", "check", "{corrupt}"]),
    ("check bad json", ["logs", "check", "{badjson}"]),
    ("check deep json", ["logs", "check", "{deepjson}"]),
    ("check json array", ["logs", "check", "{jsonarray}"]),
    ("check fake parquet", ["logs", "check", "{fakeparquet}"]),
    ("check string valid", ["logs", "check", "{stringvalid}"]),
    ("check future version", ["logs", "check", "{v3}"]),
    # -- metrics
    ("metrics no logs", ["metrics", "-o", "{tmp}/m"]),
    ("metrics missing log", ["metrics", "{tmp}/no.jsonl", "-o", "{tmp}/m"]),
    ("metrics no out", ["metrics", "{log}"]),
    ("metrics alpha", ["metrics", "{log}", "-o", "{tmp}/m", "--alpha", "1.5"]),
    ("metrics one log twice", ["metrics", "{wordlog}", "{wordlog}", "-o", "{tmp}/m", "--no-plots"]),
    ("metrics top-k 0", ["metrics", "{log}", "-o", "{tmp}/m", "--top-k", "0"]),
    ("metrics top-k text", ["metrics", "{log}", "-o", "{tmp}/m", "--top-k", "x"]),
    ("metrics humans missing", ["metrics", "{log}", "-o", "{tmp}/m", "--humans", "{tmp}/none.csv"]),
    ("metrics folder log", ["metrics", "{dir}", "-o", "{tmp}/m"]),
    ("metrics binary log", ["metrics", "{bin}", "-o", "{tmp}/m"]),
    ("metrics corrupt log", ["metrics", "{corrupt}", "-o", "{tmp}/m"]),
    ("metrics out is a file", ["metrics", "{log}", "-o", "{csv}"]),
    ("metrics empty log", ["metrics", "{empty}", "-o", "{tmp}/m"]),
    # -- agents
    ("agents no action", ["agents"]),
    ("guess no spec", ["agents", "guess"]),
    ("guess unknown agent", ["agents", "guess", "nosuchagent", "BANANA"]),
    ("guess empty spec", ["agents", "guess", "", "BANANA"]),
    ("guess spec colon", ["agents", "guess", "random:", "BANANA"]),
    ("guess no word", ["agents", "guess", "random"]),
    ("guess empty word", ["agents", "guess", "random", " "]),
    ("guess top-k above the board", ["agents", "guess", "random", "BANANA", "--top-k", "1000"]),
    ("metrics top-k above the board", ["metrics", "{log}", "-o", "{tmp}/m", "--top-k", "481"]),
    # -- metrics on game logs (a game log is scored; a broken one is refused, never mis-counted)
    ("metrics game log twice in one file", ["metrics", "{gametwice}", "-o", "{tmp}/m", "--no-plots"]),
    ("metrics game log null game", ["metrics", "{gamenull}", "-o", "{tmp}/m", "--no-plots"]),
    ("metrics game log no game", ["metrics", "{gamenogame}", "-o", "{tmp}/m", "--no-plots"]),
    ("metrics game log unit_pos past size", ["metrics", "{gameoverflow}", "-o", "{tmp}/m", "--no-plots"]),
    ("metrics game log null unit_size", ["metrics", "{gamenosize}", "-o", "{tmp}/m", "--no-plots"]),
    ("metrics game log humans a string", ["metrics", "{gamerun}", "-o", "{tmp}/m", "--no-plots"]),
    ("guess top-k 0", ["agents", "guess", "random", "BANANA", "--top-k", "0"]),
    ("guess top-k negative", ["agents", "guess", "random", "BANANA", "--top-k", "-5"]),
    ("guess seed negative", ["agents", "guess", "random", "BANANA", "--seed", "-1"]),
    ("guess opt without =", ["agents", "guess", "random", "BANANA", "--opt", "noequals"]),
    ("guess opt twice", ["agents", "guess", "random", "BANANA", "--opt", "a=1", "--opt", "a=2"]),
    ("guess unknown option", ["agents", "guess", "random", "BANANA", "--opt", "bogus=1"]),
    ("words unknown agent", ["agents", "words", "nosuchagent"]),
    ("words out folder", ["agents", "words", "random", "-o", "{dir}"]),
    ("words corrupt log", ["agents", "words", "random", "-o", "{corrupt}"]),
    ("words log named .csv", ["agents", "words", "random", "-o", "{tmp}/results.csv"]),
    ("words batch 0", ["agents", "words", "random", "--batch-size", "0"]),
    ("words run id ..", ["agents", "words", "random", "--run-id", ".."]),
    # -- probe
    ("probe no task", ["probe"]),
    ("probe gca nothing", ["probe", "gca"]),
    ("probe interference nothing", ["probe", "interference"]),
    ("probe unknown agent", ["probe", "gca", "--agent", "nosuchagent", "-o", "{tmp}/p"]),
    ("probe limit 0", ["probe", "gca", "--agent", "random", "--limit", "0", "-o", "{tmp}/p"]),
    ("probe limit negative", ["probe", "gca", "--agent", "random", "--limit", "-1", "-o", "{tmp}/p"]),
    ("probe batch 0", ["probe", "gca", "--agent", "random", "--batch-size", "0", "-o", "{tmp}/p"]),
    ("probe seed negative", ["probe", "gca", "--agent", "random", "--seed", "-1", "-o", "{tmp}/p"]),
    ("probe run id escapes", ["probe", "gca", "--agent", "random", "--run-id", "../../x", "-o", "{tmp}/p"]),
    ("probe run id .", ["probe", "gca", "--agent", "random", "--run-id", ".", "-o", "{tmp}/p"]),
    ("probe run id ..", ["probe", "gca", "--agent", "random", "--run-id", "..", "-o", "{tmp}/p"]),
    ("probe export onto a file", ["probe", "gca", "--export", "{csv}"]),
    ("probe out is a file", ["probe", "gca", "--agent", "random", "-o", "{csv}"]),
    (
        "probe data dir missing",
        ["probe", "gca", "--agent", "random", "--data-dir", "{tmp}/none", "-o", "{tmp}/p"],
    ),
    ("probe per-type 0", ["probe", "interference", "--export", "{tmp}/e", "--per-type", "0"]),
    ("probe bad type", ["probe", "interference", "--export", "{tmp}/e", "--types", "7"]),
    ("probe bad subset", ["probe", "interference", "--export", "{tmp}/e", "--subsets", "bogus"]),
    ("probe bad condition", ["probe", "gca", "--export", "{tmp}/e", "--conditions", "bogus"]),
    ("probe corrupt log", ["probe", "gca", "--agent", "random", "-o", "{corruptdir}"]),
    # -- tournament (every case writes under {tmp})
    ("tournament misspelt key", ["tournament", "-o", "{tmp}/r", "--set", "gamez=3"]),
    ("tournament misspelt nested", ["tournament", "-o", "{tmp}/r", "--set", "metrics.alpah=0.1"]),
    ("tournament games negative", ["tournament", "-o", "{tmp}/r", "--set", "games=-1"]),
    ("tournament games text", ["tournament", "-o", "{tmp}/r", "--set", "games=x"]),
    ("tournament games float", ["tournament", "-o", "{tmp}/r", "--set", "games=1.5"]),
    ("tournament one player", ["tournament", "-o", "{tmp}/r", "--set", "num_players=1"]),
    ("tournament name ..", ["tournament", "-o", "{tmp}/r", "--set", "name=.."]),
    ("tournament name .", ["tournament", "-o", "{tmp}/r", "--set", "name=."]),
    ("tournament name path", ["tournament", "-o", "{tmp}/r", "--set", "name=a/b"]),
    ("tournament --name ..", ["tournament", "-o", "{tmp}/r", "--name", ".."]),
    ("tournament --name escapes", ["tournament", "-o", "{tmp}/r", "--name", "../x"]),
    (
        "tournament code factory",
        ["tournament", "-o", "{tmp}/r", "--set", "tournament.agent_factory=os:system"],
    ),
    ("tournament code play_fn", ["tournament", "-o", "{tmp}/r", "--set", "tournament.play_fn=os:system"]),
    (
        "tournament unknown factory",
        ["tournament", "-o", "{tmp}/r", "--set", "tournament.agent_factory=nosuch"],
    ),
    ("tournament allow_code set", ["tournament", "-o", "{tmp}/r", "--set", "allow_code=true"]),
    ("tournament allow_code file", ["tournament", "{allowcode}", "-o", "{tmp}/r"]),
    ("tournament games flag negative", ["tournament", "-o", "{tmp}/r", "--games", "-3"]),
    ("tournament games flag text", ["tournament", "-o", "{tmp}/r", "--games", "x"]),
    ("tournament seed negative", ["tournament", "-o", "{tmp}/r", "--seed", "-1"]),
    ("tournament num-cpus 0", ["tournament", "-o", "{tmp}/r", "--num-cpus", "0"]),
    ("tournament unknown agent kind", ["tournament", "-o", "{tmp}/r", "--set", "agents.random.spec=nosuch"]),
    ("tournament --agents no =", ["tournament", "-o", "{tmp}/r", "--agents", "x"]),
    ("tournament --agents bad kind", ["tournament", "-o", "{tmp}/r", "--agents", "x=nosuchkind"]),
    ("tournament bad yaml", ["tournament", "{badyaml}", "-o", "{tmp}/r"]),
    ("tournament unknown key in file", ["tournament", "{unknownkey}", "-o", "{tmp}/r"]),
    ("tournament config folder", ["tournament", "{dir}", "-o", "{tmp}/r"]),
    ("tournament binary config", ["tournament", "{bin}", "-o", "{tmp}/r"]),
    ("tournament empty config", ["tournament", "{empty}", "-o", "{tmp}/r"]),
    ("tournament list config", ["tournament", "{yamllist}", "-o", "{tmp}/r"]),
    ("tournament missing config", ["tournament", "nosuchconfig", "-o", "{tmp}/r"]),
    ("tournament wandb mode", ["tournament", "-o", "{tmp}/r", "--set", "wandb.mode=bogus"]),
    ("tournament backend", ["tournament", "-o", "{tmp}/r", "--set", "backend.name=bogus"]),
    ("tournament cue mode", ["tournament", "-o", "{tmp}/r", "--set", "cue_mode=bogus"]),
    ("tournament rotate", ["tournament", "-o", "{tmp}/r", "--set", "rotate_seats=maybe"]),
    ("tournament alpha", ["tournament", "-o", "{tmp}/r", "--set", "metrics.alpha=2"]),
    ("tournament report format", ["tournament", "-o", "{tmp}/r", "--set", "report.formats=[pdf]"]),
    ("tournament lineup index", ["tournament", "-o", "{tmp}/r", "--set", "lineups.0.9=random"]),
    ("tournament lineup agent", ["tournament", "-o", "{tmp}/r", "--set", "lineups.0.0=nobody"]),
    ("tournament override no =", ["tournament", "-o", "{tmp}/r", "--set", "games"]),
    ("tournament override empty key", ["tournament", "-o", "{tmp}/r", "--set", "=3"]),
    ("tournament override empty part", ["tournament", "-o", "{tmp}/r", "--set", "a..b=1"]),
    ("tournament override bad yaml", ["tournament", "-o", "{tmp}/r", "--set", "games=[1"]),
    ("tournament wordlevel agent", ["tournament", "-o", "{tmp}/r", "--set", "wordlevel.agents=[nobody]"]),
    ("tournament agent gpu", ["tournament", "-o", "{tmp}/r", "--set", "agents.random.gpu=maybe"]),
    ("tournament agent unknown key", ["tournament", "-o", "{tmp}/r", "--set", "agents.random.sepc=random"]),
    ("tournament seed float", ["tournament", "-o", "{tmp}/r", "--set", "seed=1.5"]),
    ("tournament wandb flag", ["tournament", "-o", "{tmp}/r", "--wandb", "bogus"]),
    ("tournament backend flag", ["tournament", "-o", "{tmp}/r", "--backend", "bogus"]),
    ("tournament humans missing", ["tournament", "-o", "{tmp}/r", "--humans", "{tmp}/none.csv"]),
    ("tournament humans folder", ["tournament", "-o", "{tmp}/r", "--set", "humans.path={dir}"]),
    ("tournament batch 0", ["tournament", "-o", "{tmp}/r", "--set", "tournament.batch_size=0"]),
    # -- wordlevel
    ("wordlevel misspelt", ["wordlevel", "-o", "{tmp}/r", "--set", "wordlevel.topk=3"]),
    ("wordlevel missing config", ["wordlevel", "nosuchconfig", "-o", "{tmp}/r"]),
    ("wordlevel top_k 0", ["wordlevel", "-o", "{tmp}/r", "--set", "wordlevel.top_k=0"]),
    ("wordlevel name ..", ["wordlevel", "-o", "{tmp}/r", "--name", ".."]),
    # -- config
    ("config no action", ["config"]),
    ("config show misspelt", ["config", "show", "--set", "gamez=3"]),
    ("config show missing", ["config", "show", "nosuchconfig"]),
    ("config show bad yaml", ["config", "show", "{badyaml}"]),
    ("config show binary", ["config", "show", "{bin}"]),
    ("config show code", ["config", "show", "--set", "tournament.agent_factory=os:system"]),
    ("config show name ..", ["config", "show", "--set", "name=.."]),
    ("config show nested typo", ["config", "show", "--set", "wandb.projcet=x"]),
    # -- replay
    ("replay no log", ["replay"]),
    ("replay missing", ["replay", "{tmp}/no.jsonl"]),
    ("replay folder", ["replay", "{dir}"]),
    ("replay binary", ["replay", "{bin}"]),
    ("replay corrupt", ["replay", "{corrupt}"]),
    ("replay no games", ["replay", "{wordlog}"]),
    ("replay unknown game", ["replay", "{log}", "--game", "99", "-o", "{tmp}/f"]),
    ("replay fps 0", ["replay", "{log}", "--fps", "0"]),
    ("replay fps negative", ["replay", "{log}", "--fps", "-1"]),
    ("replay fps text", ["replay", "{log}", "--fps", "x"]),
    ("replay game text", ["replay", "{log}", "--game", "x"]),
    # -- play (all fail before a window opens)
    ("play too few", ["play", "--agents", "random"]),
    ("play unknown agent", ["play", "--agents", "nosuch,random"]),
    ("play seed negative", ["play", "--seed", "-1"]),
    ("play delay negative", ["play", "--delay", "-1"]),
    ("play cue mode", ["play", "--cue-mode", "bogus"]),
    ("play seat out of range", ["play", "--seat", "9"]),
    ("play seat text", ["play", "--seat", "x"]),
    ("play seat negative", ["play", "--seat", "-1"]),
    ("play log folder", ["play", "--log", "{dir}"]),
    ("play log named .parquet", ["play", "--log", "{tmp}/x.parquet"]),
    ("play corrupt log", ["play", "--log", "{corrupt}"]),
    # -- collect (the CLI layer's own checks; the server's flags are the collect app's)
    ("collect no action", ["collect"]),
    ("collect export missing db", ["collect", "export", "--db", "{tmp}/none.sqlite3", "-o", "{tmp}/x.csv"]),
    (
        "collect export task",
        ["collect", "export", "--db", "{tmp}/x.sqlite3", "-o", "{tmp}/x.csv", "--task", "bogus"],
    ),
    ("collect export no out", ["collect", "export", "--db", "{tmp}/x.sqlite3"]),
    ("collect serve port text", ["collect", "serve", "--port", "x"]),
    # -- train heldout (the evaluation protocol, issue 22)
    ("train heldout one fold", ["train", "heldout", "--folds", "1", "-o", "{tmp}/h"]),
    ("train heldout missing humans", ["train", "heldout", "--humans", "{tmp}/none.csv", "-o", "{tmp}/h"]),
    ("train heldout bad encoder", ["train", "heldout", "--text-encoder", "hash:x", "-o", "{tmp}/h"]),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    """The prepared inputs a case's ``{name}`` placeholders stand for (shared: no case may change them)."""
    t = tmp_path_factory.mktemp("inputs")
    (t / "folder").mkdir()
    (t / "binary.bin").write_bytes(bytes(range(256)) * 8)
    (t / "empty.txt").write_bytes(b"")
    (t / "binary.csv").write_bytes(b"userId,word\n" + bytes(range(128, 256)) * 4)
    (t / "answers.csv").write_text("Palabra,Answer1,Answer2\nBANANA,I4,J7\n")
    (t / "dupcol.csv").write_text("Palabra,Answer1,Answer1\nBANANA,I4,J7\n")
    (t / "badheader.csv").write_text("Word,Answer1\nBANANA,I4\n")
    (t / "badword.csv").write_text("Palabra,Answer1\nBLORPTASTIC,I4\n")
    (t / "longrow.csv").write_text("Palabra,Answer1\nBANANA,I4,J7,K9\n")
    (t / "corrupt.jsonl").write_text('{"kind": "game_step"}\n{"also": "bad"}\n')
    (t / "corruptdir").mkdir()
    (t / "corruptdir" / "gca.jsonl").write_text("not json\n")
    (t / "badjson.jsonl").write_text("{not json}\n")
    (t / "deep.jsonl").write_text("[" * 100000 + "]" * 100000 + "\n")
    (t / "array.jsonl").write_text("[1, 2]\n")
    (t / "fake.parquet").write_text("this is not parquet")
    good = json.loads(GOOD_LOG.read_text().splitlines()[0])
    (t / "stringvalid.jsonl").write_text(json.dumps({**good, "valid": "false"}) + "\n")
    (t / "v3.jsonl").write_text(
        json.dumps({**good, "schema_version": SCHEMA_VERSION + 1}) + "\n"
    )  # a future one
    shutil.copy(GOOD_LOG, t / "games.jsonl")
    game_lines = GOOD_LOG.read_text().splitlines()
    (t / "gametwice.jsonl").write_text("\n".join(game_lines * 2) + "\n")

    def broken(name: str, change: Any, at: int = 2) -> None:
        lines = list(game_lines)
        rec = json.loads(lines[at])
        change(rec["extra"])
        lines[at] = json.dumps(rec)
        (t / name).write_text("\n".join(lines) + "\n")

    broken("gamenull.jsonl", lambda e: e.update(game=None))
    broken("gamenogame.jsonl", lambda e: e.pop("game"))
    broken("gameoverflow.jsonl", lambda e: e.update(unit_pos=e["unit_size"]), at=len(game_lines) - 1)
    broken("gamenosize.jsonl", lambda e: e.update(unit_size=None))
    (t / "run").mkdir()
    shutil.copy(GOOD_LOG, t / "run" / "games.jsonl")
    (t / "run" / "config.yaml").write_text("humans: answers.csv\nagents: {random: {spec: random}}\n")
    shutil.copy(DATA / "v1_wordlevel.jsonl", t / "v1.jsonl")
    shutil.copy(DATA / "v1_wordlevel.jsonl", t / "words.jsonl")
    (t / "bad.yaml").write_text("games: [1, 2\nname: x\n")
    (t / "unknown.yaml").write_text("name: t\ngamez: 3\nagents: {random: {spec: random}}\n")
    (t / "allowcode.yaml").write_text("allow_code: true\nagents: {random: {spec: random}}\n")
    (t / "list.yaml").write_text("- a\n- b\n")
    (t / "x.sqlite3").write_bytes(b"")
    return {
        "inputs": str(t),
        "dir": str(t / "folder"),
        "bin": str(t / "binary.bin"),
        "empty": str(t / "empty.txt"),
        "bincsv": str(t / "binary.csv"),
        "csv": str(t / "answers.csv"),
        "badheader": str(t / "badheader.csv"),
        "dupcol": str(t / "dupcol.csv"),
        "badword": str(t / "badword.csv"),
        "longrow": str(t / "longrow.csv"),
        "corrupt": str(t / "corrupt.jsonl"),
        "corruptdir": str(t / "corruptdir"),
        "badjson": str(t / "badjson.jsonl"),
        "deepjson": str(t / "deep.jsonl"),
        "jsonarray": str(t / "array.jsonl"),
        "fakeparquet": str(t / "fake.parquet"),
        "stringvalid": str(t / "stringvalid.jsonl"),
        "v3": str(t / "v3.jsonl"),
        "v1": str(t / "v1.jsonl"),
        "log": str(t / "games.jsonl"),
        "gametwice": str(t / "gametwice.jsonl"),
        "gamenull": str(t / "gamenull.jsonl"),
        "gamenogame": str(t / "gamenogame.jsonl"),
        "gameoverflow": str(t / "gameoverflow.jsonl"),
        "gamenosize": str(t / "gamenosize.jsonl"),
        "gamerun": str(t / "run" / "games.jsonl"),
        "wordlog": str(t / "words.jsonl"),
        "badyaml": str(t / "bad.yaml"),
        "unknownkey": str(t / "unknown.yaml"),
        "allowcode": str(t / "allowcode.yaml"),
        "yaml": str(t / "bad.yaml"),
        "yamllist": str(t / "list.yaml"),
    }


def _argv(template: list[str], files: dict[str, str]) -> list[str]:
    return [a.format(**files) if "{" in a else a for a in template]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def files(inputs, tmp_path) -> dict[str, str]:
    """The shared inputs plus ``{tmp}``, this case's own output folder."""
    return {**inputs, "tmp": str(tmp_path)}


@pytest.mark.parametrize(("name", "template"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_ends_in_one_error_line(name, template, files, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # nothing may be written into the checkout
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("HUESENV_DEBUG", raising=False)
    shared = Path(files["inputs"])
    before = _snapshot(shared)
    code = main(_argv(template, files))
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, f"{name}: exit {code}, stderr {err!r}"  # 2 = the user's input, never 1 (a bug)
    assert lines, f"{name}: no error message"
    assert "Traceback" not in err and "internal error" not in err, err
    assert lines[-1].startswith("huesenv"), lines[-1]
    assert len(lines) == 1, f"{name}: {len(lines)} lines on stderr: {err!r}"
    after = _snapshot(shared)
    changed = [k for k in before if after.get(k) != before[k]] + [k for k in after if k not in before]
    assert not changed, f"{name}: changed or added input files {changed}"  # nothing already written is lost


def test_battery_is_large():
    assert len(CASES) >= 100
    assert {c[1][0] for c in CASES if c[1]} >= {
        "board", "humans", "logs", "metrics", "agents", "probe", "tournament", "wordlevel",
        "config", "replay", "play", "collect",
    }  # fmt: skip


def test_failed_start_does_not_block_the_next(tmp_path):
    """A start refused on a bad agent leaves no run folder; a folder from a start that died before its
    first unit (config.yaml, no records) does not refuse the next start either."""
    from huesenv.experiments.config import load_config
    from huesenv.experiments.runner import prepare_run_dir

    out = tmp_path / "runs"
    assert main(["tournament", "-o", str(out), "--set", "agents.random.spec=nosuch"]) == 2
    assert not (out / "default").exists()
    bad = load_config("default", [f"output={out}", "agents.random.spec=random:1"])
    prepare_run_dir(bad)  # as if the agents failed right after the folder was made
    good = load_config("default", [f"output={out}"])
    assert prepare_run_dir(good) == out / "default"


def test_unknown_key_in_file_names_line_and_suggests(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("name: t\nagents: {random: {spec: random}}\ngamez: 3\n")
    assert main(["config", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert "c.yaml, line 3: unknown config key 'gamez' (did you mean 'games'?)" in err


def test_config_show_prints_resolved_and_masked(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", "sk-abcdef123456")
    assert (
        main(
            [
                "config",
                "show",
                "--set",
                "games=3",
                "--set",
                "agents.random.kwargs.base_url=https://h/v1?key=sk-abcdef123456",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "games: 3" in out and "sk-abcdef123456" not in out and "***" in out


def test_allow_code_is_recorded(tmp_path, capsys):
    assert main(["config", "show", "--allow-code", "--set", "tournament.agent_factory=os:getcwd"]) == 0
    assert "allow_code: true" in capsys.readouterr().out


@pytest.mark.integration
@pytest.mark.parametrize(
    "argv",
    [["tournament", "--set", "gamez=3"], ["logs", "check", "/nonexistent.jsonl"], ["play", "--seed", "x"]],
)
def test_subprocess_shows_one_line(argv, tmp_path):
    out = subprocess.run(
        [sys.executable, "-P", "-m", "huesenv", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr


def test_metrics_says_when_top_k_exceeds_the_logged_rankings(tmp_path, capsys):
    log = DATA / "v1_wordlevel.jsonl"  # rankings of 5 cells
    assert main(["metrics", str(log), "-o", str(tmp_path / "m"), "--no-plots", "--top-k", "20"]) == 0
    assert "--top-k 20, but the logs' rankings hold at most 5 cells" in capsys.readouterr().out
    assert main(["metrics", str(log), "-o", str(tmp_path / "m5"), "--no-plots", "--top-k", "5"]) == 0
    assert "rankings hold at most" not in capsys.readouterr().out
