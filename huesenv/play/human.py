"""A person plays Hues and Cues in a pygame window against agents and replayed humans.

Structure (so that every piece runs headless in tests).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.play.human``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.devices import with_device
from huesenv.agents.protocol import Answer, CueQuery, GuessQuery
from huesenv.agents.registry import make_agent
from huesenv.board import format_coord, parse_coord
from huesenv.envs import play_game
from huesenv.envs.rendering.layout import cell_at
from huesenv.envs.rendering.renderer import BoardRenderer, short_label
from huesenv.envs.rendering.view import RenderView
from huesenv.envs.rendering.window import Window
from huesenv.game.cues import counted_words, cue_problem, cue_words, is_pass
from huesenv.game.rules import DEFAULT_RULES
from huesenv.logs import LogWriter, read_records, tag_unit
from huesenv.render.playback import LiveTable
from huesenv.vocabulary import normalise_word


class HumanQuit(Exception):
    """The person closed the window or pressed Escape twice in a row: the game stops cleanly."""


QUIT_CONFIRM = "Press Escape again to abandon the game (any other key or a click carries on)"


def check_cue(
    text: str,
    *,
    cue_index: int,
    forbidden: Iterable[str] = (),
    vocabulary: Sequence[str] | None = None,
    rules: Any = None,
    used: Iterable[str] = (),
) -> tuple[str | None, str]:
    """Validate a typed cue; returns ``(cue, "")`` or ``(None, reason)``, the reason naming the rule.

    The cue grammar is the game's own (:mod:`huesenv.game.cues`, with ``rules`` or
    the default :class:`~huesenv.game.rules.HuesCuesRules`): the same word
    count, colour names, coordinates and relative words as the env, so a cue the
    window accepts is never replaced by the env's random fallback.  On top come
    what the query carries: its ``forbidden`` words, among them the cues already
    ``used`` in this game, and, in vocabulary mode, its ``vocabulary``.  The rule
    checks run first, so a refusal says which rule it is (a colour name, a
    coordinate, a word used before, a word this round does not offer).  ``""``
    on cue 2 is a pass: ``("", "")``.
    """
    rules = rules or DEFAULT_RULES
    if is_pass(text):
        if cue_index == 2:
            return "", ""
        return None, "Type a one-word cue first (Enter sends it)"
    cue = " ".join(text.split())
    key = normalise_word(cue)
    limit = rules.cue_word_limits[cue_index - 1]
    count = counted_words(key)
    if count > limit:
        plain = "one word" if limit == 1 else f"one to {limit} words"
        return (
            None,
            f"Cue {cue_index} must be {plain} ({limit} word{'s' * (limit > 1)} at most, got {count}): {text!r}",
        )
    problem = cue_problem(rules, key, cue_index)
    if problem is not None:
        return None, f"{cue!r}: {problem}"
    used_keys = {normalise_word(u) for u in used if isinstance(u, str) and u.strip()}
    banned = {normalise_word(f) for f in forbidden if isinstance(f, str) and f.strip()}
    for token in dict.fromkeys([key, *cue_words(key)]):
        if token in used_keys:
            return None, f"{cue!r}: {token!r} was already a cue in this game (each cue once per game)"
        if token in banned:
            if vocabulary is not None:
                return None, f"{cue!r} is not one of the words offered now (the list under the board)"
            return None, f"{cue!r}: {token!r} is a forbidden word in this game"
    if vocabulary is not None:
        by_key = {normalise_word(v): v for v in vocabulary}
        if key not in by_key:
            return None, f"{cue!r} is not in the game's vocabulary (the list under the board; Tab completes)"
        return by_key[key], ""
    return cue, ""


def suggestions(vocabulary: Sequence[str], typed: str, limit: int = 8) -> list[str]:
    """The vocabulary words that start with what was typed (all of them, alphabetically, for nothing)."""
    key = normalise_word(typed) if typed.strip() else ""
    return sorted(w for w in vocabulary if normalise_word(w).startswith(key))[:limit]


class HumanInput:
    """Turns pygame events into an answer for the pending query (no window needed)."""

    def __init__(self, rules: Any = None) -> None:
        self.rules = rules  # the game's HuesCuesRules (None: the default rules)
        self.query: Any = None
        self.text = ""
        self.message = ""
        self.stage = ""  # "guess" | "target" | "cue"
        self.target: int | None = None
        self.occupied: Mapping[int, str] = {}
        self.quit_armed = False  # Escape was pressed: a second Escape in a row abandons the game
        self.hover: int | None = None  # the cell under the mouse while a cell is to be chosen

    def begin(self, query: Any, occupied: Mapping[int, str] | None = None) -> None:
        """Start asking for ``query``; ``occupied`` maps cells to who holds them (for messages)."""
        self.query, self.text, self.message, self.hover = query, "", "", None
        self.occupied = dict(occupied or {})
        if isinstance(query, GuessQuery):
            self.stage, self.target = "guess", None
        elif isinstance(query, CueQuery):
            self.target = query.target
            self.stage = "target" if query.target is None else "cue"
        else:
            raise ValueError(f"a person cannot answer a {type(query).__name__} here")

    def finish(self) -> None:
        """Nothing pending any more (the answer went to the game); a message stays until the next one."""
        self.query, self.stage, self.text, self.target, self.hover = None, "", "", None, None

    def hover_cell(self) -> int | None:
        """The cell a click would choose now (outlined in the window), or None if a click would be refused."""
        cell = self.hover
        if cell is None or self.query is None:
            return None
        if self.stage == "guess":
            return cell if bool(self.query.legal_mask()[cell]) else None
        if self.stage == "target":
            return cell if cell in tuple(int(c) for c in self.query.card) else None
        return None

    # what the status lines show
    def prompt(self) -> str:
        q = self.query
        if self.stage == "guess":
            cues = " / ".join(q.cues) if q.cues else "?"
            what = f"Place a cone for {cues!r}: click a cell or type a coordinate (e.g. I18) + Enter"
        elif self.stage == "target":
            what = "Choose your colour: click one of your 4 card cells (outlined) or type its coordinate"
        elif self.stage == "cue":
            what = (
                "Cue 1: type ONE word + Enter"
                if q.cue_index == 1
                else "Cue 2: type one or two words + Enter (empty Enter = pass)"
            )
            if q.vocabulary is not None:  # vocabulary mode: the words on offer, narrowed as one types
                found = suggestions(q.vocabulary, self.text)
                more = "" if len(found) < 8 else ", ..."
                listed = ", ".join(found) + more if found else "no word starts so"
                return f"{what} from the list   > {self.text}_   [{listed}]  (Tab completes)"
        else:
            what = ""
        return f"{what}   > {self.text}_" if what else ""

    def handle_event(self, event: Any) -> Any:
        """Process one event; returns an ``Answer`` when the input is complete and legal, else ``None``."""
        import pygame

        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            if self.quit_armed:
                raise HumanQuit("escape")
            self.quit_armed, self.text = True, ""  # clears the input and asks to confirm
            self.message = QUIT_CONFIRM
            return None
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.TEXTINPUT, pygame.KEYDOWN) and self.quit_armed:
            self.quit_armed = False  # anything else carries on with the game
            if self.message == QUIT_CONFIRM:
                self.message = ""
        if event.type == pygame.MOUSEMOTION:
            self.hover = cell_at(*event.pos) if self.stage in ("guess", "target") else None
            return None
        if event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
            cell = cell_at(*event.pos)
            if cell is None:
                self.message = "That click is off the board"
                return None
            return self._cell_chosen(cell)
        if event.type == pygame.TEXTINPUT:
            self.text += event.text
            return None
        if event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                return self._submit()
            if event.key == pygame.K_BACKSPACE:
                self.text = self.text[:-1]
            if event.key == pygame.K_TAB and self.stage == "cue" and self.query.vocabulary is not None:
                found = suggestions(self.query.vocabulary, self.text, limit=1)
                if found:
                    self.text = found[0]
        return None

    def _cell_chosen(self, cell: int) -> Any:
        coord = format_coord(cell)
        if self.stage == "guess":
            legal = self.query.legal_mask()
            if not legal[cell]:
                holder = self.occupied.get(cell)
                self.message = (
                    f"{coord} already holds a cone of {holder}: choose an empty cell"
                    if holder
                    else f"{coord} is not a legal cell now"
                )
                self.text = ""
                return None
            self.message, self.text = "", ""
            return Answer(
                cells=np.array([cell], dtype=np.int64),
                scores=np.ones(1),
                raw_text=coord,
                info={"input": "human"},
            )
        if self.stage == "target":
            card = tuple(int(c) for c in self.query.card)
            if cell not in card:
                self.message = (
                    f"{coord} is not on your card: choose one of {', '.join(format_coord(c) for c in card)}"
                )
                self.text = ""
                return None
            self.target, self.stage, self.message, self.text = cell, "cue", "", ""
            return None
        self.message = "Type your cue, then press Enter"
        return None

    def _submit(self) -> Any:
        text, q = self.text.strip(), self.query
        if self.stage in ("guess", "target"):
            if not text:
                self.message = "Type a coordinate such as I18, or click a cell"
                return None
            try:
                cell = parse_coord(text)
            except ValueError:
                self.message = f"{text!r} is not a board coordinate (rows A-P, columns 1-30, e.g. I18)"
                self.text = ""
                return None
            return self._cell_chosen(cell)
        used = q.view.used_cues if q.view is not None else ()
        cue, reason = check_cue(
            text,
            cue_index=q.cue_index,
            forbidden=q.forbidden,
            vocabulary=q.vocabulary,
            rules=self.rules,
            used=used,
        )
        if cue is None:
            self.message = reason
            self.text = ""
            return None
        self.message, self.text = "", ""
        return Answer(
            target=self.target if q.target is None else None,
            cue=cue or None,
            raw_text=text,
            info={"input": "human", "target": self.target},
        )


class PlayScreen:
    """The window of a human game: spectator state from step records + the person's private view."""

    def __init__(
        self,
        players: Sequence[str],
        labels: Sequence[str] | None = None,
        *,
        renderer: Any = None,
        window: Any = None,
        events: Callable[[], Iterable[Any]] | None = None,
        agent_delay: float = 0.6,
        fps: float = 30.0,
        rules: Any = None,
        human_seat: int | None = None,
        pause_at_reveal: bool = False,
    ) -> None:
        self.builder = LiveTable(players, labels or players)
        self.pause_at_reveal = pause_at_reveal  # after each round's reveal, wait for a key or a click
        self.renderer = renderer or BoardRenderer(title="huesenv play")
        if window is None:
            window = Window(self.renderer.size, "huesenv play", events=events)
            window.start_text_input()
        self.window = window
        self.agent_delay = agent_delay
        self.fps = fps
        self.input = HumanInput(rules)
        self.human_seat = human_seat  # the person's seat: they see their own target while cue giver
        self.frames_drawn = 0

    def view(self) -> RenderView:
        b = self.builder
        extra: dict[str, Any] = {}
        inp = self.input
        if inp.stage == "target":  # choosing: show the card
            extra["card"] = tuple(int(c) for c in inp.query.card)
        if inp.stage == "cue" and b.phase == "pick_target":
            extra["phase"] = "cue_1"  # target chosen, cue being typed
        if b.target is None:
            if inp.stage == "cue" and inp.target is not None:  # just chosen, cue still to type
                extra["target"] = inp.target
            elif (
                self.human_seat is not None and b.cue_giver == self.human_seat and b.secret_target is not None
            ):
                extra["target"] = b.secret_target  # the person's own secret, from the step records
        hover = inp.hover_cell()
        if hover is not None:
            extra["hover"] = hover
        return b.view(message=self.input.message or b.message, prompt=self.input.prompt(), **extra)

    def draw(self) -> None:
        self.window.present(self.renderer.surface(self.view()))
        self.frames_drawn += 1

    def on_record(self, record: Any) -> None:
        """Step records from the env: update the board, then pause briefly so the person sees agents move."""
        if getattr(record, "kind", None) != "game_step":
            return
        self.builder.apply(record, where="live game record")
        self.draw()
        if self.pause_at_reveal and self._round_revealed(record):
            self._continue_after_reveal()
            return
        deadline = time.monotonic() + self.agent_delay
        while time.monotonic() < deadline:
            self._drain_quit()
            self.window.tick(self.fps)

    def _round_revealed(self, record: Any) -> bool:
        """Whether ``record`` is the last reveal record of its round (one per seat is logged)."""
        extra = record.extra or {}
        if extra.get("phase") != "reveal":
            return False
        same = [
            r
            for r in self.builder.records
            if (r.extra or {}).get("phase") == "reveal" and (r.extra or {}).get("round") == extra.get("round")
        ]
        return len(same) >= len(self.builder.players)

    def _continue_after_reveal(self) -> None:
        """Keep the revealed round on screen until the person presses a key or clicks: the reveal is
        the moment to look at where everybody's cones landed, so it never moves on by itself."""
        view = self.builder.view(prompt="Round scored: press any key or click to continue")
        self.window.present(self.renderer.surface(view))
        self.frames_drawn += 1
        self.wait_for_key()
        if self.window.closed:
            raise HumanQuit("window closed")

    def _drain_quit(self) -> None:
        import pygame

        for event in self.window.events():
            if event.type == pygame.QUIT:
                raise HumanQuit("window closed")

    def ask(self, query: Any, player: str | None = None, max_polls: int | None = None) -> Any:
        """Block until the person gives a legal answer to ``query``."""
        import pygame

        b = self.builder
        occupied = {cell: b.labels[seat] for cell, seat in b.cones.items()}
        self.input.begin(query, occupied)
        if player is not None and player in b.players:
            seat = b.players.index(player)
            if getattr(query, "cue_index", None) is not None and getattr(query, "target", 0) is None:
                b.new_round(seat)  # a target to choose: the previous round's board is gone
            b.set_turn(seat, cue_giver=hasattr(query, "cue_index"))
        polls = 0
        while True:
            for event in self.window.events():
                if event.type == pygame.QUIT:
                    raise HumanQuit("window closed")
                answer = self.input.handle_event(event)
                if answer is not None:
                    self.input.finish()
                    self.draw()
                    return answer
            self.draw()
            self.window.tick(self.fps)
            polls += 1
            if max_polls is not None and polls >= max_polls:
                raise TimeoutError(f"no answer from the person after {polls} polls")

    def wait_for_key(self) -> None:
        """Keep the board on screen until a key press, a click or closing the window."""
        import pygame

        while not self.window.closed:
            for event in self.window.events():
                if event.type == pygame.QUIT:
                    self.window.close()
                    return
                if event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN):
                    return
            self.window.tick(self.fps)

    def close(self) -> None:
        self.window.close()


