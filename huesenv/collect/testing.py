"""Scripted participants for load tests and end-to-end checks of a collection server.

A participant drives the same HTML forms a person does (CSRF token included),
either through Flask's test client (:class:`ClientParticipant`) or over real
HTTP (:class:`HttpParticipant`, stdlib only, one cookie jar each), so the
tests exercise the server's validation rather than a side door.
"""

from __future__ import annotations

import html
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy

from huesenv.collect.display import TARGET_TILES

_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
_WORD = re.compile(r'name="word" value="([^"]*)"')
_POSITION = re.compile(r'name="position" value="([0-9]+)"')
_OPTION = re.compile(r'name="choice" value="([^"]+)"')
_EXPECTED = re.compile(r"please click the button labelled \u201c([^\u201d]+)\u201d")


def onboarding_form(
    language: str = "english",
    gender: str = "female",
    age_range: str = "20-29",
    color_blind: str = "no",
    **extra: str | list[str] | None,
) -> dict[str, str | list[str]]:
    """A complete onboarding form (without the CSRF token): demographics, consent, adult, display, screen check."""
    form: dict[str, str | list[str] | None] = {
        "language": language,
        "gender": gender,
        "age_range": age_range,
        "color_blind": color_blind,
        "consent": "yes",
        "adult": "yes",
        "display": "yes",
        "screen_check_shown": "yes",
        "screen_check": sorted(TARGET_TILES),  # sees every faint square, ticks no catch tile
    }
    form.update(extra)
    return {k: v for k, v in form.items() if v is not None}


class _LoopbackSecurePolicy(DefaultCookiePolicy):
    """Send ``Secure`` cookies to plain-http loopback, as browsers do (127.0.0.1 is a secure context)."""

    def return_ok_secure(self, cookie, request) -> bool:
        host = urllib.parse.urlsplit(request.get_full_url()).hostname
        if host in ("127.0.0.1", "localhost", "::1"):
            return True
        return super().return_ok_secure(cookie, request)


@dataclass
class Page:
    status: int
    path: str
    text: str

    @property
    def token(self) -> str:
        m = _TOKEN.search(self.text)
        if m is None:
            raise AssertionError(f"no CSRF token on {self.path} (status {self.status})")
        return m.group(1)

    @property
    def word(self) -> str:
        m = _WORD.search(self.text)
        if m is None:
            raise AssertionError(f"no word on {self.path} (status {self.status})")
        return html.unescape(m.group(1))


class _Base:
    def get(self, path: str) -> Page:  # pragma: no cover - interface
        raise NotImplementedError

    def post(self, path: str, data: Mapping[str, object]) -> Page:  # pragma: no cover - interface
        raise NotImplementedError

    def onboard(
        self,
        language: str = "english",
        gender: str = "female",
        age_range: str = "20-29",
        color_blind: str = "no",
        **extra: str,
    ) -> Page:
        """Fill the onboarding form (consent, adult and display boxes ticked unless ``extra`` says otherwise)."""
        page = self.get("/")
        page = self.post(
            "/start",
            {"csrf_token": page.token, **onboarding_form(language, gender, age_range, color_blind, **extra)},
        )
        if not page.path.endswith("/instructions"):
            raise AssertionError(f"onboarding ended on {page.path} ({page.status})")
        return self.post("/instructions", {"csrf_token": page.token})

    def answer_words(
        self, page: Page, choose: Callable[[str], str], limit: int | None = None
    ) -> tuple[Page, list]:
        """Answer words until done (or ``limit``); returns the last page and ``[(word, coordinate)]``."""
        answers: list[tuple[str, str]] = []
        while page.path.endswith("/words") and (limit is None or len(answers) < limit):
            word = page.word
            coord = choose(word)
            page = self.post("/words", {"csrf_token": page.token, "word": word, "coordinate": coord})
            if page.status != 200:
                raise AssertionError(f"answer refused with {page.status}: {page.text[:300]}")
            answers.append((word, coord))
            if page.path.endswith("/words/feedback"):
                page = self.post("/words/feedback", {"csrf_token": page.token})
        return page, answers

    def answer_gca(
        self, page: Page, choose: Callable[[tuple[str, ...]], str], threshold: int = 50, confidence: int = 7
    ) -> tuple[Page, int]:
        """Answer every GCA item (attention checks correctly); returns the last page and the item count."""
        n = 0
        while page.path.endswith("/gca"):
            found = _POSITION.search(page.text)
            if found is None:
                raise AssertionError(f"{page.path}: no position field in the GCA page")
            position = found.group(1)
            data = {"csrf_token": page.token, "position": position}
            if 'name="threshold"' in page.text:
                data["threshold"] = str(threshold)
            else:
                options = tuple(html.unescape(o) for o in _OPTION.findall(page.text))
                expected = _EXPECTED.search(html.unescape(page.text))
                data["choice"] = expected.group(1) if expected else choose(options)
                data["confidence"] = str(confidence)
            page = self.post("/gca", data)
            if page.status != 200:
                raise AssertionError(f"GCA response refused with {page.status}: {page.text[:300]}")
            n += 1
        return page, n


class ClientParticipant(_Base):
    """A participant driving a Flask test client (``app.test_client()``)."""

    def __init__(self, client) -> None:
        self.client = client

    def _page(self, resp) -> Page:
        return Page(resp.status_code, resp.request.path, resp.get_data(as_text=True))

    def get(self, path: str) -> Page:
        return self._page(self.client.get(path, follow_redirects=True))

    def post(self, path: str, data: Mapping[str, object]) -> Page:
        return self._page(self.client.post(path, data=dict(data), follow_redirects=True))


class HttpParticipant(_Base):
    """A participant over real HTTP with its own cookie jar (redirects followed, 4xx returned as pages)."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(CookieJar(_LoopbackSecurePolicy()))
        )

    def _open(self, req: urllib.request.Request) -> Page:
        try:
            with self.opener.open(req, timeout=self.timeout) as resp:
                return Page(
                    resp.status, urllib.parse.urlparse(resp.geturl()).path, resp.read().decode("utf-8")
                )
        except urllib.error.HTTPError as err:
            return Page(
                err.code, urllib.parse.urlparse(err.geturl()).path, err.read().decode("utf-8", "replace")
            )

    def get(self, path: str) -> Page:
        return self._open(urllib.request.Request(self.base + path))

    def post(self, path: str, data: Mapping[str, object]) -> Page:
        body = urllib.parse.urlencode(dict(data), doseq=True).encode("ascii")
        return self._open(urllib.request.Request(self.base + path, data=body, method="POST"))
