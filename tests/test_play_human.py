"""Human play: clicks and typing become answers; illegal input gives an on-screen message, never a crash."""

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")

from huesenv.agents.protocol import CueQuery, GuessQuery  # noqa: E402
from huesenv.board import N_CELLS, parse_coord  # noqa: E402
from huesenv.play.human import HumanAgent, HumanInput, HumanQuit, PlayScreen, check_cue, seating  # noqa: E402
from huesenv.render import cell_center  # noqa: E402


def click(coord):
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=cell_center(parse_coord(coord)), button=1)


def typed(text):
    return [pygame.event.Event(pygame.TEXTINPUT, text=ch) for ch in text]


def key(k):
    return pygame.event.Event(pygame.KEYDOWN, key=k, unicode="", mod=0)


ENTER = pygame.K_RETURN


def feed(inp, events):
    answer = None
    for ev in events:
        answer = inp.handle_event(ev)
        if answer is not None:
            return answer
    return answer


def legal_except(*coords):
    legal = np.ones(N_CELLS, dtype=bool)
    for c in coords:
        legal[parse_coord(c)] = False
    return legal


def test_guess_by_click_rejects_occupied_cells():
    inp = HumanInput()
    inp.begin(
        GuessQuery(cues=("OCEAN",), legal=legal_except("I18")), occupied={parse_coord("I18"): "player_2"}
    )
    assert "OCEAN" in inp.prompt()
    assert feed(inp, [click("I18")]) is None
    assert "I18 already holds a cone of player_2" in inp.message
    assert feed(inp, [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(3, 3), button=1)]) is None
    assert "off the board" in inp.message
    answer = feed(inp, [click("I19")])
    assert answer.cell == parse_coord("I19") and inp.message == ""


def test_guess_by_typing_a_coordinate():
    inp = HumanInput()
    inp.begin(GuessQuery(cues=("OCEAN",), legal=legal_except("I18")))
    assert feed(inp, typed("z99") + [key(ENTER)]) is None
    assert "not a board coordinate" in inp.message and inp.text == ""
    assert feed(inp, typed("i18") + [key(ENTER)]) is None
    assert "not a legal cell" in inp.message
    feed(inp, typed("J2x") + [key(pygame.K_BACKSPACE)])
    assert inp.text == "J2"
    answer = feed(inp, typed("0") + [key(ENTER)])
    assert answer.cell == parse_coord("J20")
    inp.begin(GuessQuery(cues=("OCEAN",)))
    assert feed(inp, [key(ENTER)]) is None and "Type a coordinate" in inp.message


def test_cue_giver_picks_from_the_card_then_types_a_cue():
    card = tuple(parse_coord(c) for c in ("A1", "C5", "H20", "P30"))
    inp = HumanInput()
    inp.begin(CueQuery(card=card, target=None, cue_index=1, forbidden=frozenset({"SEA"})))
    assert feed(inp, [click("B2")]) is None and "not on your card" in inp.message
    assert feed(inp, [click("H20")]) is None and inp.stage == "cue" and inp.target == parse_coord("H20")
    assert feed(inp, typed("deep sea") + [key(ENTER)]) is None and "1 word" in inp.message
    assert feed(inp, typed("sea") + [key(ENTER)]) is None and "forbidden word" in inp.message
    # refused either for its length or for its colour name (the env's rules decide which check comes first)
    assert feed(inp, typed("dark blue") + [key(ENTER)]) is None
    assert "1 word" in inp.message or "basic colour names" in inp.message
    assert feed(inp, typed("blue") + [key(ENTER)]) is None and "basic colour names" in inp.message
    assert feed(inp, typed("K12") + [key(ENTER)]) is None and "not allowed" in inp.message
    assert feed(inp, [key(ENTER)]) is None and "one-word cue" in inp.message
    answer = feed(inp, typed("lagoon") + [key(ENTER)])
    assert answer.target == parse_coord("H20") and answer.cue == "lagoon"
    # target typed as a coordinate
    inp.begin(CueQuery(card=card, target=None))
    feed(inp, typed("c5") + [key(ENTER)])
    assert inp.target == parse_coord("C5") and inp.stage == "cue"


