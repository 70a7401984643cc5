"""Playback: logged game → one view per step, export to GIF/MP4/PNGs, the replay controls, ``huesenv replay``."""

import os
import sys

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")
iio = pytest.importorskip("imageio.v3")

from huesenv.agents.protocol import Answer, BaseAgent
from huesenv.board import parse_coord
from huesenv.envs.rendering.renderer import FRAME_INNER, cone_colour
from huesenv.logs.schema import SCHEMA_VERSION, LogRecord
from huesenv.render import BoardRenderer, RenderView, cell_center, views_from_records
from huesenv.render.playback import ReplayController, export_frames, run_replay, with_final_standings


def step(
    game,
    rnd,
    player,
    phase,
    *,
    cell=None,
    target=None,
    points=0,
    word=None,
    passed=False,
    valid=True,
    agent=None,
):
    """One record as ``play_game`` writes it: ``valid=False`` is a random fallback, ``cell``/``word`` what was played."""
    agent = agent or AGENTS[player]
    role = "cue_giver" if phase in ("pick_target", "cue_1", "cue_2") else "guesser"
    extra = {
        "game": game,
        "round": rnd,
        "player": player,
        "role": role,
        "phase": phase,
        "cue_index": 2 if phase in ("cue_2", "guess_2") else 1,
        "cell": cell,
        "points": points,
        "passed": passed,
    }
    if target is not None:
        extra["target"] = target
        if phase == "pick_target" and cell is None:
            extra["cell"] = target  # the picked target is the pick's cell
    if not valid:
        extra["fallback"] = "invalid answer"
    return LogRecord.create(
        kind="game_step",
        run_id="t",
        agent_id=agent,
        seed=0,
        episode=game,
        word=word,
        valid=valid,
        extra=extra,
    )


AGENTS = {"player_0": "random", "player_1": "human-replay", "player_2": "clip:ViT-B-32/openai"}


def one_game(game=0):
    """A legal game as ``play_game`` logs it: 3 players, 2 rounds (0-based, like the env), 20 step records.

    The points are the rules' own (the replay re-scores every round): round 0 gives (2, 3, 2),
    round 1 (cue 2 passed, a random-fallback cone far away) brings the totals to (2, 4, 4).
    """
    p0, p1, p2 = "player_0", "player_1", "player_2"
    return [
        step(game, 0, p0, "pick_target", target="I18"),
        step(game, 0, p0, "cue_1", word="OCEAN", target="I18"),
        step(game, 0, p1, "guess_1", cell="I17"),
        step(game, 0, p2, "guess_1", cell="A1"),
        step(game, 0, p0, "cue_2", word="DEEP SEA", target="I18"),
        step(game, 0, p2, "guess_2", cell="J19"),
        step(game, 0, p1, "guess_2", cell="K20"),
        step(game, 0, p1, "reveal", points=3, target="I18"),
        step(game, 0, p2, "reveal", points=2, target="I18"),
        step(game, 0, p0, "reveal", points=2, target="I18"),
        step(game, 1, p1, "pick_target", target="A1"),
        step(game, 1, p1, "cue_1", word="BLOOD"),
        step(game, 1, p2, "guess_1", cell="B2"),
        step(game, 1, p0, "guess_1", cell="D4"),
        step(game, 1, p1, "cue_2", passed=True),
        step(game, 1, p0, "guess_2", cell="P30", valid=False),  # the env's random fallback cone
        step(game, 1, p2, "guess_2", cell="O30"),
        step(game, 1, p2, "reveal", points=2, target="A1"),
        step(game, 1, p1, "reveal", points=1, target="A1"),
        step(game, 1, p0, "reveal", points=0, target="A1"),
    ]


