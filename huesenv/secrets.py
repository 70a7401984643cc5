"""Secrets masked by value in everything huesenv writes (reports, config copies, logs, W&B config).

Masking by key name alone (``api_key: ***``) missed a key pasted into a value,
e.g. ``base_url: https://host/v1?key=sk-...``.  So every writer passes its text
through :func:`mask_text` (or its data through :func:`mask`), which replaces

* the **value** of every environment variable whose name looks like a credential
  (:data:`SECRET_NAME_RE`: ``*_API_KEY``, ``*TOKEN*``, ``*SECRET*``,
  ``*PASSWORD*``...), wherever it appears, and any value registered with
  :func:`register_secret`;
* the password of a URL's user info (``https://user:PASSWORD@host``) and the
  value of credential-like query parameters (``?api_key=...``, ``&token=...``);
* in mappings, the whole value of a credential-like key (:data:`SECRET_KEY_RE`:
  a key *ending* in a credential word, ``api_key``, ``hf_token``,
  ``client_secret``, ``password``...; ``max_tokens`` or ``author`` are not secrets).

Structured documents (a config copy) are masked as data, then serialised
(:func:`mask` then ``yaml.safe_dump``): masking the YAML text would both miss
keys named like a credential and turn a value that *is* a secret into ``***``,
which YAML reads as an alias, so the copy could not be read back.

Values shorter than :data:`MIN_SECRET_LEN` are not treated as secrets (masking
``"1"`` everywhere would garble the text and reveal nothing useful).

Writers mask text that is already serialised (a JSON log line, an HTML report),
where a secret holding ``"``, ``\\``, ``&``, ``<`` or non-ASCII characters no
longer appears as typed; and an upstream may echo a request encoded.  So each secret
is also looked for JSON-, HTML- and URL-escaped, reversed and base64-encoded, in any
letter case and with whitespace between its characters (:func:`_spellings`).
"""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

MASK = "***"
MIN_SECRET_LEN = 6
SECRET_NAME_RE = re.compile(r"(api[_-]?key|token|secret|passw(or)?d|passwd|credential|auth)", re.IGNORECASE)
SECRET_KEY_RE = re.compile(
    r"(?:^|[_-])(?:api[_-]?key|apikey|token|access[_-]?token|secret|secret[_-]?key|private[_-]?key"
    r"|passw(?:or)?d|passwd|credentials?|auth|authorization)$",
    re.IGNORECASE,
)
_URL_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^/@:\s]*):(?P<pw>[^/@\s]+)@")
_QUERY_SECRET = re.compile(
    r"(?P<key>[?&;](?:api[_-]?key|key|token|access[_-]?token|secret|password|passwd|auth|sig|signature)=)"
    r"(?P<value>[^&#\s'\"\\]+)",  # stops at a backslash: a JSON-escaped quote ends the value
    re.IGNORECASE,
)
_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Mask ``value`` from now on in everything written (e.g. a key read from a file, not the environment)."""
    if value and len(value) >= MIN_SECRET_LEN:
        _registered.add(value)


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values to mask: credential-like environment variables and registered secrets, longest first."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if SECRET_NAME_RE.search(k) and v and len(v) >= MIN_SECRET_LEN}
    values |= _registered
    return sorted(values, key=len, reverse=True)


def mask_text(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with every secret value, URL password and credential query parameter replaced by ``***``."""
    return _mask_text(text, _spelled_secrets(environ))


def _spelled_secrets(environ: Mapping[str, str] | None) -> re.Pattern[str] | None:
    """One pattern for every spelling of every secret (found once per call: scanning the environment
    for each string of a large log cost milliseconds per record)."""
    return _pattern(tuple(secret_values(environ)))


@functools.lru_cache(maxsize=16)
def _pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    """Any spelling of any of ``values`` in any letter case, whitespace allowed between its characters
    (an upstream that echoes ``S K - A B C`` or splits a key over lines), longest first."""
    forms = sorted({f for value in values for f in _spellings(value)}, key=len, reverse=True)
    if not forms:
        return None
    gap = r"(?:\s|\\[nrt])*"  # whitespace, or its JSON escape in a serialised line
    return re.compile("|".join(gap.join(map(re.escape, f)) for f in forms), re.IGNORECASE)


