"""What a person sees in the play and playback windows (issue 27's window list): the board's colours
untouched at a reveal, cones numbered by the cue they answered, "+N" at each reveal, the hovered cell
outlined, names that fit, one naming scheme in messages, and a key press to leave a reveal."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

from dataclasses import replace
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from huesenv.board import format_coord, frame, load_board, parse_coord, ring  # noqa: E402
from huesenv.envs.rendering.renderer import _middle_cut  # noqa: E402
from huesenv.render import BoardRenderer, RenderView, cell_rect  # noqa: E402
from huesenv.render.playback import load_replay_records, views_from_records  # noqa: E402

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def renderer():
    r = BoardRenderer()
    yield r
    r.close()


@pytest.fixture(scope="module")
def reveal():
    views = views_from_records(load_replay_records(DATA / "v1_games.jsonl"), game=0)
    return [v for v in views if v.phase == "reveal"][-1]


def test_the_scoring_area_keeps_the_boards_colours_at_a_reveal(renderer, reveal):
    img = renderer.frame(replace(reveal, cones={}))
    board = load_board()
    cells = [c for c in (*frame(reveal.target), *ring(reveal.target)) if c != reveal.target]
    for cell in cells:
        x, y, w, h = cell_rect(cell)
        inner = img[y + 4 : y + h - 4, x + 4 : x + w - 4].reshape(-1, 3)
        assert (inner == board.rgb[cell]).all(), f"{format_coord(cell)} is drawn in another colour"


def test_cones_are_numbered_by_the_cue_they_answered(renderer):
    a, b = parse_coord("C3"), parse_coord("F9")
    plain = RenderView(players=("p0", "p1", "p2"), cones={a: 1, b: 1}, scores=(0, 0, 0))
    numbered = replace(plain, cone_cues={a: 1, b: 2})
    p, n = renderer.frame(plain), renderer.frame(numbered)
    for cell in (a, b):
        x, y, w, h = cell_rect(cell)
        assert (p[y : y + h, x : x + w] != n[y : y + h, x : x + w]).any()
    xa, ya, wa, ha = cell_rect(a)
    xb, yb, _, _ = cell_rect(b)
    chip_a = n[ya + ha - 11 : ya + ha, xa + wa - 10 : xa + wa]
    chip_b = n[yb + ha - 11 : yb + ha, xb + wa - 10 : xb + wa]
    assert (chip_a != chip_b).any()  # "1" and "2" are different glyphs


def test_a_reveal_view_carries_each_seats_gain_and_draws_it(renderer, reveal):
    assert len(reveal.gains) == len(reveal.players) and sum(reveal.gains) > 0
    without = renderer.frame(replace(reveal, gains=()))
    with_gains = renderer.frame(reveal)
    assert (without[:, 760:] != with_gains[:, 760:]).any()  # the panel shows the "+N" column
    assert (without[:, :750] == with_gains[:, :750]).all()  # and nothing on the board changes


def test_only_the_reveal_shows_gains(reveal):
    views = views_from_records(load_replay_records(DATA / "v1_games.jsonl"), game=0)
    assert all(v.gains == () for v in views if v.phase != "reveal")


def test_messages_name_seats_as_the_legend_does():
    views = views_from_records(load_replay_records(DATA / "v1_games.jsonl"), game=0)
    messages = [v.message for v in views if v.message]
    assert messages and not any(m.startswith("player_") for m in messages)
    assert any(m.startswith("#") for m in messages)


def test_the_hovered_cell_is_outlined(renderer):
    cell = parse_coord("H12")
    base = RenderView(players=("p0", "p1", "p2"), scores=(0, 0, 0))
    a, b = renderer.frame(base), renderer.frame(replace(base, hover=cell))
    x, y, w, h = cell_rect(cell)
    assert (a[y - 3 : y + h + 3, x - 3 : x + w + 3] != b[y - 3 : y + h + 3, x - 3 : x + w + 3]).any()
    assert (a[y + 6 : y + h - 6, x + 6 : x + w - 6] == b[y + 6 : y + h - 6, x + 6 : x + w - 6]).all()


def test_card_cells_have_a_two_pixel_outline(renderer):
    cell = parse_coord("D7")
    img = renderer.frame(RenderView(players=("p0", "p1", "p2"), scores=(0, 0, 0), card=(cell,)))
    x, y, w, h = cell_rect(cell)
    assert (img[y + h // 2, x : x + 2] == 0).all()  # black, 2 px
    assert (img[y + h // 2, x + 2 : x + 4] == 255).all()  # then white, 2 px


def test_long_names_are_cut_in_the_middle_between_their_parts():
    assert _middle_cut("text-embedding:all-MiniLM-L6-v2", 20) == "text-…-L6-v2"
    assert _middle_cut("random", 20) == "random"


def test_the_reveal_waits_for_a_key_in_the_play_window():
    from huesenv.play.human import PlayScreen

    records = [r for r in load_replay_records(DATA / "v1_games.jsonl") if r.extra.get("game") == 0]
    players = sorted({r.extra["player"] for r in records})
    polls = {"n": 0}

    def events():
        polls["n"] += 1
        return (
            [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE, unicode=" ", mod=0)]
            if polls["n"] % 5 == 0
            else []
        )

    screen = PlayScreen(players, agent_delay=0.0, events=events, pause_at_reveal=True, fps=1000)
    first_round = [r for r in records if r.extra["round"] == 0]
    for rec in first_round:
        screen.on_record(rec)
    screen.close()
    assert polls["n"] >= 5  # it waited for the key press after the round's reveal


def test_an_agents_own_fallback_is_said_in_the_window():
    from huesenv.render.playback import AGENT_FALLBACKS

    records = [r for r in load_replay_records(DATA / "v1_games.jsonl") if r.extra.get("game") == 0]
    k = next(i for i, r in enumerate(records) if r.extra["phase"] == "guess_1")
    records[k].extra["agent_fallback"] = "unknown_cue"
    views = views_from_records(records, game=0)
    assert AGENT_FALLBACKS["unknown_cue"] in views[k].message