def test_one_view_per_step_and_state_follows_the_log():
    records = one_game()
    views = views_from_records(records)
    assert len(views) == len(records) == 20
    assert views[0].players == ("player_0", "player_1", "player_2")
    assert views[0].labels[1] == "player_1 (human-replay)"
    assert views[0].target is None  # a spectator does not see it before the reveal
    assert views[1].cues == ("OCEAN",) and views[1].cue_giver == 0
    assert views[6].cones == {
        parse_coord("I17"): 1,
        parse_coord("A1"): 2,
        parse_coord("J19"): 2,
        parse_coord("K20"): 1,
    }
    assert views[6].cues == ("OCEAN", "DEEP SEA") and views[6].target is None
    assert views[7].target == parse_coord("I18") and views[7].phase == "reveal"
    assert views[9].scores == (2, 3, 2)
    # round 2: cones, cues and target cleared, scores kept
    assert views[10].cones == {} and views[10].cues == () and views[10].target is None
    assert views[10].scores == (2, 3, 2) and views[10].round == 1
    assert views[14].cues == ("BLOOD",) and "passes" in views[14].message
    # a fallback is what was played: the cone is on the board, the status line says it was random
    assert views[15].cones[parse_coord("P30")] == 0 and "random fallback" in views[15].message
    assert views[-1].cones == {parse_coord(c): s for c, s in (("B2", 2), ("D4", 0), ("P30", 0), ("O30", 2))}
    assert views[-1].scores == (2, 4, 4)
    always = views_from_records(records, reveal_target="always")
    assert always[0].target == parse_coord("I18")
    # every reveal frame names every seat that scored, not only its own record's
    assert views[-1].message == "Round scored: #1 human-replay +1, #2 clip:ViT-B-32/openai +2"


def test_seats_are_labelled_with_the_experiments_agent_names():
    records = [
        LogRecord.create(**{**r.model_dump(exclude={"extra"}), "extra": {**r.extra, "seat_agent": "human"}})
        for r in one_game()
    ]
    assert views_from_records(records)[0].labels[1] == "player_1 (human)"  # the name the report uses


def test_fallback_moves_are_shown_and_a_truncated_log_stops_with_a_note():
    """A game cut short after cue 2 (a crash): one frame per record, the last one says the log ends."""
    p0, p1, p2 = "player_0", "player_1", "player_2"
    records = [
        step(0, 0, p0, "pick_target", target="I18", cell="I18", valid=False),
        step(0, 0, p0, "cue_1", word="OCEAN", target="I18", valid=False),
        step(0, 0, p1, "guess_1", cell="C3", valid=False),  # the env's random cone
        step(0, 0, p2, "guess_1", cell="A1"),
        step(0, 0, p0, "cue_2", passed=True, valid=False),  # cue 2 falls back to a pass
    ]
    views = views_from_records(records)
    assert len(views) == 5
    assert "random fallback" in views[0].message
    assert (
        views[1].cues == ("OCEAN",) and views[1].message == "#0 random says: OCEAN (random fallback)"
    )  # named as in the legend
    assert views[2].cones == {parse_coord("C3"): 1} and "random fallback" in views[2].message
    assert views[3].cones == {parse_coord("C3"): 1, parse_coord("A1"): 2}
    assert (
        views[4].cues == ("OCEAN",) and "passes" in views[4].message and "random fallback" in views[4].message
    )
    assert "the log ends here (game cut short)" in views[-1].message
    assert "the log ends here" not in views[-2].message
    assert len(with_final_standings(views)) == 5  # no standings for a game cut short
    complete = views_from_records(one_game())
    assert not any("the log ends here" in v.message for v in complete)


def test_records_the_rules_cannot_replay_are_errors_naming_record_and_field():
    p0, p1 = "player_0", "player_1"
    opening = [step(0, 0, p0, "pick_target", target="I18"), step(0, 0, p0, "cue_1", word="OCEAN")]
    later = [step(0, 0, "player_2", "guess_1", cell="A1")]  # every seat shows up in the log
    nothing_played = opening + [step(0, 0, p1, "guess_1", cell=None, valid=False)] + later
    with pytest.raises(ValueError, match=r"game 0, game_step record 3, field extra\.cell: missing"):
        views_from_records(nothing_played)
    no_cue = [opening[0], step(0, 0, p0, "cue_1"), step(0, 0, p1, "guess_1", cell="B2")] + later
    with pytest.raises(ValueError, match=r"record 2, field extra\.cue: .*pass"):
        views_from_records(no_cue)
    out_of_turn = opening + [
        step(0, 0, "player_2", "guess_1", cell="A1"),
        step(0, 0, p1, "guess_1", cell="B2"),
    ]
    with pytest.raises(
        ValueError, match=r"record 3: the log has player_2 in phase guess_1, the rules expect"
    ):
        views_from_records(out_of_turn)


class Unusable(BaseAgent):
    """Always answers something the env cannot use, so every move of its seat is a random fallback."""

    name = "unusable"

    def guess(self, query):
        return Answer(valid=False, raw_text="??")

    def give_cue(self, query):
        return Answer(valid=False, raw_text="??")


