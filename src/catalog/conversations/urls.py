"""A store URL as messages and logs may show it: every secret libpq reads masked.

A PostgreSQL store is named by a URL (``postgresql://user:pw@host/db``, its query
parameters ``?password=pw&sslpassword=...``) or a libpq connection string
(``host=h password='p w'``). :func:`public_url` writes it with the value of every
secret it holds (:data:`SECRET_KEYS`, and a URL's password) as ``***``;
:func:`url_secrets` gives those values, so a driver's message that repeats one is
masked too (:func:`scrub`). Both read the text once, left to right: no pattern.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final
from urllib.parse import unquote

__all__ = ["MASK", "SECRET_KEYS", "public_url", "scrub", "url_secrets"]

MASK: Final = "***"
SECRET_KEYS: Final = frozenset({"password", "sslpassword"})
"""The libpq parameters whose values are secrets (``passfile`` names a file; the file
is read by libpq, never written into a message)."""


def _url_spans(url: str, scheme_end: int) -> list[tuple[int, int]]:
    """Where the secrets of ``url`` (a URL whose ``://`` ends at ``scheme_end``) are."""
    spans = []
    ends = [url.find(mark, scheme_end) for mark in "/?#"]
    netloc_end = min([end for end in ends if end >= 0], default=len(url))
    at = url.rfind("@", scheme_end, netloc_end)
    if at >= 0:
        colon = url.find(":", scheme_end, at)
        if colon >= 0:
            spans.append((colon + 1, at))
    query = url.find("?", scheme_end)
    if query >= 0:
        end = url.find("#", query)
        end = len(url) if end < 0 else end
        start = query + 1
        while start <= end:
            amp = url.find("&", start, end)
            stop = end if amp < 0 else amp
            key, equals, _ = url[start:stop].partition("=")
            if equals and unquote(key).strip().lower() in SECRET_KEYS:
                spans.append((start + len(key) + 1, stop))
            start = stop + 1
    return spans


def _conninfo_spans(text: str) -> list[tuple[int, int]]:
    """Where the secret values of a libpq ``key=value`` string are (values quoted with
    ``'`` or not, backslash escaping the next character, as libpq reads them)."""
    spans = []
    at, size = 0, len(text)
    while at < size:
        while at < size and text[at].isspace():
            at += 1
        start = at
        while at < size and text[at] != "=" and not text[at].isspace():
            at += 1
        key = text[start:at]
        while at < size and text[at].isspace():
            at += 1
        if at >= size or text[at] != "=":
            at += 1  # not key=value: move on
            continue
        at += 1
        while at < size and text[at].isspace():
            at += 1
        value_start = at
        quoted = at < size and text[at] == "'"
        at += 1 if quoted else 0
        while at < size:
            char = text[at]
            if char == "\\":
                at += 2
                continue
            if (quoted and char == "'") or (not quoted and char.isspace()):
                break
            at += 1
        at = min(at + (1 if quoted else 0), size)
        if key.lower() in SECRET_KEYS:
            spans.append((value_start, at))
    return spans


def _spans(url: str) -> list[tuple[int, int]]:
    scheme = url.find("://")
    if scheme > 0 and url[:scheme].replace("+", "").isalnum():
        return _url_spans(url, scheme + 3)
    return _conninfo_spans(url)


def public_url(url: str) -> str:
    """``url`` with the value of each secret it holds as ``***``; the rest as written."""
    pieces, last = [], 0
    for start, end in sorted(_spans(url)):
        if start < last:
            continue
        pieces += [url[last:start], MASK]
        last = end
    return "".join([*pieces, url[last:]])


def url_secrets(url: str) -> tuple[str, ...]:
    """The secret values ``url`` holds, as written and decoded (``%40`` as ``@``, quotes
    and escapes removed), longest first, for :func:`scrub`."""
    found = set()
    for start, end in _spans(url):
        value = url[start:end]
        if value:
            found.update({value, unquote(value), value.strip("'").replace("\\", "")})
    found.discard("")
    return tuple(sorted(found, key=len, reverse=True))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each of ``secrets`` as ``***``."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text
