"""The board renderer: documented frame size, exact cell colours, cones, target and frame where the view says."""

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")

from huesenv.board import N_CELLS, format_coord, frame, load_board, parse_coord  # noqa: E402 - after the pygame skip
from huesenv.envs.rendering.layout import ring_rect  # noqa: E402
from huesenv.envs.rendering.renderer import CONE_COLOURS, FRAME_INNER, FRAME_OUTER, cone_colour  # noqa: E402
from huesenv.render import BoardRenderer, RenderView, cell_at, cell_center, cell_rect, frame_rect  # noqa: E402

PLAYERS = ("player_0", "player_1", "player_2", "player_3")


@pytest.fixture(scope="module")
def renderer():
    return BoardRenderer()


def test_frame_has_documented_size_and_opens_no_window(renderer):
    img = renderer.frame(RenderView(players=PLAYERS))
    assert img.shape == (480, 1024, 3) == renderer.shape
    assert img.dtype == np.uint8
    assert renderer.size == (1024, 480)
    assert not pygame.display.get_init()  # off-screen only
    assert BoardRenderer.metadata["render_fps"] > 0
    assert set(BoardRenderer.metadata["render_modes"]) == {"human", "rgb_array"}


def test_cell_geometry_is_the_documented_grid():
    assert cell_rect(0) == (28, 24, 24, 24)
    assert cell_rect(parse_coord("I18")) == (28 + 24 * 17, 24 + 24 * 8, 24, 24)
    assert cell_rect(N_CELLS - 1) == (28 + 24 * 29, 24 + 24 * 15, 24, 24)
    for i in (0, 17, 29, 30, 250, 479):
        x, y = cell_center(i)
        assert cell_at(x, y) == i
        rx, ry, w, h = cell_rect(i)
        assert cell_at(rx, ry) == i and cell_at(rx + w - 1, ry + h - 1) == i
    assert cell_at(5, 5) is None and cell_at(1000, 100) is None and cell_at(100, 470) is None
    with pytest.raises(ValueError):
        cell_rect(480)


def test_every_cell_centre_shows_its_srgb(renderer):
    img = renderer.frame(RenderView(players=PLAYERS))
    rgb = load_board().rgb
    centres = np.array([cell_center(i) for i in range(N_CELLS)])
    got = img[centres[:, 1], centres[:, 0]]
    np.testing.assert_array_equal(got, rgb)
    # whole cell interiors too (2 px inside the edges), not only the centre
    for i in (0, 123, 479):
        x, y, w, h = cell_rect(i)
        assert (img[y + 2 : y + h - 2, x + 2 : x + w - 2] == rgb[i]).all()


def test_cones_appear_where_the_state_says(renderer):
    cones = {parse_coord("I18"): 0, parse_coord("A1"): 1, parse_coord("P30"): 2, parse_coord("H17"): 3}
    img = renderer.frame(RenderView(players=PLAYERS, cones=cones))
    rgb = load_board().rgb
    for cell, seat in cones.items():
        x, y = cell_center(cell)
        assert tuple(img[y, x]) == cone_colour(seat), format_coord(cell)
    # every other cell is untouched at its centre
    for i in range(N_CELLS):
        if i not in cones:
            x, y = cell_center(i)
            assert tuple(img[y, x]) == tuple(rgb[i])
    assert len(set(CONE_COLOURS)) == 10


