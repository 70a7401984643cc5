"""``num_games`` complete games of Hues and Cues stepped together as arrays (numpy or torch).

This is the batched multi-agent core, in the PGX / JaxMARL shape: one state of
arrays for all games, :meth:`HuesCuesVectorGame.reset` and
:meth:`HuesCuesVectorGame.step` on batches, the seat on turn
(``current_player``), per-seat rewards and auto-reset.  The rules are those of
:class:`huesenv.game.rules.GameState` (the single definition): card draw and
target choice, cue 1, the first cones clockwise, cue 2 or a pass, the second
cones counter-clockwise, reveal and 3/2/1 + frame scoring with
``rules.points_matrix`` / ``in_frame_matrix``, the cue giver rotating, 2 or 1
rounds per player.  ``tests/test_vector_game.py`` replays ≥ 10,000 games of this
class through ``GameState`` and requires every mask, reward and final score to
be identical.

Actions are the AEC env's vocabulary-mode layout (``Discrete(480 + V + 1)``:
cells, then ``480 + i`` the word ``vocabulary[i]``, then pass).

Seats and opponents: ``caller`` (a ``(max_players, 2)`` bool array, or a set of
seats playing both roles) says which (seat, role) pairs the caller plays; role
0 is the cue giver (target, cues), role 1 the guesser (cones).  Every other
decision is made inside :meth:`step` by the seat's :class:`TableOpponent`,
until each game waits for a caller decision again, so the state after ``step``
is always a caller's turn.  With every pair played by the caller this is plain
self-play: one decision per game per step.

Choices (documented, tested):

* cards are drawn fresh per round (``card_size`` distinct uniform cells), the
  distribution of the rules' generated 100-card deck (at most 20 cards are
  used, without reshuffling); an explicit ``rules.deck`` is dealt in a random
  order per game, as ``HuesCuesRules.make_deck`` does;
* an illegal caller action ends that game at once (the AEC env's
  ``illegal_action="end"``): the offender gets ``illegal_reward``, the game
  auto-resets, ``info["illegal"]`` marks it;
* the number of players is fixed per game slot (``num_players`` an int or one
  per slot), so a batch can mix 3-10 players.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from huesenv.board import N_CELLS
from huesenv.envs.vector_game.arrays import ArrayOps
from huesenv.envs.vector_game.opponents import RANDOM, TableOpponent
from huesenv.game.cues import static_cue_problem
from huesenv.game.rules import DEFAULT_RULES, HuesCuesRules
from huesenv.vocabulary import normalise_word, word_texts

PICK, CUE1, GUESS1, CUE2, GUESS2, DONE = 0, 1, 2, 3, 4, 5  # indices into huesenv.game.phase.PHASES
GIVER_ROLE, GUESSER_ROLE = 0, 1


@dataclass
class TimeStep:
    """What :meth:`HuesCuesVectorGame.step` returns (arrays of the game's namespace, batch first).

    ``rewards[b, s]``: points (and penalties) seat ``s`` of game ``b`` received
    since the previous caller decision, including opponent moves and the reveal,
    except points of a game that began after it (see :meth:`HuesCuesVectorGame.step`);
    ``terminated[b]``: game ``b`` ended in this step (it has been reset:
    ``current_player`` and the masks are the new game's); ``final_scores[b]`` the
    ended game's scores (zeros elsewhere); ``illegal[b]``: it ended on an illegal action.  The arrays are
    the caller's: later steps never change them (:class:`~huesenv.envs.vector_game.arrays.OutputPool`).
    """

    current_player: Any
    action_mask: Any
    rewards: Any
    terminated: Any
    final_scores: Any
    illegal: Any
    role_rewards: Any  # (B, S, 2): rewards split into cue-giver / guesser points


class HuesCuesVectorGame:
    """The batched game (see the module docstring)."""

    def __init__(
        self,
        num_games: int,
        num_players: int | Sequence[int] = 4,
        *,
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        caller: Iterable[int] | np.ndarray | None = None,
        opponents: TableOpponent | Sequence[TableOpponent] = RANDOM,
        illegal_reward: float = -1.0,
        xp: Any = None,
        device: Any = None,
        seed: int | None = None,
    ) -> None:
        if isinstance(num_games, bool) or int(num_games) < 1:
            raise ValueError(f"num_games: expected an integer >= 1, got {num_games!r}")
        self.num_games = b = int(num_games)
        self.rules = rules or DEFAULT_RULES
        r = self.rules
        players = [num_players] * b if isinstance(num_players, (int, np.integer)) else list(num_players)
        if len(players) != b:
            raise ValueError(f"num_players: expected an int or {b} values (one per game), got {len(players)}")
        players = [r.check_players(int(n)) for n in players]
        self.vocabulary = tuple(
            normalise_word(w) for w in (vocabulary if vocabulary is not None else word_texts())
        )
        if not self.vocabulary or len(set(self.vocabulary)) != len(self.vocabulary):
            raise ValueError("vocabulary: expected a non-empty list of distinct words (after normalise_word)")
        self.V = v = len(self.vocabulary)
        self.S = s = r.max_players
        self.A = N_CELLS + v + 1
        self.pass_action = N_CELLS + v
        self.K = 2 * (s - 1)  # cones per round at most
        self.illegal_reward = float(illegal_reward)
        self.ops = o = ArrayOps(xp, device, seed)
        # static tables (numpy -> namespace)
        self.points = o.asarray(np.asarray(r.points_matrix, dtype=np.int64))
        # a cone's guesser points and frame flag, looked up once when it is placed (target * 480 + cell)
        points = np.asarray(r.points_matrix).reshape(-1)
        small = points.min() >= np.iinfo(np.int8).min and points.max() <= np.iinfo(np.int8).max
        self._cone_points = o.asarray(points.astype(np.int8 if small else np.int64))
        self._cone_frame = o.asarray(np.asarray(r.in_frame_matrix, dtype=bool).reshape(-1))
        ok = np.array(
            [[static_cue_problem(r, w, k) is None for w in self.vocabulary] for k in (1, 2)], dtype=bool
        )
        # per phase, the words the static rules allow then (none outside the cue phases)
        by_phase = np.zeros((DONE + 1, v), dtype=bool)
        by_phase[CUE1], by_phase[CUE2] = ok
        self._phase_words = o.asarray(by_phase)
        self.deck: Any = None if r.deck is None else o.asarray(np.asarray(r.deck, dtype=np.int64))
        self.max_rounds = max(r.num_rounds(n) for n in range(r.min_players, r.max_players + 1))
        self.caller = self._caller(caller)
        self._opponents(opponents)
        # per-game state
        self.n = o.asarray(np.asarray(players, dtype=np.int64))
        self.rounds_total = o.asarray(np.asarray([r.num_rounds(n) for n in players], dtype=np.int64))
        self.rows = o.arange(b)
        z64 = lambda *shape: o.zeros(shape, o.int64)  # noqa: E731
        self.round, self.phase, self.giver, self.current, self.pos = z64(b), z64(b), z64(b), z64(b), z64(b)
        self.target = o.full(b, -1, o.int64)
        self.card = z64(b, r.card_size)
        self.cue = z64(b, 2)  # 0 not given, 1 + i word i, V + 1 passed
        self.used = o.zeros((b, v), o.bool)
        self.occupied = o.zeros((b, N_CELLS), o.bool)
        self.cone_code = o.zeros((b, self.K), o.int32)  # seat * 480 + cell (the observation's cone entries)
        # the round's points so far, added as each cone is placed (scored at the reveal)
        self.round_guess_points = z64(b, s)  # per guesser seat
        self.round_in_frame = z64(b)  # cones in the target's frame (the cue giver's points)
        self.n_cones = z64(b)
        self.scores = z64(b, s)
        self.role_points = z64(b, s, 2)
        self.final_role_points = z64(b, s, 2)  # points by role of each slot's last ended game
        self.deck_order: Any = None
        # replayed-human bookkeeping: answers used per (game, seat): (word, index) pairs
        self.U = 2 * self.max_rounds
        self.used_word = o.full((b, s, self.U), -1, o.int64)
        self.used_idx = o.full((b, s, self.U), -1, o.int64)
        self.n_used = z64(b, s)
        self.games_finished = 0
        self._has_reset = False
        # rewards of games that began inside a step (or the reset), paid at the caller's first decision
        self._carry = o.zeros((b, s), o.float32)
        self._carry_role = o.zeros((b, s, 2), o.float32)
        self._ended = o.zeros((b, s), o.float32)
        self._ended_role = o.zeros((b, s, 2), o.float32)
        # called as f(rows, actions, seats, phases, cards) (numpy; seats/phases/cards before the move)
        # after every applied move (``pre_listeners``: the same, just before it)
        self.listeners: list[Any] = []
        self.pre_listeners: list[Any] = []
        # called as f(rows, illegal) when games end (``illegal``: on an illegal action), before they are reset
        self.end_listeners: list[Any] = []
        short = [n for n in sorted(set(players)) if not self._caller_np[:n].any()]
        if short:
            raise ValueError(
                f"caller: no caller seat among the {short[0]} seats of a game (every game needs one)"
            )

    # -- configuration ----------------------------------------------------------------
    def _caller(self, caller: Iterable[int] | np.ndarray | None) -> Any:
        s = self.S
        if caller is None:
            table = np.ones((s, 2), dtype=bool)
        elif isinstance(caller, np.ndarray) and caller.dtype == np.bool_:
            if caller.shape != (s, 2):
                raise ValueError(
                    f"caller: expected a ({s}, 2) bool array (seat, role), got shape {caller.shape}"
                )
            table = caller.copy()
        else:
            seats = [int(x) for x in caller]
            if any(not 0 <= x < s for x in seats):
                raise ValueError(f"caller: expected seats 0-{s - 1}, got {seats}")
            table = np.zeros((s, 2), dtype=bool)
            table[seats] = True
        self._caller_np = table
        return self.ops.asarray(table)

    def _opponents(self, opponents: TableOpponent | Sequence[TableOpponent]) -> None:
        seq = [opponents] * self.S if isinstance(opponents, TableOpponent) else list(opponents)
        if len(seq) != self.S:
            raise ValueError(
                f"opponents: expected one TableOpponent or {self.S} (one per seat), got {len(seq)}"
            )
        kinds: list[TableOpponent] = []
        index = np.zeros(self.S, dtype=np.int64)
        for i, t in enumerate(seq):
            if not isinstance(t, TableOpponent):
                raise ValueError(
                    f"opponents[{i}]: expected a TableOpponent (arrays; the agents layer builds them from agents), got {type(t).__name__}"
                )
            t.check(self.V)
            j = next((k for k, u in enumerate(kinds) if u is t), None)
            if j is None:
                kinds.append(t)
                j = len(kinds) - 1
            index[i] = j
        o = self.ops
        self.opponent_index = o.asarray(index)
        self._kinds = []
        for t in kinds:
            entry: dict[str, Any] = {"name": t.name}
            if t.guess_scores is not None:
                entry["scores"] = o.asarray(np.asarray(t.guess_scores, dtype=np.float32))
            if t.pool is not None:
                pool = np.asarray(t.pool, dtype=np.int64)
                entry["pool"] = o.asarray(pool)
                entry["pool_known"] = o.asarray((pool >= 0).any(1))
                # added to an answer's uniform draw: 0 for the row's answers, -2 past them (never taken)
                pad = np.arange(pool.shape[1])[None, :] >= (pool >= 0).sum(1)[:, None]
                entry["pool_pad"] = o.asarray(np.where(pad, -2.0, 0.0).astype(np.float32))
            if t.cue_value is not None:
                value = np.asarray(t.cue_value, dtype=np.float32)
                entry["value_t"] = o.asarray(np.ascontiguousarray(value.T))  # (480, V)
            self._kinds.append(entry)

    @property
    def opponent_names(self) -> list[str]:
        return [self._kinds[int(i)]["name"] for i in self.ops.to_numpy(self.opponent_index)]

    # -- reset ------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> TimeStep:
        if seed is not None:
            self.ops.seed(seed)
        self._has_reset = True
        self.games_finished = 0
        rewards = self.ops.zeros((self.num_games, self.S), self.ops.float32)
        role = self.ops.zeros((self.num_games, self.S, 2), self.ops.float32)
        self._new_games(self.rows)
        self._advance(rewards, role)
        self._carry, self._carry_role = rewards, role  # paid with the first decision (see step)
        zero_r = self.ops.zeros((self.num_games, self.S), self.ops.float32)
        zero_role = self.ops.zeros((self.num_games, self.S, 2), self.ops.float32)
        return self._timestep(zero_r, zero_role, self.ops.zeros(self.num_games, self.ops.bool), None, None)

    def _new_games(self, rows: Any) -> None:
        o = self.ops
        self.scores[rows] = 0
        self.role_points[rows] = 0
        self.used[rows] = False
        self.used_word[rows] = -1
        self.used_idx[rows] = -1
        self.n_used[rows] = 0
        if self.deck is not None:
            d = self.deck.shape[0]
            order = o.random((int(rows.shape[0]), d)).argsort(-1)
            if self.deck_order is None:
                self.deck_order = o.zeros((self.num_games, d), o.int64)
            self.deck_order[rows] = order
        self._start_round(rows, o.zeros(int(rows.shape[0]), o.int64))

    def _start_round(self, rows: Any, index: Any) -> None:
        k = int(rows.shape[0])
        self.round[rows] = index
        giver = (self.rules.first_cue_giver + index) % self.n[rows]
        self.giver[rows] = giver
        self.current[rows] = giver
        self.phase[rows] = PICK
        self.pos[rows] = 0
        self.target[rows] = -1
        self.cue[rows] = 0
        self.occupied[rows] = False
        self.n_cones[rows] = 0
        self.round_guess_points[rows] = 0
        self.round_in_frame[rows] = 0
        if self.deck is None:
            self.card[rows] = self._draw_cards(k)
        else:
            d = self.deck.shape[0]
            self.card[rows] = self.deck[self.deck_order[rows, index % d]]

    def _draw_cards(self, k: int) -> Any:
        """``k`` cards of ``card_size`` distinct uniform cells (duplicates redrawn)."""
        o, c = self.ops, self.rules.card_size
        cards = o.integers(N_CELLS, (k, c))
        while True:
            dup = o.zeros(k, o.bool)
            for i in range(1, c):
                for j in range(i):
                    dup |= cards[:, i] == cards[:, j]
            if not bool(dup.any()):
                return cards
            idx = o.nonzero(dup)
            cards[idx] = o.integers(N_CELLS, (int(idx.shape[0]), c))

    # -- legality: one rule per block of the action space (cells, words, pass), each read either as the
    # whole block (the mask) or at one column per game (legal actions, random draws) -------------------
    def _at(self, x: Any, rows: Any) -> Any:
        return x if rows is self.rows else x[rows]  # every game: no gather

    def _cells_ok(self, rows: Any, cell: Any = None, out: Any = None) -> Any:
        """Cells legal now: a free cell while guessing, a card cell when picking the target; written into
        ``out`` ``(R, 480)``, or read at one ``cell`` per game ``(R,)``."""
        o, ph = self.ops, self._at(self.phase, rows)
        guess = (ph == GUESS1) | (ph == GUESS2)
        if cell is None:  # (one pass over the cells, then the few rows not guessing)
            o.xp.logical_not(self._at(self.occupied, rows), out=out)
            out[o.nonzero(~guess)] = False
            pick = o.nonzero(ph == PICK)
            out[pick[:, None], self._at(self.card, rows)[pick]] = True
            return out
        free = ~o.take_flat(self.occupied, rows * N_CELLS + cell)
        card = self._at(self.card, rows)
        on_card = card[:, 0] == cell
        for i in range(1, self.rules.card_size):
            on_card |= card[:, i] == cell
        return (guess & free) | ((ph == PICK) & on_card)

    def _words_ok(self, rows: Any, word: Any = None, out: Any = None, phase: Any = None) -> Any:
        """Words legal in ``phase`` (default: the game's; none outside the cue phases): the static rules
        minus the game's used cues; written into ``out`` ``(R, V)``, or read at one ``word`` per game."""
        o = self.ops
        phase = self._at(self.phase, rows) if phase is None else phase
        if word is None:  # in place: no (R, V) temporaries
            o.take_rows(self._phase_words, phase, out=out)
            if self.rules.unique_cues:
                o.xp.greater(out, self._at(self.used, rows), out=out)  # allowed and not used
            return out
        ok = o.take_flat(self._phase_words, phase * self.V + word)
        return ok & ~o.take_flat(self.used, rows * self.V + word) if self.rules.unique_cues else ok

    def allowed_words(self, rows: Any) -> Any:
        """(R, V) bool: words valid as the current cue, cue 1's outside cue 2 (what a cue giver may say next)."""
        o = self.ops
        cue = o.where(self._at(self.phase, rows) == CUE2, CUE2, CUE1)
        return self._words_ok(rows, out=o.empty((int(rows.shape[0]), self.V), o.bool), phase=cue)

    def _pass_ok(self, rows: Any) -> Any:
        return (self._at(self.phase, rows) == CUE2) & self.rules.allow_pass

    def action_mask(self) -> Any:
        """(B, A) bool: the legal actions of the seat on turn in each game (a new array, the caller's)."""
        o, rows = self.ops, self.rows
        mask = o.output((self.num_games, self.A), o.bool)
        self._cells_ok(rows, out=mask[:, :N_CELLS])
        self._words_ok(rows, out=mask[:, N_CELLS : self.pass_action])
        mask[:, self.pass_action] = self._pass_ok(rows)
        return mask

    def legal(self, rows: Any, a: Any) -> Any:
        """(R,) bool: action ``a[i]`` is legal in game ``rows[i]`` now (the mask's rules at that column)."""
        o = self.ops
        is_cell = (a >= 0) & (a < N_CELLS)
        is_word = (a >= N_CELLS) & (a < self.pass_action)
        cell_ok = is_cell & self._cells_ok(rows, o.where(is_cell, a, 0))
        word_ok = is_word & self._words_ok(rows, o.where(is_word, a - N_CELLS, 0))
        return cell_ok | word_ok | ((a == self.pass_action) & self._pass_ok(rows))

    def seat_role(self, rows: Any) -> Any:
        """(R,) 0 when the seat on turn acts as cue giver, 1 as guesser."""
        ph = self.phase[rows]
        g = (ph == GUESS1) | (ph == GUESS2)
        return self.ops.astype(g, self.ops.int64)

    def caller_turn(self) -> Any:
        """(B,) bool: the decision on turn belongs to the caller."""
        role = self.seat_role(self.rows)
        return self.ops.take_flat(self.caller, self.current * 2 + role)

    # -- actions ---------------------------------------------------------------------------
    def random_actions(self, rows: Any = None) -> Any:
        """One uniformly random legal action per game of ``rows`` (phase-aware rejection sampling)."""
        o = self.ops
        rows = self.rows if rows is None else rows
        k = int(rows.shape[0])
        ph = self._at(self.phase, rows)
        c = self.rules.card_size
        card_pick = o.take_flat(self.card, rows * c + o.integers(c, (k,)))
        out = o.where(ph == PICK, card_pick, o.zeros(k, o.int64))
        guess = o.nonzero((ph == GUESS1) | (ph == GUESS2))
        if int(guess.shape[0]):
            out[guess] = self._random_free(rows[guess])
        cue = o.nonzero((ph == CUE1) | (ph == CUE2))
        if int(cue.shape[0]):
            out[cue] = N_CELLS + self._random_word(rows[cue])
        return out

    def _random_free(self, rows: Any) -> Any:
        """A uniform free cell per game of ``rows``: a few rejection rounds checking only the drawn cells,
        then an exact draw over the row for the rare stragglers."""
        o = self.ops
        base = rows * N_CELLS
        pick = o.integers(N_CELLS, (int(rows.shape[0]),))
        bad = o.nonzero(o.take_flat(self.occupied, base + pick))
        for _ in range(4):
            if not int(bad.shape[0]):
                return pick
            pick[bad] = o.integers(N_CELLS, (int(bad.shape[0]),))
            bad = bad[o.take_flat(self.occupied, base[bad] + pick[bad])]
        if int(bad.shape[0]):
            sub = ~self.occupied[rows[bad]]
            pick[bad] = o.masked_argmax(o.random((int(bad.shape[0]), N_CELLS)), sub)
        return pick

    def _random_word(self, rows: Any) -> Any:
        """A uniform legal column of the words and pass (``V`` = pass) per game of ``rows`` (in a cue phase),
        as :meth:`_random_free` draws: :meth:`_words_ok` and :meth:`_pass_ok` read at the drawn columns."""
        o, v = self.ops, self.V
        k = int(rows.shape[0])
        pass_ok = self._pass_ok(rows)

        def ok(i: Any, col: Any) -> Any:  # entries i (of rows) at columns col
            good = self._words_ok(rows[i], o.where(col < v, col, 0))
            return o.where(col < v, good, pass_ok[i])

        pick = o.integers(v + 1, (k,))
        bad = o.nonzero(~ok(o.arange(k), pick))
        for _ in range(4):
            if not int(bad.shape[0]):
                return pick
            pick[bad] = o.integers(v + 1, (int(bad.shape[0]),))
            bad = bad[~ok(bad, pick[bad])]
        if int(bad.shape[0]):
            sub = o.zeros((int(bad.shape[0]), v + 1), o.bool)
            self._words_ok(rows[bad], out=sub[:, :v])
            sub[:, v] = pass_ok[bad]
            pick[bad] = o.masked_argmax(o.random((int(bad.shape[0]), v + 1)), sub)
        return pick

    # -- stepping ------------------------------------------------------------------------------
    def step(self, actions: Any) -> TimeStep:
        """Apply the caller's action in every game, then play opponents until each waits for the caller.

        Rewards: what each seat scored from this decision to the caller's next one, so the rounds an
        ended game finished without the caller are paid at its terminal step.  When a game ends and its
        slot's new game plays moves before the caller's first decision in it (a round the caller takes no
        part in, e.g. a table-played cue giver's), those points belong to the new game: they are kept and
        paid with that first decision's step (the reset's likewise with the first step), so a game's
        rewards, summed over its steps, are its final scores.
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        o = self.ops
        a = (
            o.asarray(actions, o.int64).reshape(-1)
            if not o.is_torch
            else o.xp.as_tensor(actions, device=o.device).to(o.int64).reshape(-1)
        )
        if int(a.shape[0]) != self.num_games:
            raise ValueError(
                f"actions: expected {self.num_games} actions (one per game), got {int(a.shape[0])}"
            )
        rewards, role = self._carry, self._carry_role
        terminated = o.zeros(self.num_games, o.bool)
        illegal = o.zeros(self.num_games, o.bool)
        final = o.output((self.num_games, self.S), o.int64, 0)
        self._apply(self.rows, a, rewards, role, terminated, final, illegal)
        self._advance(rewards, role, terminated, final)
        self._carry = o.output((self.num_games, self.S), o.float32, 0)
        self._carry_role = o.output((self.num_games, self.S, 2), o.float32, 0)
        ended = o.nonzero(terminated)
        if int(ended.shape[0]):  # what the new games scored so far waits for their first decision
            self._carry[ended] = rewards[ended]
            self._carry_role[ended] = role[ended]
            rewards[ended] = self._ended[ended]
            role[ended] = self._ended_role[ended]
        return self._timestep(rewards, role, terminated, final, illegal)

    def _advance(self, rewards: Any, role: Any, terminated: Any = None, final: Any = None) -> None:
        o = self.ops
        if terminated is None:
            terminated = o.zeros(self.num_games, o.bool)
            final = o.zeros((self.num_games, self.S), o.int64)
        while not self._caller_np.all():  # (self-play: every decision is the caller's)
            todo = o.nonzero(~self.caller_turn())
            if not int(todo.shape[0]):
                return
            actions = self.opponent_actions(todo)
            self._apply(todo, actions, rewards, role, terminated, final, None)

    def _timestep(self, rewards: Any, role: Any, terminated: Any, final: Any, illegal: Any) -> TimeStep:
        o = self.ops
        final = o.zeros((self.num_games, self.S), o.int64) if final is None else final
        illegal = o.zeros(self.num_games, o.bool) if illegal is None else illegal
        return TimeStep(
            current_player=o.copy(self.current),
            action_mask=self.action_mask(),
            rewards=rewards,
            terminated=terminated,
            final_scores=final,
            illegal=illegal,
            role_rewards=role,
        )

    def _apply(
        self, rows: Any, a: Any, rewards: Any, role: Any, terminated: Any, final: Any, illegal: Any
    ) -> None:
        """Apply action ``a[i]`` in game ``rows[i]`` (the seat on turn plays it)."""
        o = self.ops
        legal = self.legal(rows, a)
        if illegal is not None:
            bad = o.nonzero(~legal)
            if int(bad.shape[0]):
                br = rows[bad]
                rewards[br, self.current[br]] += self.illegal_reward
                illegal[br] = True
                self._end_games(br, terminated, final, rewards, role, illegal=True)
                keep = o.nonzero(legal)
                rows, a = rows[keep], a[keep]
        elif not bool(legal.all()):
            raise AssertionError("an opponent table produced an illegal action")  # a bug, never user input
        if self.listeners or self.pre_listeners:  # taken before the move: seat, phase and card
            moved = [
                o.to_numpy(x).copy() for x in (rows, a, self.current[rows], self.phase[rows], self.card[rows])
            ]
            for listener in self.pre_listeners:
                listener(*moved)
        ph = self.phase[rows]
        # target
        idx = o.nonzero(ph == PICK)
        if int(idx.shape[0]):
            r = rows[idx]
            self.target[r] = a[idx]
            self.phase[r] = CUE1
        # cues and passes
        idx = o.nonzero((ph == CUE1) | (ph == CUE2))
        if int(idx.shape[0]):
            r, act, p = rows[idx], a[idx], ph[idx]
            passed = act == self.pass_action
            code = o.where(passed, self.V + 1, act - N_CELLS + 1)
            slot = o.astype(p == CUE2, o.int64)
            self.cue[r, slot] = code
            words = o.nonzero(~passed)
            self.used[r[words], act[words] - N_CELLS] = True
            first = o.nonzero(p == CUE1)
            if int(first.shape[0]):
                self._start_guessing(r[first], GUESS1)
            second = o.nonzero(p == CUE2)
            if int(second.shape[0]):
                r2, pass2 = r[second], passed[second]
                if not self.rules.second_cone_after_pass:
                    rev = o.nonzero(pass2)
                    if int(rev.shape[0]):
                        self._reveal(r2[rev], rewards, role, terminated, final)
                    r2 = r2[o.nonzero(~pass2)]
                if int(r2.shape[0]):
                    self._start_guessing(r2, GUESS2)
        # cones
        idx = o.nonzero((ph == GUESS1) | (ph == GUESS2))
        if int(idx.shape[0]):
            r, cell, p = rows[idx], a[idx], ph[idx]
            seat = self.current[r]
            o.put_flat(self.occupied, r * N_CELLS + cell, True)
            nc = self.n_cones[r]
            o.put_flat(self.cone_code, r * self.K + nc, o.astype(seat * N_CELLS + cell, o.int32))
            self.n_cones[r] = nc + 1
            at = self.target[r] * N_CELLS + cell
            flat = r * self.S + seat
            points = o.take_flat(self.round_guess_points, flat) + o.take_flat(self._cone_points, at)
            o.put_flat(self.round_guess_points, flat, points)
            self.round_in_frame[r] += o.take_flat(self._cone_frame, at)
            pos = self.pos[r] + 1
            self.pos[r] = pos
            n, g = self.n[r], self.giver[r]
            more = pos < n - 1
            step = o.where(p == GUESS1, 1, -1)
            self.current[r] = o.where(more, (g + step * (pos + 1)) % n, g)
            to_cue2 = o.nonzero(~more & (p == GUESS1))
            if int(to_cue2.shape[0]):
                self.phase[r[to_cue2]] = CUE2
            rev = o.nonzero(~more & (p == GUESS2))
            if int(rev.shape[0]):
                self._reveal(r[rev], rewards, role, terminated, final)
        for listener in self.listeners:
            listener(*moved)

    def _start_guessing(self, rows: Any, phase: int) -> None:
        step = 1 if phase == GUESS1 else -1
        self.phase[rows] = phase
        self.pos[rows] = 0
        self.current[rows] = (self.giver[rows] + step) % self.n[rows]

    def _reveal(self, rows: Any, rewards: Any, role: Any, terminated: Any, final: Any) -> None:
        """Score the round (``rules.points_matrix`` / ``in_frame_matrix``) and start the next one or end the game."""
        o = self.ops
        guess_pts = self.round_guess_points[rows]  # (k, S) points per seat (none for the cue giver)
        giver_pts = self.round_in_frame[rows] * self.rules.cue_giver_points  # (k,)
        at = rows * self.S + self.giver[rows]  # the cue giver's entries of (B, S) arrays
        self.scores[rows] += guess_pts
        o.put_flat(self.scores, at, o.take_flat(self.scores, at) + giver_pts)
        self.role_points[rows, :, GUESSER_ROLE] += guess_pts
        at_role = at * 2 + GIVER_ROLE
        o.put_flat(self.role_points, at_role, o.take_flat(self.role_points, at_role) + giver_pts)
        guess_f, giver_f = o.astype(guess_pts, o.float32), o.astype(giver_pts, o.float32)
        rewards[rows] += guess_f
        o.put_flat(rewards, at, o.take_flat(rewards, at) + giver_f)
        role[rows, :, GUESSER_ROLE] += guess_f
        o.put_flat(role, at_role, o.take_flat(role, at_role) + giver_f)
        nxt = self.round[rows] + 1
        done = nxt >= self.rounds_total[rows]
        ended = o.nonzero(done)
        if int(ended.shape[0]):
            self._end_games(rows[ended], terminated, final, rewards, role)
        going = o.nonzero(~done)
        if int(going.shape[0]):
            self._start_round(rows[going], nxt[going])

    def _end_games(
        self, rows: Any, terminated: Any, final: Any, rewards: Any, role: Any, illegal: bool = False
    ) -> None:
        terminated[rows] = True
        # the ended games' rewards of this step, kept apart from what their slots' new games score next
        self._ended[rows] = rewards[rows]
        self._ended_role[rows] = role[rows]
        rewards[rows] = 0.0
        role[rows] = 0.0
        final[rows] = self.scores[rows]
        self.final_role_points[rows] = self.role_points[rows]
        self.games_finished += int(rows.shape[0])
        if self.end_listeners:
            # the ended games are shown in phase ``done`` (index 5), as GameState is after its last reveal
            saved = self.ops.copy(self.phase[rows])
            self.phase[rows] = DONE
            for listener in self.end_listeners:
                listener(rows, illegal)
            self.phase[rows] = saved
        self._new_games(rows)

    # -- opponents ------------------------------------------------------------------------------
    def opponent_actions(self, rows: Any) -> Any:
        """The table opponents' actions in games ``rows`` (each game's seat on turn, its own table)."""
        o = self.ops
        out = o.zeros(int(rows.shape[0]), o.int64)
        kind = self.opponent_index[self.current[rows]]
        for j, entry in enumerate(self._kinds):
            sel = o.nonzero(kind == j)
            if int(sel.shape[0]):
                out[sel] = self._table_actions(rows[sel], entry)
        return out

    def _table_actions(self, rows: Any, t: dict[str, Any]) -> Any:
        o = self.ops
        ph = self.phase[rows]
        out = self.random_actions(rows)
        guess = o.nonzero((ph == GUESS1) | (ph == GUESS2))
        if int(guess.shape[0]) and ("scores" in t or "pool" in t):
            out[guess] = self._table_guess(rows[guess], t)
        if "value_t" in t:
            giver = o.nonzero((ph == PICK) | (ph == CUE1) | (ph == CUE2))
            if int(giver.shape[0]):
                out[giver] = self._table_cue(rows[giver], t, out[giver])
        else:  # random cue giver passes cue 2
            if self.rules.allow_pass:
                out = o.where(ph == CUE2, self.pass_action, out)
        return out

    def _table_guess(self, rows: Any, t: dict[str, Any]) -> Any:
        o = self.ops
        cue = self.cue[rows]  # (R, 2)
        known = (cue >= 1) & (cue <= self.V)
        word = o.where(known, cue - 1, 0)
        if "scores" in t:
            free = ~self.occupied[rows]
            sc = t["scores"]
            w = o.astype(known, o.float32)
            total = sc[word[:, 0]] * w[:, 0:1] + sc[word[:, 1]] * w[:, 1:2]
            count = w.sum(1, keepdims=True) if not o.is_torch else w.sum(1, keepdim=True)
            mean = total / o.where(count > 0, count, o.full((), 1.0, o.float32) if o.is_torch else 1.0)
            pick = o.masked_argmax(mean, free)
            none = o.nonzero(count[:, 0] == 0)
            if int(none.shape[0]):
                pick[none] = self._random_free(rows[none])
            return pick
        # replayed humans: the latest cue people answered; of the answers not yet drawn by this seat for that
        # word and on a free cell, the one with the largest uniform draw (each answer equally likely)
        pool, pknown = t["pool"], t["pool_known"]
        k1 = known[:, 0] & pknown[word[:, 0]]
        k2 = known[:, 1] & pknown[word[:, 1]]
        w = o.where(k2, word[:, 1], word[:, 0])
        has = k1 | k2
        r, length = int(rows.shape[0]), int(pool.shape[1])
        # score of each answer: its draw in [0, 1), or below 0 where it cannot be taken (past the row's
        # answers, already drawn).  No
        # (R, L) gather of the board: the best candidate's cell is checked, and only rows where it is taken
        # look again (the first argmax of the draws over the answers on free cells, exactly)
        x = o.random((r, length))
        x += o.take_rows(t["pool_pad"], w)
        seat = self.current[rows]
        at = rows * self.S + seat
        uw = o.take_rows(self.used_word.reshape(-1, self.U), at)  # (R, U) answers this seat drew
        same = o.nonzero((uw == w[:, None]).reshape(-1))  # of this word: no longer candidates
        if int(same.shape[0]):
            ui = o.take_flat(self.used_idx.reshape(-1, self.U)[at], same)
            o.put_flat(x, (same // self.U) * length + ui, -3.0)
        ar = o.arange(r)
        choice = x.argmax(-1)
        pending = o.nonzero(has & (o.take_flat(x, ar * length + choice) >= 0))
        found = o.zeros(r, o.bool)
        for attempt in range(8):
            if not int(pending.shape[0]):
                break
            c = choice[pending]
            cell = o.take_flat(pool, w[pending] * length + c)
            taken = o.take_flat(self.occupied, rows[pending] * N_CELLS + o.clamp(cell, low=0))
            found[pending[~taken]] = True
            bad = pending[taken]
            o.put_flat(x, bad * length + c[taken], -4.0)
            if attempt == 7 and int(bad.shape[0]):  # many taken answers: every cell of these rows at once
                cells = pool[w[bad]]
                free = ~o.take_flat(self.occupied, (rows[bad] * N_CELLS)[:, None] + o.clamp(cells, low=0))
                x[bad] -= 8.0 * o.astype(~free, o.float32)
            choice[bad] = x[bad].argmax(-1)
            pending = bad[o.take_flat(x, bad * length + choice[bad]) >= 0]
            if attempt == 7:
                found[pending] = True
        pick = o.zeros(r, o.int64)
        hit = o.nonzero(found)
        if int(hit.shape[0]):
            ch = choice[hit]
            pick[hit] = o.take_flat(pool, w[hit] * length + ch)
            hr, hs = rows[hit], seat[hit]
            nu = self.n_used[hr, hs]
            self.used_word[hr, hs, nu] = w[hit]
            self.used_idx[hr, hs, nu] = ch
            self.n_used[hr, hs] = nu + 1
        miss = o.nonzero(~found)
        if int(miss.shape[0]):
            pick[miss] = self._random_free(rows[miss])
        return pick

    def _table_cue(self, rows: Any, t: dict[str, Any], fallback: Any) -> Any:
        o = self.ops
        vt = t["value_t"]  # (480, V)
        ph = self.phase[rows]
        allowed = self.allowed_words(rows)  # (R, V): cue 1 words at pick_target
        neg = float("-inf")
        out = o.copy(fallback)
        pick = o.nonzero(ph == PICK)
        if int(pick.shape[0]):
            card = self.card[rows[pick]]  # (P, C)
            val = vt[card]  # (P, C, V)
            # the replay agent's tie order, word-major: the first allowed word with the best value on the card,
            # then its first card cell with that value (no (P, C, V) masked copy: masks per word suffice)
            per_word = val.amax(1) if o.is_torch else val.max(1)  # (P, V)
            ok = allowed[pick]
            word = o.masked_argmax(per_word, ok)
            ar = o.arange(int(pick.shape[0]))
            j = val[ar, :, word].argmax(-1)  # (P, C) values of that word
            usable = ok[ar, word] & (per_word[ar, word] > neg)
            chosen = card[ar, j]
            out[pick] = o.where(usable, chosen, fallback[pick])
        cue = o.nonzero((ph == CUE1) | (ph == CUE2))
        if int(cue.shape[0]):
            r = rows[cue]
            val = vt[self.target[r]]  # (Q, V)
            ok = allowed[cue] & (val > neg)
            best = o.masked_argmax(val, ok)
            usable = ok.any(1)
            second = ph[cue] == CUE2
            if self.rules.allow_pass:
                miss = o.where(second, self.pass_action, fallback[cue])
            else:
                miss = fallback[cue]
            out[cue] = o.where(usable, N_CELLS + best, miss)
        return out
