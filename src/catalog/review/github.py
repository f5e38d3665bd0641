"""Creating or updating the one review comment of a pull request through GitHub's REST API.

The comment is found among the pull request's comments (``GET
/repos/{repo}/issues/{number}/comments``, a page at a time): it is the first
one that starts with :data:`~catalog.review.markdown.MARKER` and was written
by the account that posts (``github-actions[bot]`` for the workflow's token),
so a comment anybody else writes, quoting the marker, is never taken for it.
It is updated in place (``PATCH /repos/{repo}/issues/comments/{id}``) or,
when there is none, created (``POST /repos/{repo}/issues/{number}/comments``).

The API's address is a parameter, for GitHub Enterprise Server and for tests:
it must be ``https://``, or ``http://`` to a loopback address. The token is
sent only to that address (never along a redirect, which is refused), and
never appears in a message.
"""

from __future__ import annotations

import ipaddress
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Final, Literal

from catalog.errors import ReviewError
from catalog.review.markdown import MARKER
from catalog.text.visible import visible_line

__all__ = ["BOT_LOGIN", "DEFAULT_API", "api_base", "post_comment"]

DEFAULT_API: Final = "https://api.github.com"
BOT_LOGIN: Final = "github-actions[bot]"
"""The account the workflow's token posts as: the author of the comment to update."""
_REPO: Final = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_PAGES: Final = 50  # 5,000 comments: a bound on the search for our own
_PER_PAGE: Final = 100
_TIMEOUT: Final = 30
_ANSWER_BYTES: Final = 4 << 20
_HINTS: Final = {
    401: "the token is refused: check that it is set (GITHUB_TOKEN) and has not expired",
    403: "the token may not write here: give the workflow `permissions: pull-requests: "
    "write` (a pull request from a fork gets a read-only token)",
    404: "check --github-repo and --github-pr, and that the token can see the repository",
    422: "GitHub refused the comment's content",
}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses to follow a redirect, so the token never goes to another address."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER: Final = urllib.request.build_opener(_NoRedirect)


def api_base(api: str) -> str:
    """``api`` without its trailing ``/``, refused unless it is ``https://`` (or
    ``http://`` to a loopback address) without credentials in it."""
    parts = urllib.parse.urlsplit(api.strip())
    host = parts.hostname or ""
    if parts.scheme not in ("https", "http") or not host:
        raise ReviewError(
            f"--github-api {_shown(api)} is not an http(s) address",
            hint=f"give the REST API's address, e.g. {DEFAULT_API}",
        )
    if parts.username is not None or parts.password is not None or parts.query:
        raise ReviewError(
            f"--github-api {_shown(api)} holds credentials or a query",
            hint="give the bare API address; the token comes from GITHUB_TOKEN",
        )
    if parts.scheme == "http" and not _loopback(host):
        raise ReviewError(
            f"--github-api {_shown(api)} is not https: the token would travel in the clear",
            hint="use an https:// address (http:// is allowed only to 127.0.0.1, ::1 or localhost)",
        )
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _shown(text: str) -> str:
    """An address as a message may show it: without what comes before an ``@``."""
    parts = urllib.parse.urlsplit(text)
    if "@" in parts.netloc:
        parts = parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1])
    return repr(visible_line(urllib.parse.urlunsplit(parts)[:200]))


def _call(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/vnd.github+json")
    request.add_unredirected_header("Authorization", f"Bearer {token}")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    request.add_header("User-Agent", "agent-prompt-catalog-review")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(request, timeout=_TIMEOUT) as response:
            return json.loads(response.read(_ANSWER_BYTES) or b"null")
    except urllib.error.HTTPError as exc:
        raise _refusal(method, url, token, exc) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = str(getattr(exc, "reason", exc)).replace(token, "***")
        raise ReviewError(
            f"the GitHub API at {url} cannot be reached or answered no JSON: "
            f"{visible_line(reason)[:300]}",
            hint="check the API address (--github-api) and the network",
        ) from None


def _refusal(method: str, url: str, token: str, exc: urllib.error.HTTPError) -> ReviewError:
    """The error an HTTP error status makes: what GitHub said, and what to do."""
    try:
        raw = exc.read(2000).decode("utf-8", "replace")
    except OSError:
        raw = ""
    try:
        said = json.loads(raw).get("message", raw)
    except (ValueError, AttributeError):
        said = raw
    said = visible_line(str(said).replace(token, "***"))[:300]
    headers = exc.headers
    remaining = headers.get("x-ratelimit-remaining") if headers else None
    wait = headers.get("retry-after") if headers else None
    if exc.code == 429 or (exc.code == 403 and (remaining == "0" or wait)):
        hint = "the API's rate limit is reached: run the job again later" + (
            f" (GitHub asks to wait {visible_line(wait)[:20]} seconds)" if wait else ""
        )
    elif 300 <= exc.code < 400:
        hint = (
            "the API address redirects, and the token is not sent on: give --github-api "
            "the address it moved to"
        )
    elif exc.code >= 500:
        hint = "GitHub failed on its side: run the job again later"
    else:
        hint = _HINTS.get(exc.code, "check the token, the repository and the pull request")
    return ReviewError(f"the GitHub API answered {exc.code} to {method} {url}: {said}", hint=hint)


def _ours(comment: Any, author: str) -> bool:
    """Whether ``comment`` is the review comment: written by ``author``, starting with
    the marker."""
    if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
        return False
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return login == author and str(comment.get("body", "")).startswith(MARKER)


def post_comment(
    body: str,
    *,
    repo: str,
    number: int,
    token: str,
    api: str = DEFAULT_API,
    author: str = BOT_LOGIN,
) -> tuple[Literal["created", "updated"], str]:
    """Create or update the review comment of pull request ``number`` of ``repo``
    (``OWNER/NAME``) that ``author`` wrote; returns what was done and the comment's
    address."""
    if not _REPO.fullmatch(repo):
        raise ReviewError(f"{visible_line(repo)[:200]!r} is not a repository (OWNER/NAME)")
    if number < 1:
        raise ReviewError(f"{number} is not a pull request number", hint="give --github-pr N")
    if not token:
        raise ReviewError(
            "no token to post the comment with",
            hint="set GITHUB_TOKEN (the workflow's token, with pull-requests: write)",
        )
    base = api_base(api)
    found = None
    for page in range(1, _PAGES + 1):
        url = f"{base}/repos/{repo}/issues/{number}/comments?per_page={_PER_PAGE}&page={page}"
        comments = _call("GET", url, token)
        if not isinstance(comments, list):
            raise ReviewError(f"the GitHub API answered no list of comments to GET {url}")
        found = next((c for c in comments if _ours(c, author)), None)
        if found is not None or len(comments) < _PER_PAGE:
            break
    if found is not None:
        answer = _call(
            "PATCH", f"{base}/repos/{repo}/issues/comments/{found['id']}", token, {"body": body}
        )
        return "updated", _address(answer)
    answer = _call("POST", f"{base}/repos/{repo}/issues/{number}/comments", token, {"body": body})
    return "created", _address(answer)


def _address(answer: Any) -> str:
    return str(answer.get("html_url", "")) if isinstance(answer, dict) else ""
