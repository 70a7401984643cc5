"""Self-play on the full vectorised game: every seat, both roles, one round of every game per update.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.selfplay_game``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from huesenv.agents.policy_net import guesser_forward, speaker_forward
from huesenv.board import N_CELLS
from huesenv.envs.vector_game.game import GIVER_ROLE, GUESSER_ROLE, PICK, HuesCuesVectorGame
from huesenv.game.rules import DEFAULT_RULES

TARGET_CHOICES = ("speaker", "card-random")
CUES_PER_ROUND = 2  # cue 1 and cue 2 (the speaker passes cue 2 only when no word is left)


class GameRounds:
    """The full game for one :class:`~huesenv.experiments.rl.selfplay.SelfPlay` (see the module docstring)."""

    def __init__(self, sp: Any) -> None:
        import torch

        cfg = sp.cfg
        self.sp, self.cfg, self.device = sp, cfg, sp.device
        self.G = int(cfg.guessers)
        self.rules = replace(DEFAULT_RULES, unique_cues=bool(cfg.unique_cues))
        self.game = HuesCuesVectorGame(
            int(cfg.num_games), self.G + 1, vocabulary=sp.vocabulary, rules=self.rules, caller=None
        )
        self.pass_action = self.game.pass_action
        self.vocab_ok = sp.allowed.cpu().numpy()  # the restricted vocabulary (cue-1 words, first vocab_size)
        self.in_frame_bool = torch.as_tensor(np.array(self.rules.in_frame_matrix), device=self.device)

    def reset(self, seed: int) -> None:
        self.game.reset(seed=seed)

    # -- acting ---------------------------------------------------------------------------------------------------
    def _allowed(self) -> Any:
        import torch

        ok = np.asarray(self.game.allowed_words(self.game.rows)) & self.vocab_ok[None, :]
        return torch.as_tensor(ok, device=self.device)

    def _pick_targets(self, generator: Any) -> np.ndarray:
        import torch

        g = self.game
        card = torch.as_tensor(g.card, device=self.device)  # (B, C)
        b, c = card.shape
        if self.cfg.target_choice == "card-random":
            j = torch.randint(0, c, (b,), device=self.device, generator=generator)
            return card[torch.arange(b, device=self.device), j].cpu().numpy()
        ok = self._allowed()  # cue-1 words (the phase is pick_target)
        with torch.no_grad():
            logits, _ = speaker_forward(self.sp.speaker, card.reshape(-1))
            logits = logits.reshape(b, c, -1).masked_fill(~ok[:, None, :], float("-inf"))
            word = logits.argmax(-1)  # (B, C) the speaker's greedy word per card cell
            empty = torch.zeros((b * c, N_CELLS), dtype=torch.bool, device=self.device)
            l_logits, _ = guesser_forward(self.sp.listener, word.reshape(-1), empty)
            probs = torch.softmax(l_logits, -1).reshape(b, c, N_CELLS)
            share = (probs * self.in_frame_bool[card].float()).sum(-1)  # (B, C) listener mass in the frame
        return card[torch.arange(b, device=self.device), share.argmax(-1)].cpu().numpy()

    def _say(self, generator: Any, target: Any) -> tuple[Any, Any, Any]:
        """Sample a word per game from the speaker over the allowed words: (word, allowed, has-a-word)."""
        import torch

        ok = self._allowed()
        has = ok.any(-1)
        with torch.no_grad():
            logits, _ = speaker_forward(self.sp.speaker, target)
            logits = torch.where(
                has[:, None], logits.masked_fill(~ok, float("-inf")), torch.zeros_like(logits)
            )
            word = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)
        return word, ok, has

    def _cone(self, generator: Any, cue: Any) -> tuple[Any, Any]:
        import torch

        occupied = torch.as_tensor(self.game.occupied, device=self.device).clone()
        with torch.no_grad():
            logits, _ = guesser_forward(self.sp.listener, cue, occupied)
            probs = torch.softmax(logits.masked_fill(occupied, float("-inf")), -1)
            cell = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
        return cell, occupied

    # -- one round and its gradient step --------------------------------------------------------------------------
    def round(self, generator: Any) -> dict[str, float]:
        """Play one round of every game, take one gradient step on both networks; return the round's numbers."""
        import torch
        import torch.nn as nn

        g, sp, cfg, G = self.game, self.sp, self.cfg, self.G
        phase = np.asarray(g.phase)
        if not (phase == PICK).all():
            raise RuntimeError("self-play rounds out of step (a game ended early); reset the games")
        rows = np.arange(g.num_games)
        giver = np.asarray(g.giver).copy()
        illegal = np.zeros(g.num_games, dtype=bool)
        board_points = np.zeros((g.num_games, g.S, 2))
        finished_before = g.games_finished

        def step(actions: np.ndarray) -> None:
            ts = g.step(actions)
            illegal[:] |= np.asarray(ts.illegal)
            board_points[:] += np.asarray(ts.role_rewards)

        step(self._pick_targets(generator))
        target_np = np.asarray(g.target).copy()
        target = torch.as_tensor(target_np, device=self.device)
        w1, ok1, has1 = self._say(generator, target)
        step(np.where(has1.cpu().numpy(), N_CELLS + w1.cpu().numpy(), self.pass_action))
        cues: list[Any] = []
        occs: list[Any] = []
        cells: list[Any] = []

        def cones(latest: Any) -> None:
            for _ in range(G):
                cell, occ = self._cone(generator, latest)
                cues.append(latest)
                occs.append(occ)
                cells.append(cell)
                step(cell.cpu().numpy())

        cones(w1)
        w2, ok2, has2 = self._say(generator, target)
        step(np.where(has2.cpu().numpy(), N_CELLS + w2.cpu().numpy(), self.pass_action))
        cones(torch.where(has2, w2, w1))  # the latest known cue: cue 2, or cue 1 after a pass
        if not (np.asarray(g.phase) == PICK).all() and not illegal.any():
            raise AssertionError("a self-play round did not end in a reveal")  # a bug, never user input

        # the gradient step: listener (exact expected cone reward) and speaker (REINFORCE on both cues)
        cue_t, occ_t = torch.cat(cues), torch.cat(occs)  # (2G·B,)
        tgt_rep = target.repeat(2 * G)
        logits, _ = guesser_forward(sp.listener, cue_t, occ_t)
        probs = torch.softmax(logits.masked_fill(occ_t, float("-inf")), -1)
        exp_points = (probs * sp.points[tgt_rep]).sum(-1)
        exp_credit = (probs * sp.in_frame[tgt_rep]).sum(-1)
        l_ent = -(probs * torch.log(probs.clamp_min(1e-12))).sum(-1)
        speaker_return = exp_credit.detach().reshape(2 * G, -1).sum(0)  # (B,)
        s_logits, s_value = speaker_forward(sp.speaker, target)
        d1 = torch.distributions.Categorical(logits=s_logits.masked_fill(~ok1, float("-inf")))
        safe2 = torch.where(has2[:, None], ok2, torch.ones_like(ok2))
        d2 = torch.distributions.Categorical(logits=s_logits.masked_fill(~safe2, float("-inf")))
        logp = d1.log_prob(w1) + torch.where(has2, d2.log_prob(w2), torch.zeros_like(s_value))
        adv = speaker_return - s_value.detach()
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        loss_speaker = -(adv * logp).mean() - cfg.ent_coef_speaker * d1.entropy().mean()
        loss_listener = -exp_points.mean() - cfg.ent_coef_listener * l_ent.mean()
        v_loss = 0.5 * ((speaker_return - s_value) ** 2).mean()
        loss = loss_speaker + loss_listener + cfg.vf_coef * v_loss
        sp.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(sp.params, cfg.max_grad_norm)
        sp.optimizer.step()

        cell_t = torch.cat(cells)
        sampled = sp.points[tgt_rep, cell_t]  # the training reward of the sampled cones
        n_cones = 2 * G * g.num_games
        return {
            "points": float(sampled.mean()),  # per guesser cone, training reward
            "expected_points": float(exp_points.mean().detach()),
            "speaker_points": float(speaker_return.mean()),
            "game_points": float(board_points[:, :, GUESSER_ROLE].sum() / n_cones),  # board points per cone
            "game_giver_points": float(board_points[rows, giver, GIVER_ROLE].mean()),  # per round
            "hit_rate": float((cell_t == tgt_rep).float().mean()),
            "speaker_entropy": float(d1.entropy().mean().detach()),
            "listener_entropy": float(l_ent.mean().detach()),
            "words_sampled": float(torch.unique(w1).numel()),
            "illegal": float(illegal.mean()),
            "games_finished": float(g.games_finished - finished_before),
        }