class HumanAgent:
    """The person at the table, as an ``Agent``: each query is answered through the window."""

    name = "human"

    def __init__(self, screen: PlayScreen, *, max_polls: int | None = None) -> None:
        self.screen = screen
        self.max_polls = max_polls
        self._cue_cache: dict[tuple, str] = {}

    @property
    def agent_id(self) -> str:
        return "human"

    def reset(self, seed: int | None = None) -> None:
        self._cue_cache.clear()

    def act(self, query: Any) -> Any:
        if isinstance(query, CueQuery) and query.target is not None:
            key = (query.game, query.player, query.cue_index, int(query.target))
            if key in self._cue_cache:  # the cue was typed together with the target
                return Answer(cue=self._cue_cache.pop(key), info={"input": "human"})
        answer = self.screen.ask(query, player=getattr(query, "player", None), max_polls=self.max_polls)
        if isinstance(query, CueQuery) and query.target is None and answer.target is not None and answer.cue:
            self._cue_cache[(query.game, query.player, query.cue_index, int(answer.target))] = answer.cue
        return answer

    def act_batch(self, queries: Sequence[Any]) -> list[Any]:
        return [self.act(q) for q in queries]


def seating(agent_specs: Sequence[str], seat: int | str | None) -> tuple[int, list[str]]:
    """Where the person sits and the spec of every seat (``"human"`` marks the person).

    ``agent_specs`` are the other seats' agents in order, or the whole table with
    ``"human"`` in it; ``seat`` is the person's 0-based seat (``"human"``/None: seat 0,
    or where ``"human"`` appears in the list).
    """
    specs = [s.strip() for s in agent_specs if s.strip()]
    if "human" in specs:
        if specs.count("human") > 1:
            raise ValueError("--agents: 'human' may appear only once (one person per window)")
        index = specs.index("human")
        if seat not in (None, "human") and int(seat) != index:
            raise ValueError(f"--seat {seat} contradicts 'human' at position {index} of --agents")
        return index, specs
    index = 0 if seat in (None, "human") else (int(str(seat).removeprefix("player_")))
    if not 0 <= index <= len(specs):
        raise ValueError(f"--seat: {seat!r}; expected a seat 0-{len(specs)} for {len(specs) + 1} players")
    return index, specs[:index] + ["human"] + specs[index:]


