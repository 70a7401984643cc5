"""``huesenv metrics`` on game logs: points per game by role with intervals, first cones as word-level
answers, and the refusal to score a learned policy on the human answers it trained on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from huesenv.cli import main
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.envs.vector_game.opponents import TableOpponent
from huesenv.envs.vector_game.record import GameRecorder, write_game_logs
from huesenv.logs.io import LogWriter
from huesenv.logs.schema import LogRecord


@pytest.fixture(scope="module")
def vector_log(tmp_path_factory):
    """Eight finished vector-env games (seat 0 the caller, random legal moves; random table opponents)."""
    g = HuesCuesVectorGame(8, 4, caller=[0], opponents=TableOpponent("random"), seed=7)
    rec = GameRecorder(g, limit=8)
    g.reset(seed=7)
    while len(rec.finished) < 8:
        g.step(g.random_actions())
    path = tmp_path_factory.mktemp("vec") / "games.jsonl"
    assert write_game_logs(rec, path) == 8
    return path, rec.finished


def test_game_log_gives_points_by_role_with_intervals_and_first_cones(vector_log, tmp_path, capsys):
    path, games = vector_log
    out = tmp_path / "m"
    assert main(["metrics", str(path), "-o", str(out), "--no-plots"]) == 0
    printed = capsys.readouterr().out
    assert "Points per game by role" in printed and "First cones" in printed
    table = pd.read_csv(out / "game_points.csv")
    assert set(table["role"]) == {"cue_giver", "guesser", "total"}
    total = table[table["role"] == "total"].set_index("agent")
    caller = [game.scores[0] for game in games]
    others = [s for game in games for s in game.scores[1:]]
    assert total.loc["caller", "mean"] == pytest.approx(np.mean(caller))
    assert total.loc["random", "mean"] == pytest.approx(np.mean(others))
    assert total.loc["caller", "n"] == 8 and total.loc["random", "n"] == 24
    roles = table.set_index(["agent", "role"])["mean"]
    for agent in ("caller", "random"):  # the roles add up to the total
        assert roles[(agent, "cue_giver")] + roles[(agent, "guesser")] == pytest.approx(
            roles[(agent, "total")]
        )
    assert (table["mean_ci_low"] <= table["mean"] + 1e-9).all() and (
        table["mean"] <= table["mean_ci_high"] + 1e-9
    ).all()
    words = pd.read_csv(out / "first_cones" / "word_level.csv")
    assert {"caller", "random"} <= set(words["agent"]) and words["word"].notna().all()


def test_two_logs_are_two_sets_of_games_not_merged(vector_log, tmp_path):
    path, _ = vector_log
    twin = tmp_path / "twin.jsonl"
    twin.write_bytes(path.read_bytes())
    out = tmp_path / "m"
    assert main(["metrics", str(path), str(twin), "-o", str(out), "--no-plots"]) == 0
    table = pd.read_csv(out / "game_points.csv")
    assert table.loc[(table["agent"] == "caller") & (table["role"] == "total"), "n"].item() == 16
    assert table["games"].max() == 16


def test_a_log_with_neither_word_queries_nor_games_is_one_line(tmp_path, capsys):
    path = tmp_path / "probe.jsonl"
    with LogWriter(path) as writer:
        writer.append([LogRecord.create(kind="probe_trial", run_id="r", agent_id="a")])
    assert main(["metrics", str(path), "-o", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no word_query records" in err[0] and "game_step" in err[0]


def test_policy_trained_on_the_reference_is_refused_then_labelled(vector_log, tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from huesenv.agents.policy_net import PolicySettings, build_speaker_net, save_checkpoint
    from huesenv.humans import load_humans
    from huesenv.humans.splits import DataSplit, training_record

    path, _ = vector_log
    run = tmp_path / "run"
    run.mkdir()
    (run / "games.jsonl").write_bytes(path.read_bytes())
    cohort = load_humans()
    split = DataSplit.of(cohort, seed=0)
    torch.manual_seed(0)
    policy = save_checkpoint(
        tmp_path / "policy.pt",
        PolicySettings(env_id="huesenv/CueGiverVector-v0", role="cue_giver", vocabulary=("APPLE",)),
        {"speaker": build_speaker_net(vocab_size=1, hidden=8)},
        {"speaker": {"vocab_size": 1, "hidden": 8}},
        {"human_data": training_record(split, cohort)},
    )
    (run / "config.yaml").write_text(
        f"agents:\n  caller: {{spec: 'policy:{policy}'}}\n  random: {{spec: random}}\n"
    )
    args = ["metrics", str(run / "games.jsonl"), "--no-plots"]
    assert main([*args, "-o", str(tmp_path / "a")]) == 2  # the packaged cohort: its training part is inside
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "agent caller" in err[0] and "--allow-trained-on" in err[0]
    # the split's evaluation part: nothing it trained on, so it is scored
    evaluation = split.write_part(cohort, "evaluation", tmp_path / "evaluation.csv.gz")
    assert main([*args, "-o", str(tmp_path / "b"), "--humans", str(evaluation)]) == 0
    assert "trained_on_reference" not in pd.read_csv(tmp_path / "b" / "game_points.csv").columns
    capsys.readouterr()
    assert main([*args, "-o", str(tmp_path / "c"), "--allow-trained-on"]) == 0
    assert "TRAINED ON THE REFERENCE: caller" in capsys.readouterr().out
    for table in (tmp_path / "c" / "game_points.csv", tmp_path / "c" / "first_cones" / "agent_level.csv"):
        marked = pd.read_csv(table).set_index("agent")["trained_on_reference"]
        assert bool(marked.loc["caller"].all()) and not bool(marked.loc["random"].any())


def test_policy_log_without_a_run_config_says_it_was_not_checked(tmp_path, capsys):
    rec = LogRecord.create(
        kind="word_query", run_id="r", agent_id="policy:mine", word="BANANA", cells=["E5"], answer="E5"
    )
    path = tmp_path / "w.jsonl"
    with LogWriter(path) as writer:
        writer.append([rec])
    assert main(["metrics", str(path), "-o", str(tmp_path / "m"), "--no-plots"]) == 0
    assert "could not be checked" in capsys.readouterr().out


def test_cue_giver_learning_curve_plots_its_round_points_without_a_warning(tmp_path):
    import warnings

    from huesenv.experiments.learning_curves import plot_learning_curve

    curve = pd.DataFrame({"step": [100, 200, 300], "round_points": [1.0, 1.5, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the empty legend warned; an empty curve is now just empty
        plot_learning_curve(curve, {"random": 0.2}, tmp_path / "c.png", "", "cue giver")
        plot_learning_curve(pd.DataFrame({"step": [1]}), {}, tmp_path / "e.png", "", "nothing")
    assert (tmp_path / "c.png").stat().st_size > 0


def test_a_game_cut_short_is_left_out_and_said(tmp_path, capsys):
    from huesenv.agents import make_agent
    from huesenv.envs.hues_cues.play import play_game
    from huesenv.logs.units import tag_unit

    with LogWriter(tmp_path / "full.jsonl") as writer:
        for game in range(2):
            agents = {f"player_{i}": make_agent("random", seed=i) for i in range(4)}
            result = play_game(agents, num_players=4, seed=game, game_index=game, run_id="r")
            writer.append(tag_unit(result.records, f"game:{game}"))
    lines = (tmp_path / "full.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-5]) + "\n")  # the second game lost its last records
    assert main(["metrics", str(cut), "-o", str(tmp_path / "m"), "--no-plots"]) == 0
    assert "game:1 cut short" in capsys.readouterr().out
    table = pd.read_csv(tmp_path / "m" / "game_points.csv")
    assert table["games"].max() == 1


def _tournament_log(tmp_path, games=2):
    """A tiny tournament-style game log: ``games`` games of four random agents, each a tagged unit block."""
    from huesenv.agents import make_agent
    from huesenv.envs.hues_cues.play import play_game
    from huesenv.logs.units import tag_unit

    path = tmp_path / "games.jsonl"
    with LogWriter(path) as writer:
        for game in range(games):
            agents = {f"player_{i}": make_agent("random", seed=i) for i in range(4)}
            result = play_game(agents, num_players=4, seed=game, game_index=game, run_id="r")
            writer.append(tag_unit(result.records, f"game:{game}"))
    return path


def test_a_policy_of_unknown_training_data_is_said_and_marked_na(vector_log, tmp_path, capsys):
    pytest.importorskip("torch")
    from huesenv.agents.policy_net import PolicySettings, build_speaker_net, save_checkpoint

    path, _ = vector_log
    run = tmp_path / "run"
    run.mkdir()
    (run / "games.jsonl").write_bytes(path.read_bytes())
    policy = save_checkpoint(  # records no human training data (like a plain SB3 model.save)
        tmp_path / "policy.pt",
        PolicySettings(env_id="huesenv/CueGiverVector-v0", role="cue_giver", vocabulary=("APPLE",)),
        {"speaker": build_speaker_net(vocab_size=1, hidden=8)},
        {"speaker": {"vocab_size": 1, "hidden": 8}},
        {},
    )
    (run / "config.yaml").write_text(
        f"agents:\n  caller: {{spec: 'policy:{policy}'}}\n  random: {{spec: random}}\n"
    )
    out = tmp_path / "m"
    assert main(["metrics", str(run / "games.jsonl"), "-o", str(out), "--no-plots"]) == 0
    assert "TRAINING DATA UNKNOWN: caller" in capsys.readouterr().out
    for table in (out / "game_points.csv", out / "first_cones" / "agent_level.csv"):
        marked = pd.read_csv(table).set_index("agent")["trained_on_reference"]
        assert marked.loc[["caller"]].isna().all() and not marked.loc[["random"]].astype(bool).any()
    points = pd.read_csv(out / "game_points.csv")
    assert points["human_reference"].notna().all() and "self_scored" in points.columns


def test_a_log_appended_to_itself_is_refused_naming_the_line(tmp_path, capsys):
    path = _tournament_log(tmp_path)
    text = path.read_text()
    n = len(text.splitlines())
    path.write_text(text + text)
    assert main(["metrics", str(path), "-o", str(tmp_path / "m"), "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"line {n + 1}" in err[0] and "extra.unit" in err[0] and "twice" in err[0]


def test_a_vector_log_appended_to_itself_is_refused(vector_log, tmp_path, capsys):
    path, _ = vector_log
    twice = tmp_path / "twice.jsonl"
    twice.write_text(path.read_text() * 2)
    assert main(["metrics", str(twice), "-o", str(tmp_path / "m"), "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(twice) in err[0] and "line" in err[0] and "twice" in err[0]


def test_a_resumed_log_counts_the_game_cut_short_once(tmp_path, capsys):
    path = _tournament_log(tmp_path)
    assert main(["metrics", str(path), "-o", str(tmp_path / "clean"), "--no-plots"]) == 0
    clean = pd.read_csv(tmp_path / "clean" / "game_points.csv")
    lines = path.read_text().splitlines()
    first = [i for i, line in enumerate(lines) if '"game:1"' in line][0]
    # a killed run wrote game 1 half, the resumed run wrote it whole after it
    path.write_text("\n".join(lines[:-1] + lines[first:]) + "\n")
    assert main(["metrics", str(path), "-o", str(tmp_path / "m"), "--no-plots"]) == 0
    assert "cut short" not in capsys.readouterr().out
    table = pd.read_csv(tmp_path / "m" / "game_points.csv")
    assert table["games"].max() == 2 and table.loc[table["role"] == "total", "n"].sum() == 8
    assert table["mean"].tolist() == pytest.approx(clean["mean"].tolist())  # the half game is not added


def test_more_records_than_the_unit_wrote_is_refused(tmp_path, capsys):
    import json

    path = _tournament_log(tmp_path, games=1)
    lines = path.read_text().splitlines()
    extra = json.loads(lines[-1])
    extra["extra"]["unit_pos"] = extra["extra"]["unit_size"]
    path.write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    assert main(["metrics", str(path), "-o", str(tmp_path / "m"), "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"line {len(lines) + 1}" in err[0] and "extra.unit_pos" in err[0]


@pytest.mark.parametrize("how", ["null", "missing"])
def test_a_game_step_without_its_game_number_is_one_line(tmp_path, capsys, how):
    import json

    path = _tournament_log(tmp_path, games=1)
    lines = path.read_text().splitlines()
    bad = json.loads(lines[2])
    if how == "null":
        bad["extra"]["game"] = None
    else:
        del bad["extra"]["game"]
    lines[2] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    assert main(["metrics", str(path), "-o", str(tmp_path / "m"), "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 3" in err[0] and "extra.game" in err[0]


@pytest.mark.parametrize("config", ["humans: file.csv\nagents: {}\n", "agents: [random]\n"])
def test_a_run_config_of_the_wrong_shape_is_one_line(tmp_path, capsys, config):
    path = _tournament_log(tmp_path, games=1)
    (tmp_path / "config.yaml").write_text(config)
    assert main(["metrics", str(path), "-o", str(tmp_path / "m"), "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    field = "humans" if config.startswith("humans") else "agents"
    assert len(err) == 1 and "config.yaml" in err[0] and f"field {field}" in err[0]
