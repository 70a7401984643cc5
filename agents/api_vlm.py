"""A VLM behind an OpenAI-compatible chat-completions endpoint (``POST {base_url}/chat/completions``).

Same prompts, images and parsing as the local VLM (:mod:`huesenv.agents.chat`);
images travel as ``data:image/png;base64,...`` URLs in ``image_url`` content parts.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.api_vlm``.
"""

from __future__ import annotations

import base64
import io
import ipaddress
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from huesenv.agents.chat import ChatRequest, ChatVLMAgent, FailedReply
from huesenv.secrets import (
    check_api_key_env,
    check_key_value,
    key_destination_problem,
    mask_text,
    register_secret,
)

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def is_loopback_host(host: str | None) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ``::1``): traffic that never leaves the machine."""
    if not host:
        return False
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(base_url: str) -> str:
    """``base_url`` if it is an ``http``/``https`` URL with a host, else ``ValueError``."""
    parts = urlsplit(base_url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"api-vlm base_url {mask_text(base_url)!r}: expected an http:// or https:// URL with a host"
        )
    return base_url


def key_may_go_to(base_url: str) -> bool:
    """Whether the API key may be sent to ``base_url``: over https, or plain http to loopback only."""
    parts = urlsplit(base_url)
    return parts.scheme.lower() == "https" or is_loopback_host(parts.hostname)


class RequestPacer:
    """Evenly spaced request starts: at most ``per_minute`` per minute (thread-safe)."""

    def __init__(
        self,
        per_minute: float | None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if per_minute is not None and per_minute <= 0:
            raise ValueError(f"requests_per_minute {per_minute!r}: expected a positive number or None")
        self.interval = 0.0 if per_minute is None else 60.0 / float(per_minute)
        self._clock, self._sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)


def image_data_url(image) -> str:
    """A PIL image as a PNG data URL."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def reply_content(body: Any) -> str | None:
    """``choices[0].message.content`` of a chat-completions body (string or list of text parts), else None."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, list):
        parts = [str(p["text"]) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return content if isinstance(content, str) else None


class ApiVLMAgent(ChatVLMAgent):
    """Chat-completions VLM (see the module docstring)."""

    name = "api-vlm"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        requests_per_minute: float | None = 60.0,
        concurrency: int = 1,
        max_tokens: int = 32,
        temperature: float = 0.0,
        retry_temperature: float = 0.7,
        retries: int = 2,
        seed: int | None = 0,
        cell_pixels: int = 24,
        transport: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        **kwargs,
    ) -> None:
        if "api_key" in kwargs:
            raise ValueError(
                "api-vlm: pass the key through an environment variable (api_key_env), never as an argument"
            )
        super().__init__(retries=retries, seed=seed, cell_pixels=cell_pixels, **kwargs)
        if not model:
            raise ValueError("api-vlm: empty model name")
        self.model = model
        self.base_url = check_base_url(
            (base_url or os.environ.get("HUESENV_API_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        )
        self.api_key_env = check_api_key_env(api_key_env)  # only variables meant for an endpoint's key
        self._check_key_destination(os.environ.get(api_key_env))
        self.timeout, self.max_retries = float(timeout), int(max_retries)
        self.backoff, self.max_backoff = float(backoff), float(max_backoff)
        self.concurrency = max(1, int(concurrency))
        self.max_tokens, self.temperature, self.retry_temperature = (
            int(max_tokens),
            float(temperature),
            float(retry_temperature),
        )
        self.limiter = RequestPacer(requests_per_minute)
        self._sleep = sleep
        self._transport = transport
        self._client: Any = None  # an httpx.Client, made on first use
        self.stats = {"requests": 0, "http_retries": 0, "failures": 0, "structured_fallbacks": 0}
        self._schema_supported = True
        self._stats_lock = threading.Lock()

    @property
    def agent_id(self) -> str:
        return f"api-vlm:{self.model}"

    def config(self) -> dict[str, Any]:
        """What to log or send to W&B: settings and the key's variable *name*, never the key."""
        return {
            "model": self.model,
            "base_url": mask_text(self.base_url),
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "backoff": self.backoff,
            "requests_per_minute": None if not self.limiter.interval else 60.0 / self.limiter.interval,
            "concurrency": self.concurrency,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "retries": self.retries,
            "seed": self._seed,
            "structured_output": self.structured_output,
        }

    def __repr__(self) -> str:
        return (
            f"ApiVLMAgent(model={self.model!r}, base_url={mask_text(self.base_url)!r}, "
            f"api_key_env={self.api_key_env!r})"
        )

    @property
    def client(self):
        if self._client is None:
            import httpx

            self._client = httpx.Client(timeout=self.timeout, transport=self._transport)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _check_key_destination(self, key: str | None) -> None:
        """Refuse a key with whitespace or control characters (naming the variable), a key that is not this
        host's provider's and not listed, and a key bound for plain http to a non-loopback host."""
        register_secret(key)  # masked in every report, log and config copy
        check_key_value(self.api_key_env, key)
        if not key:
            return
        if not key_may_go_to(self.base_url):
            raise ValueError(
                f"api-vlm base_url {mask_text(self.base_url)!r}: refusing to send the API key "
                f"(${self.api_key_env}) over plain http to a non-loopback host; use https, "
                f"a loopback tunnel, or unset ${self.api_key_env} for a keyless server"
            )
        host = urlsplit(self.base_url).hostname or ""
        problem = key_destination_problem(self.api_key_env, host, loopback=is_loopback_host(host))
        if problem:
            raise ValueError(f"api-vlm base_url {mask_text(self.base_url)!r}: {problem}")

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        self._check_key_destination(key)  # checked at every request too: the variable is read per request
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _payload(self, request: ChatRequest, structured: bool = True) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": request.text}]
        if request.image is not None:
            content.append({"type": "image_url", "image_url": {"url": image_data_url(request.image)}})
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": self.max_tokens,
            "temperature": self.temperature if request.attempt == 0 else self.retry_temperature,
        }
        if self._seed is not None:
            payload["seed"] = int(self._seed) + request.attempt
        if structured and request.schema is not None and self._schema_supported:
            payload["response_format"] = {"type": "json_schema", "json_schema": request.schema}
        return payload

    def _delay(self, i: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(max(float(retry_after), 0.0), self.max_backoff)
            except ValueError:
                pass
        return min(self.backoff * (2**i), self.max_backoff)

    def _post(self, request: ChatRequest) -> str:
        import httpx

        url = f"{self.base_url}/chat/completions"
        body = json.dumps(self._payload(request))
        last = ""
        i = 0
        while i <= self.max_retries:
            self.limiter.wait()
            self._count("requests")
            retry_after = None
            try:
                resp = self.client.post(url, content=body, headers=self._headers(), timeout=self.timeout)
            except httpx.HTTPError as err:  # timeouts, connection errors
                last = mask_text(f"{type(err).__name__}: {err}")  # httpx quotes headers and URLs
            else:
                text = mask_text(resp.text)  # an upstream error body may echo the key
                if resp.status_code == 200:
                    try:
                        content = reply_content(resp.json())
                    except ValueError:
                        content = None
                    if content is not None:
                        return content
                    last = text
                else:
                    last = f"HTTP {resp.status_code}: {text[:500]}"
                    if self._schema_rejected(resp.status_code, text, body):
                        body = json.dumps(self._payload(request, structured=False))
                        continue  # the same attempt again, as free text
                    if resp.status_code not in RETRY_STATUS:
                        break
                    retry_after = resp.headers.get("retry-after")
            if i < self.max_retries:
                self._count("http_retries")
                log.warning("api-vlm %s: attempt %d failed (%s); retrying", self.model, i + 1, last[:120])
                self._sleep(self._delay(i, retry_after))
            i += 1
        self._count("failures")
        return FailedReply(last)

    def _schema_rejected(self, status: int, text: str, body: str) -> bool:
        """An HTTP 400 about ``response_format`` for a structured request: stop sending schemas."""
        if status != 400 or '"response_format"' not in body:
            return False
        low = text.lower()
        if not any(k in low for k in ("response_format", "json_schema", "structured")):
            return False
        with self._stats_lock:
            self._schema_supported = False
            self.stats["structured_fallbacks"] += 1
        log.warning("api-vlm %s: endpoint rejects response_format; continuing with free text", self.model)
        return True

    def _count(self, key: str) -> None:
        with self._stats_lock:
            self.stats[key] += 1

    def complete(self, requests: Sequence[ChatRequest]) -> list[str | None]:
        if self.concurrency == 1 or len(requests) == 1:
            return [self._post(r) for r in requests]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self._post, requests))