def _mask_text(text: str, spellings: re.Pattern[str] | None) -> str:
    if not isinstance(text, str) or not text:
        return text
    if spellings is not None:
        text = spellings.sub(MASK, text)
    text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{m['user']}:{MASK}@", text)
    return _QUERY_SECRET.sub(lambda m: f"{m['key']}{MASK}", text)


def _base64_cores(value: str) -> set[str]:
    """The base64 characters of ``value`` that do not depend on its neighbours, at each of the three
    offsets it can sit at in an encoded body (standard and URL-safe alphabets)."""
    raw = value.encode("utf-8")
    cores = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii")
        core = encoded[-(-8 * offset // 6) : 8 * (offset + len(raw)) // 6]
        if len(core) >= MIN_SECRET_LEN:
            cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


def _spellings(value: str) -> list[str]:
    """``value`` as typed, as JSON, HTML and URL writers escape it, reversed and base64-encoded (an
    upstream may echo a request in any of them); letter case and whitespace: :func:`_pattern`."""
    core = value.strip()
    forms = {
        value,
        repr(value)[1:-1],  # how a traceback or httpx shows it: 'Bearer sk-...\\r'
        value.encode("unicode_escape").decode("ascii"),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        html.escape(value, quote=True),
        html.escape(value, quote=False),
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value),
        value[::-1],
        *_base64_cores(value),
    }
    if core != value and len(core) >= MIN_SECRET_LEN:  # a key read with its CR/newline: mask its core too
        forms |= set(_spellings(core))
    return sorted(forms, key=len, reverse=True)


def mask(value: Any, environ: Mapping[str, str] | None = None, *, by_key: bool = True) -> Any:
    """A copy of ``value`` (mappings, lists, strings) masked by value and, with ``by_key``, by key name.

    Configs use ``by_key`` (``api_key: ...`` is a secret whatever it holds); log records do not
    (a timing called ``tokens_per_s`` is not a secret), only their string values are masked.
    """
    return _mask(value, _spelled_secrets(environ), by_key)


def _mask(value: Any, spellings: re.Pattern[str] | None, by_key: bool) -> Any:
    if isinstance(value, Mapping):
        return {
            k: (MASK if by_key and _is_secret_field(k, v) else _mask(v, spellings, by_key))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_mask(v, spellings, by_key) for v in value]
    if isinstance(value, str):
        return _mask_text(value, spellings)
    return value


def _is_secret_field(key: Any, value: Any) -> bool:
    """Whether a mapping entry holds a credential by its key's name.

    ``api_key_env: OPENAI_API_KEY`` names a variable, it is not the secret, so it
    stays readable; anything else under such a key (a key pasted there by
    mistake) is masked.
    """
    name = str(key)
    if name.lower().endswith("_env"):
        looks_like_a_name = isinstance(value, str) and re.fullmatch(r"[A-Z0-9_]+", value) is not None
        return SECRET_KEY_RE.search(name[:-4]) is not None and not looks_like_a_name
    return SECRET_KEY_RE.search(name) is not None


# -- which variables may hold an endpoint's API key -----------------------------------

API_KEY_ENV_RE = re.compile(r"^[A-Z][A-Z0-9_]*_API_KEY$")
# Credentials of other services that must never be sent to a model endpoint, whatever their name.
DENIED_KEY_VARS: frozenset[str] = frozenset(
    {"WANDB_API_KEY", "HF_API_KEY", "HUGGINGFACE_API_KEY", "GITHUB_API_KEY"}
)
ALLOW_LIST_VAR = "HUESENV_API_KEY_VARS"  # comma-separated extra names a user allows explicitly


def check_api_key_env(name: str, environ: Mapping[str, str] | None = None) -> str:
    """``name`` if it may hold an endpoint's API key, else ``ValueError`` saying the rule.

    The rule: a name ending in ``_API_KEY`` (upper case, e.g. ``OPENAI_API_KEY``),
    or one listed in ``$HUESENV_API_KEY_VARS``; never the credentials of other
    services in :data:`DENIED_KEY_VARS` (``WANDB_API_KEY``...), even when listed.
    Why: ``api_key_env`` sends the variable's value to a remote endpoint, so a
    config must not be able to name an unrelated secret.
    """
    env = os.environ if environ is None else environ
    allowed = {n.strip() for n in env.get(ALLOW_LIST_VAR, "").split(",") if n.strip()}
    if not isinstance(name, str) or not name:
        raise ValueError(f"api_key_env: expected the name of an environment variable, got {name!r}")
    if name in DENIED_KEY_VARS:
        raise ValueError(
            f"api_key_env {name!r}: that variable holds another service's credentials and is never sent "
            "to a model endpoint"
        )
    if API_KEY_ENV_RE.match(name) or name in allowed:
        return name
    raise ValueError(
        f"api_key_env {name!r}: expected a variable named *_API_KEY (e.g. OPENAI_API_KEY) or one listed in "
        f"${ALLOW_LIST_VAR}"
    )


def check_key_value(name: str, value: str | None) -> None:
    """Refuse a key holding whitespace, a control or a non-ASCII character (a CRLF ``.env`` leaves ``\\r``);
    the message names the variable, never the value (HTTP libraries quote a bad header value in full)."""
    if value and (value != value.strip() or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in value)):
        raise ValueError(
            f"${name}: the key holds whitespace or a control character (a CRLF .env file?); "
            f"set ${name} to the key alone"
        )
    if value and not value.isascii():  # an HTTP header is ASCII: httpx would fail naming no variable
        raise ValueError(f"${name}: the key holds non-ASCII characters; set ${name} to the key as issued")