@pytest.mark.parametrize("cue_mode", ["text", "vocabulary"])
def test_replay_of_fallback_moves_matches_the_game(cue_mode):
    """Real play_game output with unusable agents: every played cone and cue is on the replayed board."""
    pytest.importorskip("pettingzoo")
    from huesenv.agents import RandomAgent
    from huesenv.envs import play_game

    seats = [f"player_{k}" for k in range(4)]
    agents = {s: Unusable() if k != 2 else RandomAgent(seed=5) for k, s in enumerate(seats)}
    result = play_game(agents, num_players=4, seed=21, cue_mode=cue_mode, game_index=2)
    fallbacks = [r for r in result.records if not r.valid]
    assert fallbacks and all("fallback" in r.extra for r in fallbacks)
    assert {r.extra["phase"] for r in fallbacks} >= {"pick_target", "cue_1", "guess_1", "guess_2"}
    views = views_from_records(result.records)
    assert len(views) == len(result.records)
    reveals = [v for r, v in zip(result.records, views) if r.extra["phase"] == "reveal"]
    by_round = {}
    for r, v in zip(result.records, views):
        if r.extra["phase"] == "reveal":
            by_round[r.extra["round"]] = v  # the view after the round's last reveal record
    assert len(by_round) == len(result.rounds) and reveals
    for rnd in result.rounds:
        view = by_round[rnd.round]
        assert view.cones == {c.cell: c.seat for c in rnd.cones}
        assert view.cues == tuple(c for c in rnd.cues if c is not None)
        assert view.target == rnd.target
    assert views[-1].scores == tuple(result.scores[s] for s in seats)
    for rec, view in zip(result.records, views):
        if not rec.valid:
            assert "random fallback" in view.message


def test_games_are_separated_and_selectable():
    records = one_game(0) + one_game(1)
    assert len(views_from_records(records)) == 40
    g1 = views_from_records(records, game=1)
    assert len(g1) == 20 and g1[0].scores == (0, 0, 0)
    with pytest.raises(ValueError, match="game 5"):
        views_from_records(records, game=5)
    other = LogRecord.create(kind="word_query", run_id="t", agent_id="random", word="OCEAN")
    assert len(views_from_records([other] + one_game())) == 20


def test_bad_records_name_the_record_and_field():
    records = one_game()
    del records[3].extra["player"]
    with pytest.raises(ValueError, match=r"record 4, field extra\.player"):
        views_from_records(records)
    records = one_game()
    records[5].extra["cell"] = "I17"  # occupied already
    with pytest.raises(ValueError, match=r"record 6, field extra\.cell: .*I17 already holds"):
        views_from_records(records)
    records = one_game()
    records[2].extra["cell"] = "Z99"
    with pytest.raises(ValueError, match=r"record 3, field extra\.cell"):
        views_from_records(records)
    records = one_game()
    records[2].extra["phase"] = "dance"
    with pytest.raises(ValueError, match=r"extra\.phase"):
        views_from_records(records)


