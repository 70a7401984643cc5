"""Local vision-language model via transformers' image-text-to-text auto classes.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.vlm``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from huesenv.agents.chat import ChatRequest, ChatVLMAgent
from huesenv.agents.devices import resolve_device, resolve_precision, torch_dtype
from huesenv.agents.quiet import quiet_model_loading
from huesenv.trust import check_code_kwargs


class TransformersVLMAgent(ChatVLMAgent):
    """A transformers image-text-to-text model as an agent (see the module docstring)."""

    name = "vlm"

    def __init__(
        self,
        model: str | os.PathLike,
        *,
        device: str = "auto",
        precision: str | None = None,
        max_new_tokens: int = 24,
        retries: int = 2,
        retry_temperature: float = 0.7,
        batch_size: int = 8,
        revision: str | None = None,
        seed: int | None = 0,
        cell_pixels: int = 24,
        trust_remote_code: bool = False,
        generate_kwargs: dict | None = None,
        **kwargs,
    ) -> None:
        check_code_kwargs(
            {"trust_remote_code": trust_remote_code, "generate_kwargs": generate_kwargs or {}, **kwargs},
            f"agent vlm:{model}",
        )
        allowed = {"board", "structured_output"}  # what ChatVLMAgent takes beyond the options above
        unknown = sorted(set(kwargs) - allowed)
        if unknown:  # the user's option, not a bug: one line naming it (a dotted key belongs in a mapping)
            hint = (
                " (nest dotted keys, e.g. generate_kwargs: {...})" if any("." in k for k in unknown) else ""
            )
            raise ValueError(f"agent vlm:{model}: unknown option(s) {unknown}{hint}")
        super().__init__(retries=retries, seed=seed, cell_pixels=cell_pixels, **kwargs)

        self.model_ref = str(model)
        self.device = resolve_device(device)
        self.precision = resolve_precision(self.device, precision)
        self.max_new_tokens, self.retry_temperature = int(max_new_tokens), float(retry_temperature)
        self.batch_size, self.revision, self.trust_remote_code = int(batch_size), revision, trust_remote_code
        self.generate_kwargs = dict(
            generate_kwargs or {}
        )  # e.g. sequence_bias / suppress_tokens to constrain
        # transformers' model and processor, loaded by _load on first use
        self._model: Any = None
        self._processor: Any = None
        self.timings = {"load_s": 0.0, "generate_s": 0.0}

    @property
    def agent_id(self) -> str:
        name = Path(self.model_ref).name if os.path.isdir(self.model_ref) else self.model_ref
        return f"vlm:{name}@{self.revision}" if self.revision else f"vlm:{name}"

    def load(self) -> None:
        """Load the model now rather than at the first query (``huesenv play`` does, before its window opens)."""
        self._load()

    def _load(self) -> None:
        if self._model is not None:
            return
        if os.path.isabs(self.model_ref) and not os.path.isdir(self.model_ref):  # before transformers loads
            raise ValueError(f"vlm:{self.model_ref}: no such model folder")
        from transformers import AutoModelForImageTextToText, AutoProcessor

        quiet_model_loading()

        t0 = time.perf_counter()
        kw = {"revision": self.revision, "trust_remote_code": self.trust_remote_code}
        self._processor = AutoProcessor.from_pretrained(self.model_ref, **kw)
        tok = getattr(self._processor, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"  # batched generation continues every row at the same position
            if tok.pad_token is None:
                tok.pad_token = tok.eos_token
        self._model = (
            AutoModelForImageTextToText.from_pretrained(
                self.model_ref, dtype=torch_dtype(self.precision), **kw
            )
            .to(self.device)  # type: ignore[arg-type]  # transformers types .to by its decorator
            .eval()
        )
        self.timings["load_s"] += time.perf_counter() - t0

    @property
    def model(self):
        """The loaded transformers model (loads it on first use)."""
        self._load()
        return self._model

    def _render(self, text: str, image: bool = True) -> str:
        content = ([{"type": "image"}] if image else []) + [{"type": "text", "text": text}]
        messages = [{"role": "user", "content": content}]
        return self._processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def complete(self, requests: Sequence[ChatRequest]) -> list[str | None]:
        """Replies in request order; requests with and without an image are batched apart."""
        out: list[str | None] = [None] * len(requests)
        for has_image in (True, False):
            idx = [i for i, r in enumerate(requests) if (r.image is not None) == has_image]
            for i, reply in zip(idx, self._complete_group([requests[i] for i in idx], has_image)):
                out[i] = reply
        return out

    def _complete_group(self, requests: Sequence[ChatRequest], has_image: bool) -> list[str | None]:
        import torch

        if not requests:
            return []
        self._load()
        out: list[str | None] = []
        for start in range(0, len(requests), self.batch_size):
            chunk = requests[start : start + self.batch_size]
            texts = [self._render(r.text, has_image) for r in chunk]
            if has_image:
                inputs = self._processor(
                    images=[r.image for r in chunk], text=texts, return_tensors="pt", padding=True
                )
            else:
                inputs = self._processor(text=texts, return_tensors="pt", padding=True)
            inputs = inputs.to(self.device)
            if "pixel_values" in inputs and self.precision != "fp32":
                inputs["pixel_values"] = inputs["pixel_values"].to(self._model.dtype)
            attempt = max(r.attempt for r in chunk)
            gen = {"max_new_tokens": self.max_new_tokens, "do_sample": attempt > 0, **self.generate_kwargs}
            if attempt > 0:
                torch.manual_seed((self._seed or 0) + attempt)
                gen["temperature"] = self.retry_temperature
            t0 = time.perf_counter()
            with torch.inference_mode():
                ids = self._model.generate(**inputs, **gen)
            self.timings["generate_s"] += time.perf_counter() - t0
            new = ids[:, inputs["input_ids"].shape[1] :]
            out.extend(self._processor.batch_decode(new, skip_special_tokens=True))
        return out
