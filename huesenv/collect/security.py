"""HTTP hardening for the collection app: security headers, a per-client rate limit, a private access log.

**Rate limit.**  ``/start`` needs no login and each accepted POST creates a
participant, so one looping script could fill a study with junk or keep the
write lock busy.  :class:`RateLimiter` is a small in-process sliding window
(accepted POSTs per client address per window).  We chose it over
Flask-Limiter because the app is one process by design (SQLite has one writer;
the deployment guide runs one waitress process with threads), only one route
is limited, and the window needs no shared storage — Flask-Limiter's main
benefit (Redis/memcached-backed counters shared by many workers) does not
apply, while it would add two dependencies.  A deployment with several
processes should add the reverse proxy's own limit (``limit_req`` in nginx;
see ``docs/collect-deployment.md``).  Client addresses are kept in memory only,
never written anywhere; behind a proxy, ``trust_proxy`` hops of
``X-Forwarded-For`` are believed (werkzeug's ``ProxyFix``).

**Headers.**  A strict Content-Security-Policy (scripts from this origin only:
the templates have no inline script or handler; inline *style attributes* are
allowed because the board colours every cell with one), ``frame-ancestors
'none'`` against click-jacking, a referrer only within this origin (the landing
URL can carry a study-platform id; flask-wtf's CSRF check wants the same-origin
``Referer`` over HTTPS, so ``no-referrer`` would refuse every form there),
``nosniff``, and HSTS on HTTPS requests.

**Access log.**  :class:`huesenv.collect.accesslog.PrivateRequestHandler` is
werkzeug's request handler without the client address and without query strings
(the landing URL can carry ``PROLIFIC_PID``).
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
