"""Configs that cannot run code, secrets masked by value everywhere, api_key_env limited, names kept in folders."""

from __future__ import annotations

import json
from importlib import metadata

import pytest
import yaml

from huesenv.experiments.callables import check_callable_name, resolve_callable
from huesenv.experiments.config import load_config
from huesenv.secrets import check_api_key_env, mask, mask_text, register_secret

SECRET = "sk-live-0123456789abcdef"


def test_code_keys_need_allow_code():
    with pytest.raises(ValueError, match="tournament.agent_factory: 'os:system' would import and run code"):
        load_config("default", ["tournament.agent_factory=os:system"])
    with pytest.raises(ValueError, match="tournament.play_fn"):
        load_config("default", ["tournament.play_fn=subprocess:call"])
    config = load_config("default", ["tournament.agent_factory=os:getcwd"], allow_code=True)
    assert config.data["allow_code"] is True and "allow_code: true" in config.to_yaml()
    assert load_config("default").data["allow_code"] is False


def test_allow_code_cannot_come_from_a_file_or_override(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("agents: {random: {spec: random}}\nallow_code: true\n")
    with pytest.raises(ValueError, match=r"c.yaml, line 2: allow_code cannot be set in a config file"):
        load_config(path)
    with pytest.raises(ValueError, match="only granted by --allow-code"):
        load_config("default", ["allow_code=true"])


def test_registered_names_resolve_without_allow_code():
    from huesenv.agents.registry import make_agent
    from huesenv.envs.hues_cues.play import play_game

    assert resolve_callable("agent_factory", "make_agent", allow_code=False) is make_agent
    assert resolve_callable("play_fn", "play_game", allow_code=False) is play_game
    assert "unknown name" in check_callable_name("agent_factory", "nosuch", allow_code=False)


def test_entry_point_names_are_accepted(monkeypatch):
    ep = metadata.EntryPoint(
        name="mine", value="huesenv.agents.registry:make_agent", group="huesenv.agent_factories"
    )
    real = metadata.entry_points

    def fake(**kw):
        return [ep] if kw.get("group") == "huesenv.agent_factories" else real(**kw)

    monkeypatch.setattr(metadata, "entry_points", fake)
    assert check_callable_name("agent_factory", "mine", allow_code=False) is None
    assert callable(resolve_callable("agent_factory", "mine", allow_code=False))


def test_mask_by_value_url_and_query(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    text = f"base_url: https://host/v1?key={SECRET}&x=1 and https://user:pw12345@h/x and bare {SECRET}"
    masked = mask_text(text)
    assert SECRET not in masked and "pw12345" not in masked and "x=1" in masked
    data = mask(
        {
            "agents": {
                "a": {"kwargs": {"base_url": f"https://h/?token={SECRET}", "api_key_env": "OPENAI_API_KEY"}}
            }
        }
    )
    assert SECRET not in json.dumps(data) and data["agents"]["a"]["kwargs"]["api_key_env"] == "OPENAI_API_KEY"
    register_secret("file-secret-987654")
    assert "file-secret-987654" not in mask_text("k=file-secret-987654")


def test_secrets_are_masked_in_their_json_and_html_spellings(tmp_path, monkeypatch):
    import html

    from huesenv.logs import LogRecord, read_records
    from huesenv.logs.io import LogWriter

    secret = 'sk-\u00fcn"quo<te>&back\\slash'
    monkeypatch.setenv("MY_SERVICE_API_KEY", secret)
    record = LogRecord.create(
        kind="word_query", run_id="r", agent_id="a", word="BANANA", raw_text=f"echo {secret}"
    )
    log = tmp_path / "log.jsonl"
    with LogWriter(log) as writer:
        writer.append([record])
    text = log.read_text(encoding="utf-8")
    assert json.dumps(secret, ensure_ascii=False)[1:-1] not in text and "quo<te>" not in text
    assert read_records(log).records[0].raw_text == "echo ***"  # still a valid log
    page = mask_text(f"<p>{html.escape(secret)}</p><p>{html.escape(secret, quote=False)}</p>")
    assert "quo&lt;te&gt;" not in page and page == "<p>***</p><p>***</p>"


def test_run_folder_config_and_report_are_masked(tmp_path, monkeypatch):
    from huesenv.experiments.report import ReportData, write_report
    from huesenv.experiments.runner import prepare_run_dir

    monkeypatch.setenv("MY_ENDPOINT_API_KEY", SECRET)
    config = load_config(
        "default", [f"output={tmp_path}", f"agents.random.kwargs.note=https://h/v1?key={SECRET}"]
    )
    run_dir = prepare_run_dir(config)
    stored = (run_dir / "config.yaml").read_text()
    assert SECRET not in stored and "***" in stored
    assert prepare_run_dir(config) == run_dir  # the masked copy still matches this experiment on resume
    data = ReportData(title="t", config_yaml=config.to_yaml(), summary=[f"note {SECRET}"])
    written = write_report(data, run_dir, formats=("markdown", "html"))
    for kind in ("markdown", "html", "summary"):
        assert SECRET not in written[kind].read_text(), kind
    assert json.loads(written["summary"].read_text())["allow_code"] is False


def test_run_folder_config_masks_credential_keys_and_stays_readable(tmp_path, monkeypatch, capsys):
    from huesenv.cli import main
    from huesenv.experiments.runner import prepare_run_dir

    monkeypatch.setenv("MY_ENDPOINT_API_KEY", SECRET)
    overrides = [
        f"output={tmp_path}",
        "agents.random.kwargs.api_key=sk-literal-in-the-config",  # a key typed into the config itself
        "agents.random.kwargs.max_tokens=32",  # named like a token, not a secret
        f"wandb.project={SECRET}",  # a whole value that is a secret: '***' alone is a YAML alias
    ]
    config = load_config("default", overrides)
    run_dir = prepare_run_dir(config)
    stored = (run_dir / "config.yaml").read_text()
    assert "sk-literal" not in stored and SECRET not in stored
    back = yaml.safe_load(stored)  # still YAML
    assert back["agents"]["random"]["kwargs"] == {"api_key": "***", "max_tokens": 32}
    assert back["wandb"]["project"] == "***"
    assert prepare_run_dir(config) == run_dir  # and it still resumes
    assert main(["config", "show", *[a for o in overrides for a in ("--set", o)]]) == 0
    shown = capsys.readouterr().out
    assert "sk-literal" not in shown and SECRET not in shown and yaml.safe_load(shown)["seed"] == 0


def test_wandb_config_is_masked_by_value(monkeypatch):
    from huesenv.experiments.tracking import redact

    monkeypatch.setenv("SERVICE_TOKEN", SECRET)
    out = redact({"agents": {"x": {"kwargs": {"url": f"https://h/{SECRET}"}}}, "api_key": "abc"})
    assert SECRET not in yaml.safe_dump(out) and out["api_key"] == "***"


@pytest.mark.parametrize(
    "name", ["WANDB_API_KEY", "HOME", "PATH", "AWS_SECRET_ACCESS_KEY", "openai_api_key", ""]
)
def test_api_key_env_refuses_other_variables(name, monkeypatch):
    monkeypatch.delenv("HUESENV_API_KEY_VARS", raising=False)
    with pytest.raises(ValueError, match="api_key_env"):
        check_api_key_env(name)


def test_api_key_env_accepts_api_key_names_and_the_allow_list(monkeypatch):
    monkeypatch.setenv("HUESENV_API_KEY_VARS", "LOCAL_LLM_TOKEN, WANDB_API_KEY")
    assert check_api_key_env("OPENAI_API_KEY") == "OPENAI_API_KEY"
    assert check_api_key_env("LOCAL_LLM_TOKEN") == "LOCAL_LLM_TOKEN"
    with pytest.raises(ValueError, match="another service"):
        check_api_key_env("WANDB_API_KEY")  # never, even when listed
    from huesenv.agents import make_agent

    with pytest.raises(ValueError, match="api_key_env 'WANDB_API_KEY'"):
        make_agent("api-vlm:m", base_url="http://127.0.0.1:9", api_key_env="WANDB_API_KEY")


@pytest.mark.parametrize("name", [".", "..", "a/b", "../x", "/abs", ""])
def test_run_names_stay_inside_the_output_folder(name):
    with pytest.raises(ValueError, match="field name"):
        load_config("default", [f"name={name!r}" if name else "name=''"])


def test_cli_import_failure_is_loud(monkeypatch):
    from huesenv import cli

    monkeypatch.setitem(cli.COMMANDS, "broken", "huesenv.commands.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        cli.build_parser()


@pytest.mark.parametrize("file", ["../outside.png", "/etc/passwd", "sub/../../outside.png"])
def test_gca_manifest_paths_stay_in_the_dataset(tmp_path, file):
    from huesenv.probes.gca.stimuli import load_gca_folder

    root = tmp_path / "gca"
    root.mkdir()
    (tmp_path / "outside.png").write_bytes(b"x")
    (root / "manifest.csv").write_text(f"file,object,condition,color,tau\n{file},apple,prior,red,50\n")
    with pytest.raises(ValueError, match="line 2, field file: .* is outside the dataset folder"):
        load_gca_folder(root)


def test_parquet_logs_are_masked_but_keep_their_types(tmp_path, monkeypatch):
    from huesenv.logs import LogRecord, load_logs, write_parquet

    monkeypatch.setenv("OTHER_API_KEY", SECRET)
    rec = LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id="a",
        word="BANANA",
        raw_text=f"echo {SECRET}",
        timings={"tokens_s": 1.5},
    )
    write_parquet([rec], tmp_path / "l.parquet")
    (back,) = load_logs(tmp_path / "l.parquet")
    assert SECRET not in back.raw_text and back.timings == {"tokens_s": 1.5}
