"""Naming systems on the board (huesenv.experiments.naming), the self-play options that make lexicons for
them, the study driver, and ``huesenv metrics naming``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from huesenv import cli
from huesenv.board import N_CELLS, format_coord, load_board
from huesenv.experiments import naming as sysmod
from huesenv.humans import load_humans
from huesenv.metrics import naming as ib


@pytest.fixture(scope="module")
def humans():
    return load_humans()


def test_macro_system_is_the_category_map():
    s = sysmod.macro_system()
    assert s.name == "macro" and len(s.words) == 8
    np.testing.assert_array_equal(s.encoder.sum(1), 1.0)
    assert [s.words[i] for i in s.encoder.argmax(1)] == list(load_board().categories)


def test_cohort_by_bayes(humans):
    s = sysmod.cohort_system(humans)
    assert len(s.words) == 100 and s.encoder.shape == (N_CELLS, 100)
    np.testing.assert_allclose(s.encoder.sum(1), 1.0)
    # Bayes with a uniform word prior: q(w|c) ∝ p(c|w); a cell nobody chose is named by the prior
    counts = sysmod.cohort_counts(humans, list(humans.words))
    unseen = np.flatnonzero(counts.sum(0) == 0)
    assert len(unseen) > 0
    p = (counts + sysmod.COHORT_ALPHA) / (counts.sum(1, keepdims=True) + N_CELLS * sysmod.COHORT_ALPHA)
    np.testing.assert_allclose(s.encoder[unseen[0]], p[:, unseen[0]] / p[:, unseen[0]].sum())
    busiest = int(np.argmax(counts.sum(0)))
    assert s.words[int(np.argmax(s.encoder[busiest]))] == list(humans.words)[int(np.argmax(p[:, busiest]))]
    terms = sysmod.cohort_system(humans, colour_terms=True)
    assert set(terms.words) <= set(s.words) and {"SKY", "LAVENDER", "GOLD"} <= set(terms.words)
    assert "SMURF" not in terms.words and len(terms.words) == 34


def test_kmeans_sizes_and_determinism():
    a, b = sysmod.kmeans_system(10, seed=0), sysmod.kmeans_system(10, seed=0)
    assert len(a.words) == 10
    np.testing.assert_array_equal(a.encoder, b.encoder)
    with pytest.raises(ValueError, match="kmeans:0"):
        sysmod.kmeans_system(0)


def _write_map(path, labels):
    path.write_text("coord,word\n" + "".join(f"{format_coord(i)},{w}\n" for i, w in enumerate(labels)))


def test_lexicon_and_consensus_files(tmp_path):
    labels = ["A" if i % 30 < 15 else "B" for i in range(N_CELLS)]
    _write_map(tmp_path / "lexicon_map.csv", labels)
    s = sysmod.build_system(f"lexicon:{tmp_path}")
    assert s.words == ("A", "B") and s.kind == "lexicon"
    cons = tmp_path / "consensus.csv"
    cons.write_text(
        "coord,category\n"
        + "".join(f"{format_coord(i)},{c}\n" for i, c in enumerate(load_board().categories))
    )
    c = sysmod.build_system(f"consensus:{cons}")
    np.testing.assert_array_equal(c.encoder, sysmod.macro_system().encoder)
    bad = tmp_path / "bad.csv"
    bad.write_text("coord,word\nA1,x\nA1,y\n")
    with pytest.raises(ValueError, match=r"bad.csv: line 3: coord: cell A1 given twice"):
        sysmod.build_system(f"lexicon:{bad}")
    bad.write_text("coord,word\nZ99,x\n")
    with pytest.raises(ValueError, match="line 2: coord"):
        sysmod.build_system(f"lexicon:{bad}")
    bad.write_text("where,word\n")
    with pytest.raises(ValueError, match="line 1: expected columns coord"):
        sysmod.build_system(f"lexicon:{bad}")
    bad.write_text("coord,word\nA1,x\n")
    with pytest.raises(ValueError, match="expected a label for each of the 480 cells, got 1"):
        sysmod.build_system(f"lexicon:{bad}")
    with pytest.raises(ValueError, match="expected macro, cohort"):
        sysmod.build_system("nope")


def test_analyse_on_a_small_grid(humans):
    systems = [sysmod.macro_system(), sysmod.kmeans_system(8), sysmod.cohort_system(humans)]
    # the frontier itself is tested in test_metrics_naming; here a coarse grid keeps this fast
    table, front, model = sysmod.analyse(systems, betas=np.array([1.3, 1.15, 1.0]), cache_dir=False)
    assert list(table["system"]) == ["macro", "kmeans-8", "cohort"]
    for col in ("words", "complexity_bits", "accuracy_bits", "efficiency_loss", "gnid", "sigma2", "need"):
        assert col in table
    macro = table.iloc[0]
    assert macro["words"] == 8 and 2.0 < macro["complexity_bits"] < 3.0
    assert (table["efficiency_loss"] >= 0).all() and table["gnid"].between(0, 1).all()
    assert table.loc[1, "accuracy_bits"] > macro["accuracy_bits"]  # k-means in CIELAB beats the macro map


@pytest.mark.xdist_group(
    "model_libraries"
)  # imports open_clip: on the worker that has it (test_agents_text_embedding.py)
def test_clip_naming_on_random_weights(tmp_path):
    open_clip = pytest.importorskip("open_clip")
    torch = pytest.importorskip("torch")
    import json

    cfg = {
        "embed_dim": 32,
        "vision_cfg": {"image_size": 32, "layers": 1, "width": 64, "head_width": 32, "patch_size": 16},
        "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
    }
    (tmp_path / "huesenv-naming-tiny.json").write_text(json.dumps(cfg))
    open_clip.add_model_config(tmp_path)
    torch.manual_seed(0)
    ckpt = tmp_path / "random.pt"
    torch.save(open_clip.create_model("huesenv-naming-tiny", pretrained=None).state_dict(), ckpt)
    s = sysmod.build_system(f"clip:huesenv-naming-tiny/{ckpt}", device="cpu", cache_dir=tmp_path / "cache")
    assert s.kind == "clip" and 1 <= len(s.words) <= 11
    assert set(s.words) <= {
        "black",
        "white",
        "red",
        "green",
        "yellow",
        "blue",
        "brown",
        "purple",
        "pink",
        "orange",
        "grey",
    }
    model = ib.ib_model()
    assert 0 <= ib.complexity(model, s.encoder) <= np.log2(len(s.words)) + 1e-9


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert cli.main(["metrics", "naming", "--systems", "kmeans:x", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("huesenv metrics naming: error:") and "kmeans:K" in err and len(err.splitlines()) == 1
    )
    assert cli.main(["metrics", "naming", "--sigma2", "-1", "-o", str(tmp_path / "o")]) == 2
    assert (
        cli.main(["metrics", "naming", "--systems", f"lexicon:{tmp_path / 'missing'}", "-o", str(tmp_path)])
        == 2
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.integration
def test_cli_writes_table_and_figure(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HUESENV_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    rc = cli.main(["metrics", "naming", "--systems", "macro", "kmeans", "--betas", "2", "-o", str(out)])
    assert rc == 0
    table = pd.read_csv(out / "naming.csv")
    assert list(table["system"]) == ["macro", "kmeans-8"]
    assert set(table["need"]) == {"uniform"} and set(table["sigma2"]) == {64.0}
    assert set(table["human_reference"]) == {"Reconstructed cohort (316 simulated participants, not people)"}
    assert "Human reference: Reconstructed cohort" in capsys.readouterr().out
    assert (out / "naming.png").stat().st_size > 0 and (out / "naming_frontier.csv").exists()
    assert list((tmp_path / "cache" / "ib").glob("frontier-*.npz"))


# -- self-play options and the study ------------------------------------------------------------------------------
def test_selfplay_vocab_size_perceptual_reward_and_maps(tmp_path):
    pytest.importorskip("torch")
    from huesenv.experiments.rl.selfplay import SelfPlay, SelfPlayConfig, reward_matrices, train_selfplay

    cfg = SelfPlayConfig(
        total_games=2 * 64,
        num_games=64,
        hidden=16,
        snapshot_every=1,
        checkpoint_every=1,
        device="cpu",
        vocab_size=4,
        reward="perceptual",
        torch_threads=1,
    )
    game = SelfPlay(cfg, "cpu")
    assert int(game.allowed.sum()) == 4
    points, credit = reward_matrices(cfg)
    assert (
        points.shape == (N_CELLS, N_CELLS)
        and np.allclose(np.diag(points), 3.0)
        and np.allclose(points, 3 * credit)
    )
    lab = load_board().lab
    d2 = ((lab[0] - lab[1]) ** 2).sum()
    assert credit[0, 1] == pytest.approx(np.exp(-d2 / 128.0))
    train_selfplay(cfg, tmp_path, progress=False, figure=False)
    maps = pd.read_csv(tmp_path / "lexicon_maps.csv")
    assert sorted(set(maps["step"])) == [0, 64, 128] and len(maps) == 3 * N_CELLS
    s = sysmod.build_system(f"lexicon:{tmp_path}")
    assert len(s.words) <= 4
    with pytest.raises(ValueError, match="reward: expected one of"):
        SelfPlayConfig(reward="points")


def test_study_driver_tiny(tmp_path):
    pytest.importorskip("torch")
    from huesenv.experiments.rl import naming_study as study

    small = ib.default_betas(2, n_low=3)
    cfg = study.StudyConfig(
        seeds=2, sizes=(4,), rewards=("frame",), updates=2, num_games=32, hidden=8, snapshot_every=1
    )
    summary = study.run_study(cfg, tmp_path, betas=small, progress=False)
    curves = pd.read_csv(tmp_path / "curves.csv")
    assert len(curves) == 2 * 3 and set(curves["update"]) == {0, 1, 2}
    assert summary.loc[0, "seeds"] == 2 and "efficiency_loss_lo" in summary
    assert (tmp_path / "lexicons" / "frame-v4-s1.csv").exists() and (tmp_path / "curves.png").exists()
    assert study.interval([1.0, 1.0, 1.0])[1:] == (1.0, 1.0)
    for name in ("curves.csv", "final.csv", "summary.csv", "kmeans.csv"):
        assert (pd.read_csv(tmp_path / name)["human_reference"] == study.NO_HUMAN_REFERENCE).all(), name
    assert json.loads((tmp_path / "study.json").read_text())["env"].startswith("full vectorised game")
    # two folders (e.g. the rewards run in two processes) merge into one study with the same summary
    part = tmp_path / "part"
    part.mkdir()
    curves[curves["seed"] == 1].to_csv(part / "curves.csv", index=False)
    first = tmp_path / "first"
    first.mkdir()
    curves[curves["seed"] == 0].to_csv(first / "curves.csv", index=False)
    merged = study.merge([first, part], tmp_path / "merged")
    cols = ["efficiency_loss", "efficiency_loss_lo", "nmi_macro_colour"]
    assert np.allclose(merged[cols].to_numpy(), summary[cols].to_numpy())
    with pytest.raises(ValueError, match="no such file"):
        study.merge([tmp_path / "nowhere"], tmp_path / "m2")
    # overlapping folders would count a run twice and narrow the bands: refused, naming the run
    with pytest.raises(ValueError, match=r"run reward=frame vocab_size=4 seed=1: also in"):
        study.merge([tmp_path, part], tmp_path / "m3")
    assert not (tmp_path / "m3").exists()
    whole = study.merge([tmp_path], tmp_path / "m4")  # one whole folder: its lexicons and a study.json
    assert np.allclose(whole[cols].to_numpy(), summary[cols].to_numpy())
    assert (tmp_path / "m4" / "lexicons" / "frame-v4-s1.csv").exists()
    meta = json.loads((tmp_path / "m4" / "study.json").read_text())
    assert meta["merged_from"] == [str(tmp_path)] and meta["parts"][0]["config"]["seeds"] == 2
    assert study.main(["-o", str(tmp_path / "m5"), "--merge", str(tmp_path), str(tmp_path)]) == 2
