"""Issue 40's attacks, each bounded in time and memory (a forked child with an address-space cap and a
deadline), so a blow-up fails the test instead of hanging the suite."""

from __future__ import annotations

import contextlib
import gzip
import importlib
import io
import json
import multiprocessing
import resource
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import huesenv.cli

# imported here once, not in every forked child (what a command imports when it runs)
for _module in (
    "huesenv.commands.humans",
    "huesenv.commands.logs",
    "huesenv.commands.collect",
    "huesenv.experiments.evaluation",
    "huesenv.experiments.experiment",
    "huesenv.experiments.rl.ppo_fast",
    "huesenv.experiments.rl.selfplay",
    "huesenv.experiments.rl.sb3_train",
    "huesenv.metrics.naming",
):
    importlib.import_module(_module)

DATA = Path(__file__).parent / "data"


def _vm_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize")


def _child(conn: Any, fn: Callable[..., Any], mem_mb: int, args: tuple[Any, ...]) -> None:
    limit = _vm_bytes() + (mem_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            out = fn(*args)
        conn.send(("ok", out, err.getvalue()))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which fails the test
        conn.send(("raised", f"{type(exc).__name__}: {exc}"[:2000], traceback.format_exc()[-2000:]))


def bounded(
    fn: Callable[..., Any], *args: Any, seconds: float = 20, mem_mb: int = 1536
) -> tuple[str, Any, str]:
    """``fn(*args)`` in a forked child with ``mem_mb`` MB more address space and ``seconds``: (how, value, stderr)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, mem_mb, args))
    proc.start()
    ready = parent.poll(seconds)
    result = parent.recv() if ready else None
    proc.kill() if result is None else None
    proc.join()
    assert result is not None, f"ran past {seconds} s (or died: exit {proc.exitcode})"
    return result


def _cli(*argv: str) -> int:
    return huesenv.cli.main(list(argv))


def refused(result: tuple[str, Any, str], *needles: str) -> str:
    """The CLI exited 2 with one line naming every needle."""
    how, code, err = result
    assert how == "ok", f"{code}\n{err}"
    err = err.strip()
    assert code == 2, f"exit {code}: {err}"
    assert "\n" not in err and "Traceback" not in err and "internal error" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


# -- 1. small files, huge costs -----------------------------------------------------------------------------------
def _bomb(path: Path, megabytes: int) -> Path:
    """A gzip that inflates to ``megabytes`` MB of a CSV, in a few kB: gzip members may be concatenated."""
    member = gzip.compress(b"0" * (1 << 20), compresslevel=9, mtime=0)
    head = gzip.compress(b"userId,word,cell\n", mtime=0)
    path.write_bytes(head + member * megabytes)
    return path


def test_gzip_bomb_humans_is_refused_naming_the_cap(tmp_path, monkeypatch):
    import huesenv.trust as trust

    monkeypatch.setattr(trust, "MAX_INFLATED_BYTES", 4 << 20)
    bomb = _bomb(tmp_path / "bomb.csv.gz", 1600)
    err = refused(bounded(_cli, "humans", "summary", "--humans", str(bomb)), "bomb.csv.gz", "4,194,304")
    assert "inflates" in err


def test_bounded_reader_reads_a_plain_and_a_compressed_file(tmp_path):
    from huesenv.trust import read_user_bytes

    (tmp_path / "a.csv").write_bytes(b"x,y\n")
    (tmp_path / "a.csv.gz").write_bytes(gzip.compress(b"x,y\n"))
    assert read_user_bytes(tmp_path / "a.csv") == read_user_bytes(tmp_path / "a.csv.gz") == b"x,y\n"
    with pytest.raises(ValueError, match=r"a.csv: 4 bytes, more than the 3 allowed"):
        read_user_bytes(tmp_path / "a.csv", max_bytes=3)
    (tmp_path / "b.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match=r"b.csv.gz: not a readable .gz file"):
        read_user_bytes(tmp_path / "b.csv.gz")


def _shared_list(levels: int) -> list[Any]:
    shared: list[Any] = []
    for _ in range(levels):
        shared = [shared, shared]
    return shared


def _validate_human_record(value: Any) -> str:
    from huesenv.experiments.evaluation import valid_record

    try:
        valid_record(value, "policy p.pt, field train.human_data")
    except ValueError as err:
        return str(err)
    return "accepted"


def test_shared_reference_record_error_is_bounded():
    how, message, err = bounded(_validate_human_record, _shared_list(45), seconds=5)
    assert how == "ok", message
    assert message.startswith("policy p.pt, field train.human_data") and len(message) < 400, message


def test_shared_reference_inside_a_record_field_is_bounded():
    record = {"format": "huesenv-human-data", "train_participants": _shared_list(45), "train_words": ["RED"]}
    how, message, err = bounded(_validate_human_record, record, seconds=5)
    assert how == "ok", message
    assert "train_participants" in message and len(message) < 400, message


def _replay_records(rounds: int) -> list[Any]:
    from huesenv.logs.io import read_records

    records = read_records(DATA / "v2_games.jsonl").records
    first = next(r for r in records if r.kind == "game_step")
    return [first.model_copy(update={"round": rounds})] + [r for r in records if r.kind == "game_step"][1:]


def _replay_all(records: list[Any]) -> str:
    from huesenv.game.replay import replay

    try:
        for _ in replay(records):
            pass
    except ValueError as err:
        return str(err)
    return "replayed"


def test_replay_with_a_huge_round_is_refused():
    how, message, err = bounded(_replay_all, _replay_records(10**9), seconds=5)
    assert how == "ok", message
    assert "extra.round" in message and "1000000000" in message, message


def test_replay_of_a_real_game_still_works():
    how, message, err = bounded(_replay_all, _replay_records(0), seconds=5)
    assert (how, message) == ("ok", "replayed"), err


# -- 2. wrong types in checkpoint and zip metadata --------------------------------------------------------------
@pytest.fixture(scope="module")
def checkpoint_payload() -> dict[str, Any]:
    torch = pytest.importorskip("torch")
    from huesenv.agents.policy_net import PolicySettings, build_guesser_net
    from huesenv.vocabulary import word_texts

    vocab = word_texts()[:20]
    settings = PolicySettings(
        env_id="huesenv/GuesserVector-v0", role="guesser", observation_mode="vector-dict", vocabulary=vocab
    )
    buf = io.BytesIO()
    nets = {"guesser": build_guesser_net(len(vocab), hidden=4)}
    torch.save(
        {
            "format": "huesenv-policy",
            "format_version": 1,
            "settings": settings.to_dict(),
            "nets": {
                "guesser": {
                    "arch": {"vocab_size": len(vocab), "hidden": 4},
                    "state_dict": nets["guesser"].state_dict(),
                }
            },
            "train": {},
        },
        buf,
    )
    return torch.load(io.BytesIO(buf.getvalue()), weights_only=True)


@pytest.mark.parametrize(("field", "value"), [("format_version", [1]), ("train", [1, 2, 3]), ("nets", "x")])
def test_checkpoint_metadata_of_the_wrong_type(tmp_path, checkpoint_payload, field, value):
    import torch

    from huesenv.agents.policy_net import load_checkpoint

    path = tmp_path / "policy.pt"
    torch.save({**checkpoint_payload, field: value}, path)
    with pytest.raises(ValueError) as info:
        load_checkpoint(path)
    message = str(info.value)
    assert str(path) in message and f"'{field}'" in message and "\n" not in message, message


def test_checkpoint_of_the_right_types_loads(tmp_path, checkpoint_payload):
    import torch

    from huesenv.agents.policy_net import load_checkpoint

    torch.save({**checkpoint_payload, "train": {"steps": 3}}, tmp_path / "policy.pt")
    assert load_checkpoint(tmp_path / "policy.pt").train == {"steps": 3}


def test_sb3_zip_with_a_huge_int_names_the_file(tmp_path):
    import zipfile

    from huesenv.agents.sb3_zip import read_sb3_zip

    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", '{"num_timesteps": ' + "9" * 6000 + "}")
        zf.writestr("policy.pth", b"")
    with pytest.raises(ValueError) as info:
        read_sb3_zip(path)
    assert str(path) in str(info.value) and "'data'" in str(info.value), info.value


# -- 4. secrets in other spellings --------------------------------------------------------------------------------
KEY = "sk-hardening-DO-NOT-LEAK-0123456789abcdef"


def _spelled(key: str) -> list[str]:
    import base64
    import urllib.parse

    body = json.dumps({"model": "m", "headers": {"Authorization": f"Bearer {key}"}}).encode()
    return [
        base64.b64encode(body).decode(),  # an upstream echoing the whole request, base64-encoded
        base64.b64encode(b"x" + body).decode(),
        base64.urlsafe_b64encode(b"xy" + body).decode(),
        base64.b64encode(key.encode()).decode(),
        urllib.parse.quote(key, safe=""),
        key.upper(),
        key.lower(),
        key[::-1],
        " ".join(key),
        key[:12] + "\n  " + key[12:],
    ]


@pytest.mark.parametrize("index", range(10))
def test_secret_spellings_are_masked_in_stored_text(tmp_path, index):
    import base64

    from huesenv.logs.io import LogWriter, read_records

    env = {"HARDENING_API_KEY": KEY}
    text = f"echo: {_spelled(KEY)[index]} done"
    writer = LogWriter(tmp_path / "words.jsonl")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HARDENING_API_KEY", KEY)
        first = read_records(DATA / "v2_wordlevel.jsonl").records[0]
        writer.append([first.model_copy(update={"raw_text": text})])
        writer.close()
    stored = (tmp_path / "words.jsonl").read_text()
    raw = read_records(tmp_path / "words.jsonl").records[0].raw_text
    assert raw.startswith("echo: ") and raw.endswith(" done"), raw
    leaked = [
        s for s in (KEY, KEY.upper(), KEY[::-1], "DO-NOT-LEAK", "0123456789") if s.lower() in stored.lower()
    ]
    assert not leaked, stored
    for word in raw.split():  # no base64 word decodes to text holding the key's middle
        try:
            decoded = base64.b64decode(word + "==", altchars=b"-_" if "-" in word or "_" in word else None)
        except ValueError:
            continue
        assert b"DO-NOT-LEAK" not in decoded, (word, decoded)
    from huesenv.secrets import mask_text

    assert mask_text("sk-nothing-secret here", env) == "sk-nothing-secret here"


def test_a_key_with_non_ascii_characters_is_refused_naming_the_variable():
    from huesenv.secrets import check_key_value

    with pytest.raises(ValueError, match=r"^\$HARDENING_API_KEY: the key holds non-ASCII") as info:
        check_key_value("HARDENING_API_KEY", "sk-ключ-0123456789")
    assert "ключ" not in str(info.value)


# -- 5. terminal escapes ------------------------------------------------------------------------------------------
EVIL = "pwn\x1b[2J\x1b]0;PWN\x07\u202e[bold]x"


def test_logs_check_escapes_control_characters_of_the_file(tmp_path, capsys):
    line = json.loads((DATA / "v2_wordlevel.jsonl").read_text().splitlines()[0])
    line["agent_id"] = EVIL
    for key in ("unit", "unit_pos", "unit_size"):
        line["extra"].pop(key)
    log = tmp_path / "evil.jsonl"
    log.write_text(json.dumps(line) + "\n")
    assert _cli("logs", "check", str(log)) == 0
    out, err = capsys.readouterr()
    assert "pwn\\x1b[2J\\x1b]0;PWN\\x07\\u202e" in out, out
    assert not any(c in out + err for c in "\x1b\x07\u202e"), repr(out)


def test_error_lines_escape_control_characters(tmp_path, capsys):
    line = json.loads((DATA / "v2_wordlevel.jsonl").read_text().splitlines()[0])
    line["kind"] = EVIL
    log = tmp_path / "evil.jsonl"
    log.write_text(json.dumps(line) + "\n")
    code = _cli("logs", "check", str(log))
    out, err = capsys.readouterr()
    assert code == 2 and "\\x1b" in err and "\x1b" not in err, repr(err)


def test_rich_cells_escape_controls_and_markup():
    from huesenv.validation import terminal_safe

    assert terminal_safe(EVIL, markup=True) == "pwn\\x1b[2J\\x1b]0;PWN\\x07\\u202e\\[bold]x"
    assert terminal_safe("RED\tcafé\n") == "RED\\tcafé\\n"


# -- 6. spreadsheet formulas in exports ---------------------------------------------------------------------------
@pytest.mark.integration  # a collect app / a whole export read back: over 0.5 s
def test_participants_export_quotes_a_formula_like_platform_id(tmp_path, capsys):
    pytest.importorskip("flask")
    import csv

    from huesenv.collect.app import CollectConfig, create_app
    from huesenv.collect.testing import ClientParticipant

    db = tmp_path / "c.sqlite3"
    client = create_app(CollectConfig(db_path=db, words_per_participant=2, start_rate=None)).test_client()
    client.get("/?PROLIFIC_PID=-2-3&STUDY_ID=study42&SESSION_ID=-1-1")
    p = ClientParticipant(client)
    p.answer_words(p.onboard(), lambda w: "B2")
    out = tmp_path / "participants.csv"
    assert _cli("collect", "export", "--db", str(db), "-o", str(out), "--task", "participants") == 0
    rows = list(csv.DictReader(out.open(newline="")))
    assert (rows[0]["platformPid"], rows[0]["sessionId"], rows[0]["studyId"]) == ("'-2-3", "'-1-1", "study42")
    cells = [v for row in rows for v in row.values()]
    assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in cells), cells


@pytest.mark.integration  # a collect app / a whole export read back: over 0.5 s
def test_csv_safe_quotes_text_not_numbers_and_reads_back(tmp_path):
    import pandas as pd

    from huesenv.humans import load_humans
    from huesenv.humans.reconstruct import write_export
    from huesenv.reports import csv_safe, csv_unquote

    frame = pd.DataFrame(
        {"agent": ["=HYPERLINK(1)", "+1", "@SUM", "\tx", "\rx", "ok"], "n": [-1, 2, 3, 4, 5, 6]}
    )
    safe = csv_safe(frame)
    assert safe["agent"].tolist() == ["'=HYPERLINK(1)", "'+1", "'@SUM", "'\tx", "'\rx", "ok"]
    assert safe["n"].tolist() == [-1, 2, 3, 4, 5, 6] and frame["agent"][0] == "=HYPERLINK(1)"
    assert [csv_unquote(v) for v in safe["agent"]] == frame["agent"].tolist()
    cohort = pd.read_csv(
        Path(__file__).parents[1] / "huesenv/data/humans/reconstructed_cohort.csv.gz", dtype=str
    )
    odd = cohort.head(40).assign(userId=lambda f: "-" + f["userId"])
    text = write_export(odd, tmp_path / "a.csv").read_text()
    assert "\n'-reconstructed-001," in text
    assert set(load_humans(tmp_path / "a.csv").frame["user_id"]) == set(odd["userId"])


# -- 7. the independent pass: configs, --set values, caches -------------------------------------------------------
def test_yaml_python_tag_runs_nothing(tmp_path):
    marker = tmp_path / "PWNED"
    config = tmp_path / "c.yaml"
    config.write_text(f'agents: !!python/object/apply:os.system ["touch {marker}"]\n')
    refused(bounded(_cli, "tournament", str(config), "-o", str(tmp_path / "o")), "c.yaml", "line 1")
    assert not marker.exists()


def test_yaml_int_past_the_digit_limit_names_the_file(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("games: " + "9" * 5000 + "\n")
    refused(bounded(_cli, "tournament", str(config), "-o", str(tmp_path / "o")), "c.yaml", "4300 digits")


FAST = (
    "train",
    "guesser",
    "--fast",
    "--tracker",
    "none",
    "--no-progress",
    "--device",
    "cpu",
    "--steps",
    "64",
)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        pytest.param(
            ("tournament", "--no-progress", "--no-wordlevel", "--set", "games=1000000000000"),
            "field games",
            marks=pytest.mark.integration,  # builds the bundled config: about 1 s
        ),
        ((*FAST, "--set", "num_envs=100000000"), "num_envs"),
        ((*FAST, "--set", "hidden=100000000"), "hidden"),
        (
            ("train", "selfplay", "--tracker", "none", "--no-progress", "--set", "num_games=100000000"),
            "num_games",
        ),
        (
            ("train", "guesser", "--tracker", "none", "--no-progress", "--set", "net_arch=[100000000]"),
            "net_arch",
        ),
        (("train", "guesser", "--tracker", "none", "--no-progress", "--set", "n_steps=100000000"), "n_steps"),
    ],
)
def test_sizes_from_the_command_line_are_bounded(tmp_path, argv, needle):
    out = tmp_path / "run"
    refused(bounded(_cli, *argv, "-o", str(out), seconds=20), needle, "expected")
    assert not any(out.rglob("*.pt"))


def _npz_member(shape: tuple[int, ...], dtype: str, data: bytes) -> bytes:
    from numpy.lib import format as npy

    buf = io.BytesIO()
    npy.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue() + data


def _load_cache(path: Path) -> str:
    from huesenv.metrics.naming import load_cached_frontier

    try:
        load_cached_frontier(path, "k", 480)
    except ValueError as err:
        return str(err)
    return "loaded"


@pytest.mark.parametrize(("shape", "dtype"), [((480, 10**9), "<f4"), ((4,), "|O")])
def test_npz_cache_declaring_a_huge_or_object_array_is_refused(tmp_path, shape, dtype):
    import zipfile

    path = tmp_path / "frontier.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("key.npy", _npz_member((), "<U1", b"k\0\0\0"))
        archive.writestr("columns.npy", _npz_member(shape, dtype, b"\0" * 64))
        for name in ("betas", "complexity", "accuracy", "offsets"):
            archive.writestr(f"{name}.npy", _npz_member((1,), "<f8", b"\0" * 8))
    how, message, err = bounded(_load_cache, path, seconds=10)
    assert how == "ok", message
    assert str(path) in message and "columns.npy" in message and "refused" in message, message


def _read_json(path: Path) -> str:
    from huesenv.experiments.rl.harness import read_json

    try:
        read_json(path)
    except ValueError as err:
        return str(err)
    return "read"


@pytest.mark.parametrize("text", ['{"steps": ' + "9" * 6000 + "}", "[1, 2]", "[" * 100000, "\xff"])
def test_crafted_run_folder_json_is_one_line_naming_the_file(tmp_path, text):
    path = tmp_path / "train.json"
    path.write_bytes(text.encode("latin-1"))
    how, message, err = bounded(_read_json, path, seconds=5)
    assert how == "ok", message
    assert message.startswith(str(path)) and "--fresh" in message and len(message) < 400, message


def _read_sb3_state(path: Path) -> str:
    from huesenv.experiments.rl.sb3_train import read_state

    try:
        read_state(path)
    except ValueError as err:
        return str(err)
    return "read"


@pytest.mark.parametrize("payload", [b"[1, 2, 3]", b'{"steps": ' + b"9" * 6000 + b"}", b" " * (17 << 20)])
def test_crafted_sb3_trainer_state_is_one_line_naming_the_file(tmp_path, payload):
    import zipfile

    from huesenv.experiments.rl.sb3_train import STATE_MEMBER

    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(STATE_MEMBER, payload)
    how, message, err = bounded(_read_sb3_state, path, seconds=5)
    assert how == "ok", message
    assert message.startswith(str(path)) and len(message) < 400, message


def test_a_vocabulary_of_a_million_words_is_refused(tmp_path):
    from huesenv.vocabulary import read_vocabulary_file

    path = tmp_path / "words.txt"
    path.write_text("\n".join(f"W{i}" for i in range(100_002)))
    with pytest.raises(ValueError, match=r"words.txt: 100,002 lines, more than the 100,000 words allowed"):
        read_vocabulary_file(str(path))


def test_a_parquet_export_inflating_past_the_cap_is_refused(tmp_path, monkeypatch):
    import pandas as pd

    import huesenv.trust as trust
    from huesenv.humans import load_humans

    path = tmp_path / "a.parquet"
    pd.DataFrame({"userId": [f"user-{i}" for i in range(50_000)]}).to_parquet(path)
    monkeypatch.setattr(trust, "MAX_INFLATED_BYTES", 100_000)
    with pytest.raises(ValueError, match=r"a.parquet: inflates past the 100,000 bytes allowed"):
        load_humans(path)