def test_second_cue_pass_and_vocabulary_mode():
    inp = HumanInput()
    inp.begin(CueQuery(card=(0, 1, 2, 3), target=2, cue_index=2))
    answer = feed(inp, [key(ENTER)])
    assert answer is not None and answer.cue is None  # a pass
    inp.begin(CueQuery(card=(0, 1, 2, 3), target=2, cue_index=2, vocabulary=("OCEAN", "SHRECK")))
    assert feed(inp, typed("sky") + [key(ENTER)]) is None and "vocabulary" in inp.message
    assert feed(inp, typed("deep ocean wave") + [key(ENTER)]) is None and "2 word" in inp.message
    assert feed(inp, typed("darker") + [key(ENTER)]) is None and "relative" in inp.message
    assert feed(inp, typed("shrek") + [key(ENTER)]).cue == "SHRECK"  # alias → the vocabulary's spelling


def test_check_cue_rules_from_the_query():
    assert check_cue("Ocean", cue_index=1) == ("Ocean", "")
    assert check_cue("  ", cue_index=2) == ("", "")
    assert check_cue("ocean", cue_index=1, forbidden={"OCEAN"})[0] is None
    assert "one word" in check_cue("deep sea", cue_index=1)[1]
    # the rule is named: a colour name is refused as one, before the query's own forbidden list
    assert "basic colour names" in check_cue("dark blue", cue_index=2, forbidden={"BLUE"})[1]
    assert "forbidden word" in check_cue("deep lagoon", cue_index=2, forbidden={"LAGOON"})[1]


def test_escape_clears_then_quits():
    inp = HumanInput()
    inp.begin(GuessQuery(cues=("X",)))
    feed(inp, typed("A1") + [key(pygame.K_ESCAPE)])
    assert inp.text == ""
    with pytest.raises(HumanQuit):
        inp.handle_event(key(pygame.K_ESCAPE))


def test_seating():
    assert seating(["random", "human-replay"], "human") == (0, ["human", "random", "human-replay"])
    assert seating(["random", "human-replay"], "2") == (2, ["random", "human-replay", "human"])
    assert seating(["random", "human", "random"], None) == (1, ["random", "human", "random"])
    with pytest.raises(ValueError):
        seating(["random", "random"], 7)
    with pytest.raises(ValueError):
        seating(["human", "human", "random"], None)


def test_play_screen_reads_injected_events_and_shows_messages():
    """The whole window loop headless: events posted into pygame's queue, answers and messages on screen."""
    from huesenv.logs.schema import LogRecord

    players = ["player_0", "player_1", "player_2"]
    screen = PlayScreen(players, agent_delay=0.0)

    def rec(player, phase, **extra):  # a legal opening of a game, as play_game logs it
        role = "guesser" if phase.startswith("guess") else "cue_giver"
        fields = {"game": 0, "round": 0, "player": player, "role": role, "phase": phase, "points": 0}
        return LogRecord.create(kind="game_step", run_id="t", agent_id="random", extra={**fields, **extra})

    for r in (
        rec("player_0", "pick_target", cell="A1", target="A1"),
        rec("player_0", "cue_1", cue="OCEAN", target="A1"),
        rec("player_1", "guess_1", cell="I18"),
    ):
        screen.on_record(r)
    assert screen.view().cones == {parse_coord("I18"): 1} and screen.view().cues == ("OCEAN",)
    query = GuessQuery(cues=("OCEAN",), legal=legal_except("I18"), player="player_0")
    for ev in [click("I18")] + typed("q9") + [key(ENTER)]:
        pygame.event.post(ev)
    with pytest.raises(TimeoutError):  # only illegal input so far: no answer, no crash
        screen.ask(query, player="player_0", max_polls=3)
    assert "not a board coordinate" in screen.input.message
    shot = np.frombuffer(pygame.image.tobytes(pygame.display.get_surface(), "RGB"), dtype=np.uint8)
    shot = shot.reshape(480, 1024, 3)
    assert (shot[416:440, 28:400] != shot[470, 1000]).any()  # the message line is drawn
    pygame.event.post(click("H18"))
    agent = HumanAgent(screen, max_polls=5)
    answer = agent.act(query)
    assert answer.cell == parse_coord("H18")
    # the card is outlined while choosing, the chosen target shows while the cue is typed
    card = tuple(parse_coord(c) for c in ("A1", "C5", "H20", "P30"))
    cue_query = CueQuery(card=card, target=None, cue_index=1, player="player_0", game=0)
    with pytest.raises(TimeoutError):
        screen.ask(cue_query, player="player_0", max_polls=2)
    assert screen.view().card == card and screen.view().target is None
    pygame.event.post(click("C5"))
    with pytest.raises(TimeoutError):
        screen.ask(cue_query, player="player_0", max_polls=2)  # a fresh ask starts with the target again
    assert (
        screen.input.stage == "cue" and screen.view().target == parse_coord("C5") and screen.view().card == ()
    )
    # cue typed together with the target is returned again without asking when the env asks for cue 1
    for ev in [click("C5")] + typed("rust") + [key(ENTER)]:
        pygame.event.post(ev)
    a1 = agent.act(cue_query)
    assert a1.target == parse_coord("C5") and a1.cue == "rust"
    a2 = agent.act(CueQuery(card=card, target=parse_coord("C5"), cue_index=1, player="player_0", game=0))
    assert a2.cue == "rust"
    # once the round's records say the person is the cue giver, they keep seeing their own target
    screen.human_seat = 0
    screen.on_record(
        LogRecord.create(
            kind="game_step",
            run_id="t",
            agent_id="human",
            extra={
                "game": 1,  # a new game: the table starts afresh
                "round": 0,
                "player": "player_0",
                "role": "cue_giver",
                "phase": "pick_target",
                "cell": "C5",
                "target": "C5",
                "points": 0,
            },
        )
    )
    assert screen.view().target == parse_coord("C5")
    screen.human_seat = 1
    assert screen.view().target is None
    screen.close()


