"""``policy:PATH`` — a trained policy (a huesenv torch checkpoint or an SB3 zip) playing as an agent.

The agent answers the protocol's queries, so a learned policy plays tournaments,
the word-level evaluation, ``huesenv play`` and the envs' opponent seats like
any other agent.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.policy``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.devices import resolve_device
from huesenv.agents.policy_net import (
    PolicyCheckpoint,
    PolicySettings,
    check_settings,
    cue_indices,
    env_settings,
    guesser_forward,
    load_checkpoint,
    speaker_forward,
)
from huesenv.agents.protocol import Answer, BaseAgent, CueQuery, GuessQuery
from huesenv.agents.rllib_policy import is_rllib_checkpoint, load_rllib_policy, rllib_logits
from huesenv.agents.sb3_zip import load_sb3_policy, read_sb3_zip, settings_of
from huesenv.agents.text_encoders import make_text_encoder
from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.encoding import ObservationEncoder
from huesenv.game.phase import Phase
from huesenv.game.rules import DEFAULT_RULES, HuesCuesRules
from huesenv.game.view import PlayerView
from huesenv.trust import code_allowed
from huesenv.vocabulary import normalise_word

GUESS_PHASE = Phase.GUESS_1


class PolicyAgent(BaseAgent):
    """A learned policy behind the agent protocol (see the module docstring)."""

    name = "policy"

    def __init__(
        self,
        path: str | Path,
        *,
        seed: int | None = 0,
        sample: bool = False,
        device: str | None = "cpu",
        rules: HuesCuesRules | None = None,
        allow_code: bool = False,
        role: str | None = None,
        cue_encoding: str | None = None,
        include_board: bool | None = None,
        cue_vocabulary: str | Sequence[str] | None = None,
        flat_cue_weight: float | None = None,
    ) -> None:
        self.path = Path(path)
        hints = {
            k: v
            for k, v in dict(
                role=role,
                cue_encoding=cue_encoding,
                include_board=include_board,
                cue_vocabulary=cue_vocabulary,
                flat_cue_weight=flat_cue_weight,
            ).items()
            if v is not None
        }
        if hints and self.path.suffix != ".zip":
            raise ValueError(
                f"policy {self.path}: {sorted(hints)} are options for SB3 zips that record no settings; "
                "this checkpoint records its own"
            )
        self.sample = bool(sample)
        self.rules = rules or DEFAULT_RULES
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self.checkpoint: PolicyCheckpoint | None = None
        self.sb3_model: Any = None
        self._obs_encoder: Any = None
        self._text_encoder: Any = None
        self._cue_cache: dict[str, np.ndarray] = {}
        self._speaker_table: np.ndarray | None = None  # log S(word | cell) of a speaker-only checkpoint
        self.rllib_module: Any = None
        if is_rllib_checkpoint(self.path):  # acts through the SB3 path: flat observations, env action layout
            self.rllib_module, self.settings = load_rllib_policy(self.path, allow_code=allow_code)
            self.sb3_model = self.rllib_module
        elif self.path.suffix == ".zip":
            self.settings = self._load_sb3(device, hints)
        else:
            self.checkpoint = load_checkpoint(self.path)
            self.settings = self.checkpoint.settings
        self.vocabulary = tuple(self.settings.vocabulary)
        self.device = "cpu"
        if self.checkpoint is not None and device not in (None, "cpu"):
            self.device = resolve_device(device)
            for net in self.checkpoint.nets.values():
                net.to(self.device)

    # -- identity and settings ------------------------------------------------------------------------------------
    @property
    def agent_id(self) -> str:
        # a run folder's policy.pt is named after the run folder
        stem = self.path.stem
        return f"policy:{self.path.parent.name or stem}" if stem in ("policy", "model") else f"policy:{stem}"

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def check_env(self, env: Any) -> None:
        """Refuse (one-line :class:`PolicyMismatchError`) an env whose observation settings differ."""
        check_settings(self.settings, env_settings(env), source=f"policy {self.path}")

    def check(self, settings: Mapping[str, Any]) -> None:
        check_settings(self.settings, settings, source=f"policy {self.path}")

    def _load_sb3(self, device: str | None, hints: Mapping[str, Any]) -> PolicySettings:
        """Rebuild the zip's policy from plain data (:mod:`huesenv.agents.sb3_zip`, nothing unpickled).

        Only when that refuses the zip (a pickled ``policy_kwargs``: a custom
        class) and the user passed ``--allow-code`` is it unpickled with
        ``MaskablePPO.load``.
        """
        try:
            import sb3_contrib  # noqa: F401 - the rl extra
        except ImportError:
            raise ValueError(
                f"policy {self.path}: SB3 zips need the rl extra (pip install 'huesenv[rl]')"
            ) from None
        try:
            self.sb3_model = load_sb3_policy(self.path, device=device or "cpu", hints=hints)
        except ValueError as err:
            if not code_allowed() or not ("pickled" in str(err) or "--allow-code" in str(err)):
                raise
            from sb3_contrib import MaskablePPO

            self.sb3_model = MaskablePPO.load(str(self.path), device=device or "cpu")
        source = f"policy {self.path}"
        raw = getattr(self.sb3_model, "huesenv_settings", None)
        if not isinstance(
            raw, Mapping
        ):  # unpickled (--allow-code) and recording none: infer as for a plain zip
            data, _ = read_sb3_zip(self.path)
            space = self.sb3_model.observation_space
            n_actions = int(getattr(self.sb3_model.action_space, "n", 0))
            raw = settings_of(data, n_actions, source, obs_dim=int(np.prod(space.shape or (0,))), hints=hints)
        return PolicySettings.from_dict(raw, source=source)

    # -- guessing -------------------------------------------------------------------------------------------------
    def _guess_logits(self, queries: Sequence[GuessQuery]) -> tuple[np.ndarray, np.ndarray]:
        """Cell log-probabilities ``(B, 480)`` (illegal cells ``-inf``) and the known-cue flags."""
        legal = np.stack([q.legal_mask() for q in queries])
        idx, known = cue_indices([q.cues for q in queries], self.vocabulary)
        if self.sb3_model is not None:
            return self._sb3_guess_logits(queries, idx, legal), known
        if (
            self.checkpoint is not None
            and "guesser" not in self.checkpoint.nets
            and "speaker" in self.checkpoint.nets
        ):
            return self._listener_logits(queries, legal)
        if self.checkpoint is None or "guesser" not in self.checkpoint.nets:
            raise NotImplementedError(f"policy {self.path}: has no guesser network")
        import torch

        cue: Any = torch.as_tensor(idx, device=self.device)
        if self.reads_text:
            vectors, known = self._cue_vectors([q.cues for q in queries])
            cue = torch.as_tensor(vectors, device=self.device)
        with torch.no_grad():
            logits, _ = guesser_forward(
                self.checkpoint.nets["guesser"],
                cue,
                torch.as_tensor(~legal, device=self.device),
            )
            logits = logits.float().masked_fill(torch.as_tensor(~legal, device=self.device), float("-inf"))
            logp = torch.log_softmax(logits, dim=-1).cpu().numpy()
        return logp, known

    def _listener_logits(
        self, queries: Sequence[GuessQuery], legal: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """A speaker-only checkpoint guessing: the *literal listener* of its own speaker.

        ``L(cell | cues) ∝ Π S(cue | cell)`` over the query's cues in the policy's
        vocabulary (uniform prior over the legal cells): the cells from which the
        speaker would most likely have said these words.  Why: it is the mirror of
        the pragmatic speaker a guesser-only checkpoint gives cues with, so a
        learned cue giver plays the guesser seat from its own network, not from
        another agent's; the two cues of a round are treated as independent draws
        of the speaker.  No known cue: uniform over the legal cells
        (``known=False``, logged as ``agent_fallback``).
        """
        if self._speaker_table is None:
            import torch

            assert self.checkpoint is not None
            with torch.no_grad():
                logits, _ = speaker_forward(
                    self.checkpoint.nets["speaker"], torch.arange(N_CELLS, device=self.device)
                )
                self._speaker_table = torch.log_softmax(logits.float(), -1).cpu().numpy()  # (480, V)
        table = self._speaker_table
        index = {w: i for i, w in enumerate(self.vocabulary)}
        out = np.zeros((len(queries), N_CELLS))
        known = np.zeros(len(queries), dtype=bool)
        for q, query in enumerate(queries):
            for cue in query.cues:
                try:
                    key = normalise_word(cue)
                except ValueError:
                    continue
                if key in index:
                    out[q] += table[:, index[key]]
                    known[q] = True
        out = np.where(legal, out, -np.inf)
        m = out.max(axis=1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        with np.errstate(divide="ignore"):
            logp = out - m - np.log(np.exp(out - m).sum(axis=1, keepdims=True))
        return logp, known

    @property
    def reads_text(self) -> bool:
        """True for a torch guesser trained on text-encoder cue vectors: it reads any word or phrase."""
        return self.checkpoint is not None and self.settings.cue_encoding == "embedding"

    def knows_cue(self, cue: str) -> bool:
        """Whether the policy reads ``cue`` as itself (an index policy: only its vocabulary's words)."""
        if self.reads_text:
            return bool(str(cue).strip())
        return bool(cue_indices([(cue,)], self.vocabulary)[1][0])

    def _cue_vectors(self, cues: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Per query, the text-encoder vector of its latest non-empty cue (zeros and ``known=False`` when none).

        Why the latest cue: as for index policies (:func:`~huesenv.agents.policy_net.cue_indices`), the
        second cue refines the first.  A two-word cue is encoded as one phrase.
        """
        if self._text_encoder is None:
            self._text_encoder = make_text_encoder(str(self.settings.extra.get("text_encoder", "minilm")))
        dim = int(self.settings.extra.get("cue_dim", self._text_encoder.dim))
        texts = [
            next((" ".join(str(c).split()).lower() for c in reversed(tuple(q)) if str(c).strip()), "")
            for q in cues
        ]
        todo = sorted({t for t in texts if t and t not in self._cue_cache})
        if todo:
            for t, v in zip(todo, np.asarray(self._text_encoder.encode(todo), dtype=np.float32)):
                self._cue_cache[t] = v
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, t in enumerate(texts):
            if t:
                out[i] = self._cue_cache[t]
        return out, np.array([bool(t) for t in texts])

    def _sb3_guess_logits(
        self, queries: Sequence[GuessQuery], idx: np.ndarray, legal: np.ndarray
    ) -> np.ndarray:
        obs = np.stack([self._sb3_observation(q, GUESS_PHASE) for q in queries])
        logits = self._sb3_logits(obs)[:, :N_CELLS]
        logits = np.where(legal, logits, -np.inf)
        m = logits.max(axis=1, keepdims=True)
        return logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))

    def _sb3_logits(self, obs: np.ndarray) -> np.ndarray:
        import torch

        if self.rllib_module is not None:
            return rllib_logits(self.rllib_module, obs)

        policy = self.sb3_model.policy
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(obs_t)
            return dist.distribution.logits.cpu().numpy().astype(np.float64)

    def _encoder(self):
        """The env's observation encoder, configured as the policy was trained (built once)."""
        if self._obs_encoder is None:
            text_encoder = None
            if self.settings.cue_encoding == "embedding":
                text_encoder = make_text_encoder(str(self.settings.extra.get("text_encoder", "minilm")))
            self._obs_encoder = ObservationEncoder(
                self.rules,
                self.vocabulary,
                self.settings.cue_encoding,
                text_encoder,
                bool(self.settings.extra.get("include_board", False)),
                flat_cue_weight=float(self.settings.extra.get("flat_cue_weight", 4.0)),
            )
        return self._obs_encoder

    def _sb3_observation(self, query: GuessQuery | CueQuery, phase: Any) -> np.ndarray:
        """The flat observation the SB3 policy was trained on: the query's own view, encoded by the env's encoder.

        A query built by hand (the word-level task) has no view; it is read as
        seat 0 of a ``num_players`` game (the training setting) in round 0, the
        cue giver at seat 1, with the query's cues and no cones on the board.
        """
        view = getattr(query, "view", None)
        if view is None:
            cues = tuple(getattr(query, "cues", ()))[-2:]
            n = int(self.settings.extra.get("num_players", 4))
            view = PlayerView(
                seat=0,
                num_players=n,
                phase=phase,
                round=0,
                num_rounds=self.rules.num_rounds(n),
                cue_giver=1,
                current=0,
                cues=cues,
                used_cues=cues,
                cones=(),
                scores=(0,) * n,
            )
        return self._encoder().encode_flat(view)

    def act_batch(self, queries: Sequence[Any]) -> list[Answer]:
        guesses = [i for i, q in enumerate(queries) if isinstance(q, GuessQuery)]
        out: list[Answer | None] = [None] * len(queries)
        if guesses:
            for i, ans in zip(guesses, self._guess_batch([queries[i] for i in guesses])):
                out[i] = ans
        for i, q in enumerate(queries):
            if out[i] is None:
                out[i] = self.act(q)
        return out  # type: ignore[return-value]

    def guess(self, query: GuessQuery) -> Answer:
        return self._guess_batch([query])[0]

    def _guess_batch(self, queries: Sequence[GuessQuery]) -> list[Answer]:
        logp, known = self._guess_logits(queries)
        answers = []
        for q, row, ok in zip(queries, logp, known):
            legal = np.isfinite(row)
            if not legal.any():
                answers.append(Answer(valid=False, raw_text="no legal cell"))
                continue
            k = min(max(1, int(q.top_k)), int(legal.sum()))
            order = np.argsort(-row, kind="stable")[:k]
            if self.sample:
                p = np.exp(row[legal] - row[legal].max())
                first = int(self.rng.choice(np.flatnonzero(legal), p=p / p.sum()))
                order = np.concatenate([[first], order[order != first]])[:k]
            info: dict[str, Any] = {} if ok else {"fallback": "no_cue" if self.reads_text else "unknown_cue"}
            answers.append(Answer(cells=order.astype(np.int64), scores=row[order].astype(float), info=info))
        return answers

    # -- cue giving -----------------------------------------------------------------------------------------------
    def give_cue(self, query: CueQuery) -> Answer:
        pool = tuple(query.vocabulary) if query.vocabulary is not None else self.vocabulary
        forbidden = query.forbidden_words
        index = {w: i for i, w in enumerate(self.vocabulary)}
        allowed = [w for w in pool if (self.reads_text or w in index) and w not in forbidden]
        card = [int(c) for c in query.card]
        targets = query.targets
        if not allowed or not targets:
            return query.no_cue("no allowed cue in the policy's vocabulary")
        if self.sb3_model is not None:
            return self._sb3_cue(query, allowed, card)
        if (
            self.checkpoint is not None
            and "speaker" in self.checkpoint.nets
            and "guesser" not in self.checkpoint.nets
        ):
            return self._speaker_only_cue(allowed, targets)
        occupied = np.zeros(N_CELLS, bool) if query.occupied is None else np.asarray(query.occupied, bool)
        share = self._frame_share(allowed, occupied)[:, targets]  # (W, T): listener's mass in each frame
        if self.checkpoint is not None and "speaker" in self.checkpoint.nets:
            choice = self._speaker_choice(allowed, targets)  # (T,) word index per target
            values = share[choice, np.arange(len(targets))]
            t = int(np.argmax(values))
            w = int(choice[t])
        else:
            w, t = divmod(int(np.argmax(share)), share.shape[1])
        return Answer(
            target=targets[t],
            cue=allowed[w],
            scores=np.asarray([share[w, t]]),
            info={"frame_share": float(share[w, t])},
        )

    def _sb3_cue(self, query: CueQuery, allowed: Sequence[str], card: Sequence[int]) -> Answer:
        """An SB3 cue giver: its most probable legal action in the env's layout (cells, then words, then pass)."""
        if (
            self.settings.role not in ("cue_giver", "selfplay") and self.rllib_module is None
        ):  # an RLlib (or selfplay) policy plays every seat
            raise NotImplementedError(f"policy {self.path}: an SB3 {self.settings.role} cannot give cues")
        V = len(self.vocabulary)
        mask = np.zeros(N_CELLS + V + 1, dtype=bool)
        phase = getattr(query, "phase", None)
        if query.target is None:
            mask[card] = True
            phase = phase or Phase.PICK_TARGET
        else:
            index = {w: i for i, w in enumerate(self.vocabulary)}
            mask[[N_CELLS + index[w] for w in allowed]] = True
            mask[N_CELLS + V] = query.cue_index == 2
            phase = phase or (Phase.CUE_2 if query.cue_index == 2 else Phase.CUE_1)
        logits = self._sb3_logits(self._sb3_observation(query, phase)[None])[0]
        action = int(np.argmax(np.where(mask, logits, -np.inf)))
        if query.target is None:
            return Answer(target=action)
        if action == N_CELLS + V:
            return Answer(target=query.target, cue=None)
        return Answer(target=query.target, cue=self.vocabulary[action - N_CELLS])

    def _frame_share(self, words: Sequence[str], occupied: np.ndarray) -> np.ndarray:
        """``(W, 480)``: for each word, the policy's probability mass inside each cell's scoring frame."""
        legal = ~occupied
        queries = [GuessQuery(cues=(w,), legal=legal) for w in words]
        logp, _ = self._guess_logits(queries)
        probs = np.exp(logp)
        in_frame = np.asarray(self.rules.in_frame_matrix, dtype=np.float64)  # [target, cell]
        return probs @ in_frame.T

    def _speaker_only_cue(self, allowed: Sequence[str], targets: Sequence[int]) -> Answer:
        """A speaker without a guesser (``train cue-giver --fast``): the most probable allowed word per target,
        and the target whose best word is most probable (the trainer's own rule)."""
        import torch

        assert self.checkpoint is not None  # give_cue checked it holds a speaker
        cols = np.asarray([self.vocabulary.index(w) for w in allowed])
        with torch.no_grad():
            logits, _ = speaker_forward(
                self.checkpoint.nets["speaker"], torch.as_tensor(np.asarray(targets), device=self.device)
            )
        logp = (
            torch.log_softmax(logits[:, torch.as_tensor(cols, device=self.device)], -1).cpu().numpy()
        )  # (T, W)
        t = int(np.argmax(logp.max(axis=1)))
        w = int(np.argmax(logp[t]))
        return Answer(target=targets[t], cue=allowed[w], scores=np.asarray([float(np.exp(logp[t, w]))]))

    def _speaker_choice(self, words: Sequence[str], targets: Sequence[int]) -> np.ndarray:
        import torch

        cols = np.asarray([self.vocabulary.index(w) for w in words])
        if self.checkpoint is None:
            raise RuntimeError(
                f"policy {self.path}: a speaker needs a huesenv checkpoint (.pt), not an SB3 zip"
            )
        with torch.no_grad():
            logits, _ = speaker_forward(
                self.checkpoint.nets["speaker"], torch.as_tensor(np.asarray(targets), device=self.device)
            )
        return np.argmax(logits.cpu().numpy()[:, cols], axis=1)