def next_game_index(log_path: str | Path | None) -> int:
    """The first game number not yet used in ``log_path`` (0 for no log, a missing or an empty one).

    Every ``huesenv play --log`` game appended to the same log needs its own
    ``extra["game"]``, or replay would merge the games into one.  The number is one
    more than the largest integer ``extra["game"]`` of the log's ``game_step``
    records (records of other kinds, or with non-integer game keys, are ignored).
    It is read when the game starts, so two windows appending to one log at the
    same time could still pick the same number; one person per log is assumed.
    """
    if log_path is None or not Path(log_path).exists():
        return 0

    used = [r.extra.get("game") for r in read_records(log_path).records if r.kind == "game_step"]
    ints = [g for g in used if isinstance(g, int) and not isinstance(g, bool)]
    return max(ints) + 1 if ints else 0


def load_models(agents: Iterable[Any]) -> None:
    """Load every agent's model now, through its optional ``load()`` method.

    Why: ``huesenv play`` crashed (segfault) when a torch agent loaded its model
    after the pygame window was open — the display's OpenGL driver (Mesa) and
    the LLVM that torch's triton brings clash when loaded in that order.
    Loading the models before the window opens avoids it (and the pause).
    """
    for agent in agents:
        load = getattr(agent, "load", None)
        if callable(load):
            load()