class Bot:
    """A scripted person: first tries something illegal, then answers legally (events, like a real person)."""

    WORDS = (
        "blue",
        "ocean",
        "forest",
        "sunset",
        "lagoon",
        "rust",
        "moss",
        "salmon",
        "plum",
        "lemon",
        "cherry",
        "slate",
        "coffee",
        "mint",
        "sand",
        "coral",
    )

    def __init__(self):
        self.screen = None
        self.seen = set()
        self._tried = set()

    def __call__(self):
        inp = self.screen.input
        if inp.message:
            self.seen.add(inp.message)
        q, stage = inp.query, inp.stage
        if q is None:  # nothing asked (agents' turns, or the final "press any key")
            return [key(pygame.K_SPACE)]
        key_ = (id(q), stage)
        first = key_ not in self._tried
        self._tried.add(key_)
        if stage == "guess":
            legal = np.flatnonzero(q.legal_mask())
            taken = np.flatnonzero(~q.legal_mask())
            if first and taken.size:
                return [click_index(int(taken[0]))]
            return [click_index(int(legal[0]))]
        if stage == "target":
            if first:
                return typed("Q40") + [key(ENTER)]
            return [click_index(int(q.card[0]))]
        if stage == "cue":
            if first:
                return typed("blue") + [key(ENTER)]  # a basic colour name: refused on screen
            for w in self.WORDS[1:]:
                if (
                    check_cue(w, cue_index=q.cue_index, forbidden=q.forbidden)[1] == ""
                    and w.upper() not in q.forbidden
                ):
                    return typed(w) + [key(ENTER)]
        return []


def click_index(i):
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=cell_center(i), button=1)


def test_a_whole_game_against_agents_headless():
    """huesenv play's loop end to end: the env's play_game, random agents, the person as injected events."""
    pytest.importorskip("pettingzoo")
    from huesenv.envs.hues_cues import play
    from huesenv.play.human import play_human_game

    bot = Bot()
    players = ["player_0", "player_1", "player_2"]
    screen = PlayScreen(players, agent_delay=0.0, events=bot)
    bot.screen = screen
    result = play_human_game(
        ["random", "random"], seat=1, seed=3, screen=screen, max_polls=20, wait_at_end=True
    )
    screen.close()
    human = [r for r in result.records if r.extra["player"] == "player_1" and r.extra["phase"] != "reveal"]
    assert human and all(r.agent_id == "human" for r in human)
    assert all(
        r.valid and "fallback" not in r.extra for r in human
    )  # no answer was replaced by a random move
    phases = {r.extra["phase"] for r in human}
    assert {"pick_target", "cue_1", "guess_1", "guess_2"} <= phases
    assert any("already holds a cone" in m for m in bot.seen)
    assert any("not a board coordinate" in m for m in bot.seen)
    assert any("not allowed" in m or "basic colour" in m for m in bot.seen)
    assert result.scores == play.recompute_from_records(result.records, players)
    assert screen.builder.scores == [result.scores[p] for p in players]