def test_scoring_frame_and_target_only_at_reveal(renderer):
    target = parse_coord("I18")
    reveal = renderer.frame(RenderView(players=PLAYERS, phase="reveal", target=target))
    guess = renderer.frame(RenderView(players=PLAYERS, phase="guess_1"))
    x, y, w, h = frame_rect(target)
    assert (w, h) == (72, 72)
    # white line just inside the frame's bounding box, black just outside, on all four sides
    for px, py in [(x + w // 2, y), (x + w // 2, y + h - 1), (x, y + h // 2), (x + w - 1, y + h // 2)]:
        assert tuple(reveal[py, px]) == FRAME_INNER
        assert tuple(guess[py, px]) != FRAME_INNER
    for px, py in [(x + w // 2, y - 2), (x - 2, y + h // 2)]:
        assert tuple(reveal[py, px]) == FRAME_OUTER
    # target cell outlined, its centre still shows the cell colour
    tx, ty, tw, th = cell_rect(target)
    assert tuple(reveal[ty, tx]) == FRAME_OUTER
    cx, cy = cell_center(target)
    assert tuple(reveal[cy, cx]) == tuple(load_board().rgb[target])
    # the frame's cells other than the target keep their colours at the centre
    for cell in frame(target):
        cx, cy = cell_center(int(cell))
        assert tuple(reveal[cy, cx]) == tuple(load_board().rgb[int(cell)])
    # pixels differ only around the frame, the 5x5 ring outline and the panel text
    rx, ry, rw, rh = ring_rect(target)
    assert (rx, ry, rw, rh) == (x - 24, y - 24, w + 48, h + 48)
    changed = np.argwhere((reveal != guess).any(axis=2))
    board_changed = changed[changed[:, 1] < 28 + 720]
    assert board_changed[:, 1].min() >= rx and board_changed[:, 1].max() <= rx + rw - 1
    assert board_changed[:, 0].min() >= ry and board_changed[:, 0].max() <= ry + rh - 1
    ring_only = board_changed[
        (board_changed[:, 1] < x - 2) | (board_changed[:, 1] > x + w + 1) | (board_changed[:, 0] < y - 2)
    ]
    assert len(ring_only) > 4 * rw  # the ring outline is drawn on all sides (black line + white dashes)
    assert tuple(reveal[ry, rx + 30]) in (FRAME_OUTER, FRAME_INNER)


def test_frame_is_clipped_in_a_corner(renderer):
    corner = parse_coord("A1")
    assert frame_rect(corner) == (28, 24, 48, 48)
    img = renderer.frame(RenderView(players=PLAYERS, phase="reveal", target=corner))
    assert tuple(img[24, 28 + 24]) == FRAME_INNER  # top edge of the 2x2 frame
    assert tuple(img[24 + 48 - 1, 28 + 10]) == FRAME_INNER  # bottom edge


def test_panel_shows_text_and_is_deterministic(renderer):
    view = RenderView(
        players=PLAYERS,
        cues=("OCEAN", "DEEP SEA"),
        cue_giver=0,
        current=2,
        phase="guess_2",
        scores=(3, 1, 4, 1),
        round=2,
        message="I18 already holds a cone",
    )
    a, b = renderer.frame(view), renderer.frame(view)
    assert np.array_equal(a, b)
    empty = renderer.frame(RenderView(players=PLAYERS))
    panel = (a[:, 762:] != empty[:, 762:]).any(axis=2)
    assert panel.sum() > 500  # cues, turn and scores drawn
    status = (a[416:, :748] != empty[416:, :748]).any(axis=2)
    assert status.sum() > 100  # the message line
    # different cues give a different panel
    other = renderer.frame(RenderView(**{**view.__dict__, "cues": ("FOREST",)}))
    assert not np.array_equal(a[:, 762:], other[:, 762:])
    # column and row labels sit in the margins
    assert (empty[:22, 28:748] != empty[0, 0]).any() and (empty[24:408, :26] != empty[0, 0]).any()


def test_bad_views_are_rejected(renderer):
    with pytest.raises(ValueError, match="cones"):
        renderer.frame(RenderView(players=PLAYERS, cones={500: 0}))
    with pytest.raises(ValueError, match="seat"):
        renderer.frame(RenderView(players=PLAYERS, cones={3: 7}))
    with pytest.raises(ValueError, match="current"):
        renderer.frame(RenderView(players=PLAYERS, current=9))


def test_show_opens_a_window_with_the_same_picture():
    r = BoardRenderer()
    view = RenderView(players=PLAYERS, cones={parse_coord("C3"): 1}, phase="guess_1")
    r.show(view)
    screen = pygame.display.get_surface()
    assert screen is not None and screen.get_size() == (1024, 480)
    shown = np.frombuffer(pygame.image.tobytes(screen, "RGB"), dtype=np.uint8).reshape(480, 1024, 3)
    assert np.array_equal(shown, r.frame(view))
    r.close()
    assert not pygame.display.get_init()


def test_renders_a_real_env_in_both_modes():
    """The env's render(): rgb_array frames show the env's own cones, and human mode opens a window."""
    pytest.importorskip("pettingzoo")
    from huesenv import hues_cues_v1

    env = hues_cues_v1.env(num_players=4, render_mode="rgb_array")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    checked = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        view = env.unwrapped.render_view()
        if view.cones:
            img = env.render()
            assert img.shape == (480, 1024, 3) and img.dtype == np.uint8
            for cell, seat in view.cones.items():
                x, y = cell_center(cell)
                assert tuple(img[y, x]) == cone_colour(seat)
            if view.phase == "reveal":
                x, y, w, h = frame_rect(view.target)
                assert tuple(img[y, x + w // 2]) == FRAME_INNER
                break
            checked += 1
    assert checked > 0
    assert env.metadata["render_fps"] == BoardRenderer.metadata["render_fps"]
    env.close()
    human = hues_cues_v1.env(num_players=3, render_mode="human")
    human.reset(seed=1)
    human.render()
    assert pygame.display.get_surface().get_size() == (1024, 480)
    human.close()
    assert not pygame.display.get_init()