# -- where a provider's key may be sent ------------------------------------------------------------
# The key variables of well-known providers and the hosts (and their subdomains) that key belongs to.
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "OPENAI_API_KEY": ("api.openai.com",),
    "ANTHROPIC_API_KEY": ("api.anthropic.com",),
    "GEMINI_API_KEY": ("generativelanguage.googleapis.com",),
    "GOOGLE_API_KEY": ("generativelanguage.googleapis.com",),
    "MISTRAL_API_KEY": ("api.mistral.ai",),
    "GROQ_API_KEY": ("api.groq.com",),
    "TOGETHER_API_KEY": ("api.together.xyz", "api.together.ai"),
    "OPENROUTER_API_KEY": ("openrouter.ai",),
    "DEEPSEEK_API_KEY": ("api.deepseek.com",),
    "FIREWORKS_API_KEY": ("api.fireworks.ai",),
}


def key_destination_problem(
    name: str, host: str, *, loopback: bool, environ: Mapping[str, str] | None = None
) -> str | None:
    """Why the key in ``$name`` may not go to ``host`` (``None`` when it may).

    The rule: a key goes to its own provider's host (:data:`PROVIDER_KEYS`), to a
    loopback server, or anywhere the user allowed by listing the variable in
    ``$HUESENV_API_KEY_VARS``.  Why: a config names both the host and the
    variable, so without the rule a shared config could send ``$OPENAI_API_KEY``
    to any server it likes.
    """
    env = os.environ if environ is None else environ
    listed = {n.strip() for n in env.get(ALLOW_LIST_VAR, "").split(",") if n.strip()}
    host = (host or "").lower().rstrip(".")
    if loopback or name in listed:
        return None
    own = PROVIDER_KEYS.get(name, ())
    if any(host == h or host.endswith("." + h) for h in own):
        return None
    whose = f"the key of {', '.join(own)}" if own else "not the key of a known provider of that host"
    return (
        f"refusing to send ${name} ({whose}) to {host!r}; list {name} in ${ALLOW_LIST_VAR} "
        "to allow sending it there"
    )