def test_cli_play_rejects_bad_tables_before_opening_a_window():
    from huesenv.cli import main

    assert main(["play", "--agents", "random"]) == 2  # 2 players: too few
    assert main(["play", "--agents", "nonsense-agent,random"]) == 2  # unknown agent kind
    assert main(["play", "--agents", "random,random", "--seat", "9"]) == 2
    assert not pygame.display.get_init()


@pytest.mark.integration
def test_render_package_imports_without_pygame():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "class B:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'pygame': raise ImportError('blocked')\n"
        "sys.meta_path.insert(0, B())\n"
        "from huesenv.render import RenderView, cell_rect\n"
        "import huesenv.commands.replay, huesenv.commands.play, huesenv.render.playback\n"
        "print(cell_rect(0))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(28, 24, 24, 24)"


def test_games_appended_to_one_log_get_their_own_numbers(tmp_path):
    """Two ``huesenv play --log`` games in one log: games 0 and 1, each replayed on its own final scores."""
    pytest.importorskip("pettingzoo")
    from huesenv.logs import read_records
    from huesenv.play.human import next_game_index, play_human_game
    from huesenv.render.playback import load_replay_records, views_from_records

    log = tmp_path / "human.jsonl"
    assert next_game_index(log) == 0
    players = ["player_0", "player_1", "player_2"]
    results = []
    for seed in (3, 4):
        bot = Bot()
        screen = PlayScreen(players, agent_delay=0.0, events=bot)
        bot.screen = screen
        results.append(
            play_human_game(
                ["random", "random"], seat=1, seed=seed, screen=screen, max_polls=20, log_path=str(log)
            )
        )
        screen.close()
    assert [r.game_index for r in results] == [0, 1]
    logged = read_records(log).records
    assert len(logged) == sum(len(r.records) for r in results)
    assert {r.extra["game"] for r in logged} == {0, 1} and next_game_index(log) == 2
    assert {r.extra["unit"] for r in logged} == {"play:0", "play:1"}
    records = load_replay_records(log)
    for k, result in enumerate(results):
        views = views_from_records(records, game=k)
        assert len(views) == len(result.records)
        assert views[-1].scores == tuple(result.scores[p] for p in players)


def test_one_escape_asks_to_confirm_and_anything_else_carries_on():
    inp = HumanInput()
    inp.begin(GuessQuery(cues=("X",)))
    assert feed(inp, [key(pygame.K_ESCAPE)]) is None  # empty input: asks, does not quit
    assert inp.quit_armed and "Escape again" in inp.message
    feed(inp, typed("B"))  # typing carries on with the game
    assert not inp.quit_armed and inp.message == "" and inp.text == "B"
    feed(inp, [key(pygame.K_ESCAPE)])
    assert inp.text == "" and inp.quit_armed
    feed(inp, [click("A1")])  # so does a click (here it answers the guess)
    assert not inp.quit_armed
    feed(inp, [key(pygame.K_ESCAPE)])
    with pytest.raises(HumanQuit):
        inp.handle_event(key(pygame.K_ESCAPE))


class QuitAfter(Bot):
    """Plays like :class:`Bot` and presses Escape twice once ``moves`` of the person's answers are in."""

    def __init__(self, moves):
        super().__init__()
        self.moves, self.asked = moves, set()

    def __call__(self):
        q = self.screen.input.query
        if q is not None:
            self.asked.add(id(q))
            if len(self.asked) > self.moves:
                return [key(pygame.K_ESCAPE), key(pygame.K_ESCAPE)]
        return super().__call__()