def test_replayed_frames_show_the_logged_cones_and_frame():
    views = views_from_records(one_game())
    img = BoardRenderer().frame(views[7])
    for coord, seat in (("I17", 1), ("A1", 2), ("J19", 2), ("K20", 1)):
        x, y = cell_center(parse_coord(coord))
        assert tuple(img[y, x]) == cone_colour(seat)
    from huesenv.render import frame_rect

    x, y, w, h = frame_rect(parse_coord("I18"))
    assert tuple(img[y, x + w // 2]) == FRAME_INNER


def test_export_gif_png_dir_and_mp4(tmp_path):
    views = views_from_records(one_game())[:6]
    r = BoardRenderer()
    assert export_frames(views, tmp_path / "g.gif", fps=5, renderer=r) == 6
    gif = iio.imread(tmp_path / "g.gif", index=None)
    assert gif.shape[0] == 6 and gif.shape[1:3] == (480, 1024)
    # GIF is palette-quantised: colours close to the lossless frame
    assert np.abs(gif[3, ..., :3].astype(int) - r.frame(views[3]).astype(int)).mean() < 4
    assert export_frames(views, tmp_path / "frames", renderer=r) == 6
    pngs = sorted((tmp_path / "frames").glob("frame_*.png"))
    assert len(pngs) == 6
    assert np.array_equal(iio.imread(pngs[2]), r.frame(views[2]))
    pytest.importorskip("imageio_ffmpeg")
    assert export_frames(views, tmp_path / "g.mp4", fps=4, renderer=r) == 6
    mp4 = iio.imread(tmp_path / "g.mp4", index=None, plugin="pyav") if _has_pyav() else None
    if mp4 is None:
        import imageio.v2 as iio2

        with iio2.get_reader(tmp_path / "g.mp4", format="FFMPEG") as reader:
            mp4 = [f for f in reader]
    assert len(mp4) == 6
    with pytest.raises(ValueError, match="unsupported export format"):
        export_frames(views, tmp_path / "g.avi", renderer=r)


def _has_pyav():
    try:
        import av  # noqa: F401
    except ImportError:
        return False
    return True


def _key(key, char=""):
    return pygame.event.Event(pygame.KEYDOWN, key=key, unicode=char, mod=0)


def test_replay_controls():
    ctl = ReplayController(10, fps=4)
    ctl.advance(0.26)
    assert ctl.index == 1
    ctl.handle_event(_key(pygame.K_SPACE, " "))
    assert not ctl.playing
    ctl.advance(5.0)
    assert ctl.index == 1
    ctl.handle_event(_key(pygame.K_RIGHT))
    ctl.handle_event(_key(pygame.K_RIGHT))
    assert ctl.index == 3
    ctl.handle_event(_key(pygame.K_LEFT))
    assert ctl.index == 2
    ctl.handle_event(_key(pygame.K_PLUS, "+"))
    assert ctl.fps == 8
    ctl.handle_event(_key(pygame.K_MINUS, "-"))
    ctl.handle_event(_key(pygame.K_MINUS, "-"))
    assert ctl.fps == 2
    ctl.handle_event(_key(pygame.K_SPACE, " "))
    ctl.advance(100.0)
    assert ctl.index == 9 and not ctl.playing  # stops at the end
    ctl.handle_event(_key(pygame.K_q, "q"))
    assert not ctl.running


def test_run_replay_reads_events_from_the_window_queue():
    from huesenv.envs.rendering.window import Window

    views = views_from_records(one_game())
    r = BoardRenderer()
    win = Window(r.size, "test")
    t = iter(np.arange(0, 100, 0.3))
    pygame.event.post(_key(pygame.K_RIGHT))
    pygame.event.post(_key(pygame.K_RIGHT))
    pygame.event.post(_key(pygame.K_q, "q"))
    ctl = run_replay(views, renderer=r, window=win, clock=lambda: float(next(t)), max_seconds=30)
    assert not ctl.running and ctl.index == 2
    shown = np.frombuffer(pygame.image.tobytes(win.screen, "RGB"), dtype=np.uint8).reshape(480, 1024, 3)
    assert np.array_equal(
        shown[:416], r.frame(views[2])[:416]
    )  # board identical; status line has the controls
    win.close()


def test_cli_replay_export(tmp_path):
    from huesenv.cli import main
    from huesenv.logs import LogWriter

    log = tmp_path / "game.jsonl"
    with LogWriter(log) as w:
        w.append(one_game(0))
        w.append(one_game(1)[:5])
    assert main(["replay", str(log), "--export", str(tmp_path / "out.gif")]) == 0
    # + the final standings; a round's 3 reveal frames all name every scorer, the GIF keeps one of them
    assert iio.imread(tmp_path / "out.gif", index=None).shape[0] == 20 + 1 - 2 * 2
    assert main(["replay", str(log), "--export", str(tmp_path / "bare"), "--no-standings"]) == 0
    assert len(list((tmp_path / "bare").glob("*.png"))) == 20
    assert main(["replay", str(log), "--game", "1", "--export", str(tmp_path / "pngs")]) == 0
    assert len(list((tmp_path / "pngs").glob("*.png"))) == 5  # cut short: no standings frame
    assert main(["replay", str(log), "--game", "7", "--export", str(tmp_path / "x.gif")]) == 2


def _tagged(records, key):
    for pos, rec in enumerate(records):
        rec.extra.update(unit=key, unit_size=len(records), unit_pos=pos)
    return records


def test_cli_replay_keeps_only_complete_unit_blocks(tmp_path):
    """A block cut short by a crash, then the rerun's complete block of the same game: replay shows the latter."""
    from huesenv.cli import main
    from huesenv.logs import LogWriter
    from huesenv.render.playback import load_replay_records

    log = tmp_path / "games.jsonl"
    crashed = _tagged(one_game(1), "game:1")[:7]  # the writer died after 7 of 20 records
    with LogWriter(log) as w:
        w.append(_tagged(one_game(0), "game:0"))
        w.append(crashed)
        w.append(_tagged(one_game(1), "game:1"))
        again = _tagged(one_game(0), "game:0")
        again[-1].extra["points"] = 9
        w.append(again)  # a second complete block of game 0: the first is kept, as the tables count it
    with pytest.raises(ValueError, match="game 1, game_step record 8"):  # the two blocks merged: not a game
        views_from_records(read_all(log), game=1)
    records = load_replay_records(log)
    assert len(records) == 40
    assert [r.extra["unit_pos"] for r in records] == list(range(20)) * 2
    views = views_from_records(records, game=1)
    assert len(views) == 20 and views[-1].scores == (2, 4, 4)
    assert views_from_records(records, game=0)[-1].scores == (2, 4, 4)
    assert main(["replay", str(log), "--game", "1", "--export", str(tmp_path / "g1")]) == 0
    assert len(list((tmp_path / "g1").glob("*.png"))) == 20 + 1
    # a log without unit tags is replayed as written
    plain = tmp_path / "plain.jsonl"
    with LogWriter(plain) as w:
        w.append(one_game(0))
    assert len(load_replay_records(plain)) == 20


def read_all(path):
    from huesenv.logs import read_records

    return read_records(path).records


def test_replays_a_game_played_by_the_env(tmp_path):
    """Records written by the env's play_game replay step by step and end on the env's final scores."""
    pytest.importorskip("pettingzoo")
    from huesenv.agents import RandomAgent
    from huesenv.envs import play_game

    seats = [f"player_{k}" for k in range(3)]
    result = play_game(
        {s: RandomAgent(seed=k) for k, s in enumerate(seats)},
        num_players=3,
        seed=11,
        cue_mode="text",
        game_index=4,
    )
    views = views_from_records(result.records)
    assert len(views) == len(result.records)
    assert views[-1].scores == tuple(result.scores[s] for s in seats)
    for rec, view in zip(result.records, views):
        if rec.extra["phase"] in ("guess_1", "guess_2"):  # fallbacks included: they were played
            assert view.cones[parse_coord(rec.extra["cell"])] == seats.index(rec.extra["player"])
        if rec.extra["phase"] == "reveal":
            assert view.target == parse_coord(rec.extra["target"])
        else:
            assert view.target is None
    assert export_frames(views[:12], tmp_path / "env.gif", renderer=BoardRenderer()) == 12


def test_export_and_replay_reject_bad_arguments(tmp_path):
    views = views_from_records(one_game())[:2]
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        export_frames(views, tmp_path / "file")
    with pytest.raises(ValueError, match="fps"):
        export_frames(views, tmp_path / "a.gif", fps=0)
    with pytest.raises(ValueError, match="no game_step"):
        export_frames([], tmp_path / "a.gif")
    with pytest.raises(ValueError, match="fps"):
        ReplayController(3, fps=0)


def test_final_standings_frame_ring_outline_and_names_that_fit():
    from huesenv.envs.rendering.layout import frame_rect, ring_rect
    from huesenv.render.playback import with_final_standings

    r = BoardRenderer()
    views = views_from_records(one_game(0) + one_game(1))
    out = with_final_standings(views)
    assert len(out) == len(views) + 2  # one after each game that ended with a reveal
    final = [v for v in out if v.final]
    assert [v.scores for v in final] == [(2, 4, 4), (2, 4, 4)]
    assert final[0].message.startswith("Game over: ")
    last, standings = r.frame(out[20]), r.frame(out[21])
    assert not np.array_equal(last[24:408, 28:748], standings[24:408, 28:748])  # the box over the board
    # the 5x5 ring outline at the reveal: on the ring's border, not on the 3x3 frame's
    reveal = out[9]
    assert reveal.phase == "reveal" and reveal.target is not None
    x, y, w, h = ring_rect(reveal.target)
    fx, fy, fw, fh = frame_rect(reveal.target)
    assert (w, h) == (5 * 24, 5 * 24) and (fx - x, fy - y) == (24, 24)
    plain = r.frame(RenderView(**{**reveal.__dict__, "phase": "guess_2"}))
    shown = r.frame(reveal)
    assert (shown[y : y + h, x] != plain[y : y + h, x]).any(axis=1).sum() > h // 2  # left edge drawn
    # a long name keeps the "(cue)" marker: the row differs from the same name without it
    long = "player_0 (clip:hf-hub:timm/ViT-SO400M-14-SigLIP-384-extra-long-name)"
    base = dict(players=("player_0", "player_1", "player_2"), labels=(long, "player_1 (random)", "p2"))
    cue = r.frame(RenderView(**base, cue_giver=0, scores=(1, 2, 3)))
    nocue = r.frame(RenderView(**base, cue_giver=1, scores=(1, 2, 3)))
    rows = np.flatnonzero((cue[:, 762:] != nocue[:, 762:]).any(axis=(1, 2)))
    assert rows.size
    # the marker sits at the right end of the name column, before the score
    first_row = cue[rows.min() : rows.min() + 18, 900:960]
    assert (first_row != cue[rows.min(), 1020]).any()


def test_cli_replay_list_and_no_display(tmp_path, capsys, monkeypatch):
    from huesenv.cli import main
    from huesenv.logs import LogWriter

    log = tmp_path / "game.jsonl"
    with LogWriter(log) as w:
        w.append(one_game(0))
        w.append(one_game(1)[:5])
    assert main(["replay", str(log), "--list"]) == 0
    out = capsys.readouterr().out
    assert "2 game(s)" in out and "(2), " in out and "[incomplete]" in out
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    assert main(["replay", str(log)]) == 2  # instead of waiting forever on an invisible window
    err = capsys.readouterr().err
    assert "no display for an interactive replay" in err and "--export game.gif" in err
    monkeypatch.setenv("SDL_VIDEODRIVER", "x11")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform.startswith("linux"):
        assert main(["replay", str(log)]) == 2
        assert "DISPLAY" in capsys.readouterr().err


def _logged_scores(records):
    """Per seat, the points the log's reveal records carry (what the tables were computed from)."""
    from huesenv.game.replay import seat_order

    totals = {}
    for rec in records:
        if rec.kind == "game_step":
            player = rec.extra["player"]
            totals[player] = totals.get(player, 0) + int(rec.extra.get("points") or 0)
    return tuple(totals[p] for p in sorted(totals, key=seat_order))


def test_replay_of_the_default_runs_v1_log_reproduces_its_scores():
    """The default run's version-1 log (normalised to v2 on read) replays through the rules to its logged scores."""
    from pathlib import Path

    from huesenv.render.playback import game_summaries, load_replay_records

    records = load_replay_records(Path(__file__).parent / "data" / "v1_games.jsonl")
    summaries = game_summaries(records)
    assert summaries and all(s["complete"] for s in summaries)
    for summary in summaries:
        game = [r for r in records if r.extra.get("game") == summary["game"]]
        views = views_from_records(game)
        assert len(views) == len(game)
        assert views[-1].scores == _logged_scores(game) == tuple(summary["scores"])
        assert any(v.phase == "reveal" and v.target is not None for v in views)


def test_replay_of_a_fresh_v2_log_reproduces_its_scores(tmp_path):
    """Games played now, written as v2 and read back: replay ends on each game's logged and played scores."""
    pytest.importorskip("pettingzoo")
    from huesenv.agents import RandomAgent
    from huesenv.envs import play_game
    from huesenv.logs import LogWriter
    from huesenv.render.playback import load_replay_records

    seats = [f"player_{k}" for k in range(4)]
    log = tmp_path / "fresh.jsonl"
    results = []
    with LogWriter(log) as w:
        for g in range(2):
            agents = {s: Unusable() if k == 1 else RandomAgent(seed=k + g) for k, s in enumerate(seats)}
            result = play_game(agents, num_players=4, seed=30 + g, game_index=g)
            results.append(result)
            w.append(result.records)
    records = load_replay_records(log)
    assert {r.schema_version for r in records} == {
        SCHEMA_VERSION
    }  # the current version (3 since the pydantic models)
    for g, result in enumerate(results):
        game = [r for r in records if r.extra["game"] == g]
        views = views_from_records(records, game=g)
        played = tuple(result.scores[s] for s in seats)
        assert views[-1].scores == _logged_scores(game) == played
        assert any("random fallback" in v.message for v in views)  # seat 1's moves were all fallbacks


def test_cli_replay_of_a_log_the_rules_reject_is_one_line_naming_file_record_and_field(tmp_path, capsys):
    from huesenv.cli import main
    from huesenv.logs import LogWriter

    records = one_game()
    records[5].extra["cell"] = "I17"  # a second cone on I17
    log = tmp_path / "bad.jsonl"
    with LogWriter(log) as w:
        w.append(records)
    assert main(["replay", str(log), "--export", str(tmp_path / "out.gif")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{log}: game 0, game_step record 6, field extra.cell: the rules reject this move" in err
    assert not (tmp_path / "out.gif").exists()
