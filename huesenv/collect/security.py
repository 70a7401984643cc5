"""HTTP hardening for the collection app: security headers, a per-client rate limit, a private access log.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.security``.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    "Cross-Origin-Opener-Policy": "same-origin",
}
HSTS = "max-age=31536000"


def add_security_headers(response, is_secure: bool):
    """Set the headers above on a response (HSTS only over HTTPS, where browsers honour it)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if is_secure:
        response.headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def parse_rate(text: str) -> tuple[int, float] | None:
    """``"N/SECONDS"`` (e.g. ``"20/600"``) → ``(N, SECONDS)``; ``"off"`` → ``None``."""
    if text.strip().lower() == "off":
        return None
    head, sep, tail = text.partition("/")
    try:
        n, window = int(head), float(tail)
    except ValueError:
        n, window = 0, 0.0
    if not sep or n < 1 or not 0 < window <= 86400:
        raise ValueError(
            f"start rate {text!r}: expected N/SECONDS with N >= 1 and 0 < SECONDS <= 86400 (e.g. 20/600), or off"
        )
    return n, window


class RateLimiter:
    """At most ``limit`` hits per key in any ``window_s`` seconds (sliding window, thread-safe, bounded memory)."""

    def __init__(
        self, limit: int, window_s: float, max_keys: int = 50_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if limit < 1 or window_s <= 0:
            raise ValueError(f"rate limit {limit}/{window_s}: expected a positive count and window")
        self.limit, self.window_s, self.max_keys, self.clock = limit, float(window_s), max_keys, clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str) -> float | None:
        """Record a hit; ``None`` if allowed, else the seconds until the next one would be."""
        now = self.clock()
        with self._lock:
            q = self._hits.get(key)
            if q is None:
                if len(self._hits) >= self.max_keys:
                    self._prune(now)
                q = self._hits[key] = deque()
            while q and q[0] <= now - self.window_s:
                q.popleft()
            if len(q) >= self.limit:
                return max(0.0, q[0] + self.window_s - now)
            q.append(now)
            return None

    def _prune(self, now: float) -> None:
        stale = [k for k, q in self._hits.items() if not q or q[-1] <= now - self.window_s]
        for k in stale:
            del self._hits[k]
        if len(self._hits) >= self.max_keys:  # still full: forget the oldest half rather than grow
            for k in sorted(self._hits, key=lambda k: self._hits[k][-1])[: len(self._hits) // 2]:
                del self._hits[k]