def test_an_abandoned_game_is_logged_as_abandoned(tmp_path):
    pytest.importorskip("pettingzoo")
    from huesenv.logs import read_records
    from huesenv.play.human import next_game_index, play_human_game
    from huesenv.render.playback import load_replay_records

    log = tmp_path / "play.jsonl"
    bot = QuitAfter(moves=2)
    screen = PlayScreen(["player_0", "player_1", "player_2"], agent_delay=0.0, events=bot)
    bot.screen = screen
    with pytest.raises(HumanQuit):
        play_human_game(["random", "random"], seat=0, seed=5, screen=screen, max_polls=50, log_path=str(log))
    screen.close()
    records = read_records(log).records
    assert records and all(r.extra["abandoned"] is True for r in records)
    assert {r.extra["game"] for r in records} == {0} and next_game_index(log) == 1
    assert sum(r.agent_id == "human" for r in records) >= 2  # the person's answers before Escape
    assert len(load_replay_records(log)) == len(records)  # one complete block: replay shows it


def test_agents_load_their_models_before_the_window_opens(tmp_path):
    pytest.importorskip("pettingzoo")
    from huesenv.agents import RandomAgent, register_agent
    from huesenv.play.human import play_human_game

    loaded_with_window = []

    class Loading(RandomAgent):
        def load(self):
            loaded_with_window.append(pygame.display.get_init())

    register_agent("test-loading", lambda arg=None, **kw: Loading(**kw))
    with pytest.raises(HumanQuit):  # the person leaves at once: Escape, Escape
        play_human_game(
            ["test-loading", "random"],
            seat=0,
            seed=1,
            events=lambda: [key(pygame.K_ESCAPE), key(pygame.K_ESCAPE)],
            agent_delay=0.0,
        )
    assert loaded_with_window == [False]


def test_a_refused_cue_names_the_rule_it_breaks():

    used = check_cue("sea", cue_index=1, forbidden={"SEA"}, used=("SEA",))
    assert used[0] is None and "already a cue in this game" in used[1]
    colour = check_cue("pink", cue_index=1, forbidden={"PINK"})
    assert colour[0] is None and "basic colour names are not allowed" in colour[1]
    offered = check_cue("ocean", cue_index=1, forbidden={"OCEAN"}, vocabulary=("LAGOON",))
    assert offered[0] is None and "not one of the words offered" in offered[1]
    outside = check_cue("qwzx", cue_index=1, vocabulary=("LAGOON",))
    assert outside[0] is None and "not in the game's vocabulary" in outside[1]


def test_vocabulary_mode_lists_the_words_and_tab_completes():
    import pygame

    from huesenv.play.human import suggestions

    assert suggestions(("SKY", "SKULL", "OCEAN"), "sk") == ["SKULL", "SKY"]
    assert suggestions(("SKY", "OCEAN"), "") == ["OCEAN", "SKY"]
    card = tuple(parse_coord(c) for c in ("A1", "C5", "H20", "P30"))
    inp = HumanInput()
    inp.begin(CueQuery(card=card, target=card[0], cue_index=1, vocabulary=("OCEAN", "ORCHID", "SKY")))
    assert "OCEAN, ORCHID, SKY" in inp.prompt()
    feed(inp, typed("orc") + [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB, unicode="\t", mod=0)])
    assert inp.text == "ORCHID" and "[ORCHID]" in inp.prompt()
    answer = feed(inp, [key(ENTER)])
    assert answer.cue == "ORCHID"


def test_the_cell_under_the_mouse_is_outlined_only_where_a_click_counts():
    import pygame

    inp = HumanInput()
    legal = np.ones(480, dtype=bool)
    legal[parse_coord("B2")] = False
    inp.begin(GuessQuery(cues=("OCEAN",), legal=legal))
    x, y = cell_center(parse_coord("C3"))
    inp.handle_event(
        pygame.event.Event(pygame.MOUSEMOTION, pos=(int(x), int(y)), rel=(0, 0), buttons=(0, 0, 0))
    )
    assert inp.hover_cell() == parse_coord("C3")
    x, y = cell_center(parse_coord("B2"))
    inp.handle_event(
        pygame.event.Event(pygame.MOUSEMOTION, pos=(int(x), int(y)), rel=(0, 0), buttons=(0, 0, 0))
    )
    assert inp.hover_cell() is None  # occupied: a click would be refused, so no invitation to click
