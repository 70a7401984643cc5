"""Shared logic of the two VLM agents: prompt → image + text request → parsed answer, with retries.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.chat``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import huesenv.agents.prompts as prompts
from huesenv.agents.images import board_image, to_pil
from huesenv.agents.parsing import parse_coordinates, parse_cue, parse_probe
from huesenv.agents.protocol import Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery, Query
from huesenv.board import Board, format_coord, load_board

ATTEMPT_SEPARATOR = "\n--- retry ---\n"


class FailedReply(str):
    """A reply that is not model text (transport error, malformed response body): kept, never parsed."""


@dataclass
class ChatRequest:
    """One user turn: an image (PIL, or None for text only) and a text, plus which attempt this is (0 = first).

    ``schema``: the JSON schema a structured reply must follow (``None`` = free text).
    """

    text: str
    image: Any
    attempt: int = 0
    schema: dict | None = None


class ChatVLMAgent(BaseAgent):
    """Base for agents that answer by looking at an image and writing text."""

    name = "chat-vlm"

    def __init__(
        self,
        *,
        retries: int = 2,
        seed: int | None = 0,
        board: Board | None = None,
        cell_pixels: int = 24,
        structured_output: bool = False,
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries {retries!r}: expected >= 0")
        self.retries = int(retries)
        self.structured_output = bool(structured_output)
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self.board = board or load_board()
        self.cell_pixels = int(cell_pixels)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def complete(self, requests: Sequence[ChatRequest]) -> list[str | None]:
        raise NotImplementedError

    # -- requests and parsing ---------------------------------------------------
    def _prepare(self, query: Query) -> tuple[str, Any, dict[str, Any]]:
        """(prompt text, image or None, context); a probe's context carries its JSON schema when structured."""
        if isinstance(query, GuessQuery):
            legal = query.legal_mask()
            taken = not legal.all()
            text = prompts.guess_prompt(query.cues, max(1, query.top_k), taken)
            return text, board_image(self.board, legal=legal if taken else None, cell=self.cell_pixels), {}
        if isinstance(query, CueQuery):
            target = (
                query.target if query.target is not None else int(self.rng.choice(np.asarray(query.card)))
            )
            forbidden = sorted(w for w in query.forbidden if isinstance(w, str) and w.strip())
            text = prompts.cue_prompt(format_coord(target), query.vocabulary, forbidden, query.cue_index)
            occupied = None if query.occupied is None else ~np.asarray(query.occupied, bool)
            return (
                text,
                board_image(self.board, legal=occupied, target=target, cell=self.cell_pixels),
                {"target": target},
            )
        if isinstance(query, ProbeQuery):
            kind = prompts.probe_kind(query.options, query.answer_kind)
            text = prompts.probe_prompt(
                query.question, query.options, kind, structured=self.structured_output
            )
            image = None if query.image is None else to_pil(query.image)
            ctx: dict[str, Any] = {"kind": kind}
            if self.structured_output:
                ctx["schema"] = prompts.probe_schema(query.options, kind)
            return text, image, ctx
        raise TypeError(f"{self.name}: unsupported query type {type(query).__name__}")

    def _parse(self, query: Query, raw: str | None, ctx: dict[str, Any]) -> Answer | None:
        if raw is None or isinstance(raw, FailedReply):
            return None
        if isinstance(query, GuessQuery):
            cells = parse_coordinates(raw, query.legal_mask(), limit=max(1, query.top_k))
            return Answer(cells=np.asarray(cells, np.int64), raw_text=raw) if cells else None
        if isinstance(query, CueQuery):
            cue = parse_cue(
                raw, query.vocabulary, query.forbidden, max_words=1 if query.cue_index == 1 else 2
            )
            return Answer(target=ctx["target"], cue=cue, raw_text=raw) if cue else None
        option, text = parse_probe(raw, query.options, query.subject, ctx.get("kind"))
        if text is None:
            return None
        return Answer(option=option, text=text, raw_text=raw)

    # -- acting -----------------------------------------------------------------
    def act_batch(self, queries: Sequence[Query]) -> list[Answer]:
        prepared = [self._prepare(q) for q in queries]
        answers: list[Answer | None] = [None] * len(queries)
        raws: list[list[str]] = [[] for _ in queries]
        elapsed = [0.0] * len(queries)
        pending = list(range(len(queries)))
        for attempt in range(self.retries + 1):
            if not pending:
                break
            suffix = prompts.RETRY_SUFFIX if attempt else ""
            requests = [
                ChatRequest(prepared[i][0] + suffix, prepared[i][1], attempt, prepared[i][2].get("schema"))
                for i in pending
            ]
            t0 = time.perf_counter()
            replies = self.complete(requests)
            per = (time.perf_counter() - t0) / len(pending)
            still = []
            for i, raw in zip(pending, replies):
                elapsed[i] += per
                raws[i].append("" if raw is None else raw)
                parsed = self._parse(queries[i], raw, prepared[i][2])
                if parsed is None:
                    still.append(i)
                else:
                    parsed.info.update({"attempts": attempt + 1, "prompt_version": prompts.PROMPT_VERSION})
                    answers[i] = parsed
            pending = still
        out = []
        for i, ans in enumerate(answers):
            if ans is None:
                ctx = prepared[i][2]
                ans = Answer(
                    valid=False,
                    raw_text=ATTEMPT_SEPARATOR.join(raws[i]),
                    target=ctx.get("target"),
                    info={"attempts": len(raws[i]), "prompt_version": prompts.PROMPT_VERSION},
                )
            ans.timings["generate_s"] = elapsed[i]
            out.append(ans)
        return out

    def act(self, query: Query) -> Answer:
        return self.act_batch([query])[0]