def write_abandoned(log_path: str | Path, records: Sequence[Any], game_index: int) -> None:
    """Append the records of a game the person abandoned, marked ``extra["abandoned"] = True``.

    One unit block (``"play:<game>"``) like a finished game, so replay shows how
    far it got; the mark tells it apart from a finished game, and the game
    number stays used (:func:`next_game_index`).
    """
    for record in records:
        record.extra["abandoned"] = True
    with LogWriter(log_path) as writer:
        writer.append(tag_unit(records, f"play:{game_index}"))


def play_human_game(
    agent_specs: Sequence[str],
    *,
    seat: int | str | None = None,
    seed: int = 0,
    cue_mode: str = "text",
    agent_delay: float = 0.6,
    events: Callable[[], Iterable[Any]] | None = None,
    max_polls: int | None = None,
    log_path: str | None = None,
    screen: PlayScreen | None = None,
    wait_at_end: bool = False,
    device: str | None = None,
    pause_at_reveal: bool = False,
) -> Any:
    """Play one game with the person at ``seat``; returns the env's ``GameResult``.

    The game loop and rules are the env's (``huesenv.envs.play_game``); the records
    it emits update the window and, with ``log_path``, are appended to a log as game
    :func:`next_game_index` (so games appended to one log stay apart in replay), in
    one block tagged as unit ``"play:<game>"`` (``extra["unit"]``, ``unit_size``,
    ``unit_pos``, as the experiments runner writes them) so that replay drops a
    block cut short by a crash.  Without a log the game is number 0.  A game the
    person abandons (:class:`HumanQuit`) is logged up to that point, marked as
    abandoned (:func:`write_abandoned`), and the ``HumanQuit`` propagates.
    """
    index, specs = seating(agent_specs, seat)
    game_index = next_game_index(log_path)  # read the log first: a bad log fails before a window opens
    n = len(specs)
    if not 3 <= n <= 10:
        raise ValueError(f"--agents: {n} players with the person; Hues and Cues needs 3-10")
    players = [f"player_{k}" for k in range(n)]
    labels = [f"{p} ({'you' if s == 'human' else s})" for p, s in zip(players, specs)]
    rng = np.random.default_rng(seed)
    agents: dict[str, Any] = {}
    for p, s in zip(players, specs):  # agents first: a bad spec fails before a window opens
        if s == "human":
            continue
        seat_seed = int(rng.integers(2**31))  # drawn for every agent seat, so seeds do not shift
        kw = with_device(s, {}, device)
        try:  # a bare kind gets its own seed; "random:7" keeps the seed it names
            agents[p] = make_agent(s, seed=seat_seed, **kw) if ":" not in s else make_agent(s, **kw)
        except TypeError:
            agents[p] = make_agent(s, **kw)
    load_models(agents.values())  # before the window opens: see load_models
    own_screen = screen is None
    screen = screen or PlayScreen(
        players,
        labels,
        events=events,
        agent_delay=agent_delay,
        human_seat=index,
        pause_at_reveal=pause_at_reveal,
    )
    played: list[Any] = []  # the records so far, for the log of an abandoned game

    def on_record(record: Any) -> None:
        played.append(record)
        screen.on_record(record)

    try:
        agents[players[index]] = HumanAgent(screen, max_polls=max_polls)
        agents = {p: agents[p] for p in players}
        try:
            result = play_game(
                agents,
                num_players=n,
                seed=seed,
                game_index=game_index,
                run_id="human-play",
                cue_mode=cue_mode,
                on_record=on_record,
            )
        except HumanQuit:
            if log_path and played:
                write_abandoned(log_path, played, game_index)
            raise
        if log_path:
            with LogWriter(log_path) as writer:
                writer.append(tag_unit(result.records, f"play:{game_index}"))
        best = max(result.scores.values())
        winners = [short_label(lab) for p, lab in zip(players, labels) if result.scores[p] == best]
        final = screen.builder.view(
            phase="done",
            current=None,
            message=f"Game over - winner: {', '.join(winners)} with {best} points",
            prompt="Press any key or close the window to finish" if wait_at_end else "",
        )
        screen.window.present(screen.renderer.surface(final))
        if wait_at_end:
            screen.wait_for_key()
    finally:
        if own_screen:
            screen.close()
    return result


__all__ = [
    "HumanAgent",
    "HumanInput",
    "HumanQuit",
    "PlayScreen",
    "check_cue",
    "suggestions",
    "load_models",
    "next_game_index",
    "play_human_game",
    "seating",
    "write_abandoned",
]
