"""Creating or updating the one review comment of a pull request through GitHub's REST API.

The comment is found by :data:`~catalog.review.markdown.MARKER` among the
pull request's comments (``GET /repos/{repo}/issues/{number}/comments``, a
page at a time); it is updated in place (``PATCH
/repos/{repo}/issues/comments/{id}``) or, when there is none, created
(``POST /repos/{repo}/issues/{number}/comments``). The API's address is a
parameter, for GitHub Enterprise Server and for tests. The token is sent only
to that address, and never appears in a message.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any, Final, Literal

from catalog.errors import ReviewError
from catalog.review.markdown import MARKER

__all__ = ["DEFAULT_API", "post_comment"]

DEFAULT_API: Final = "https://api.github.com"
_REPO: Final = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_PAGES: Final = 50  # 5,000 comments: a bound on the search for our own
_TIMEOUT: Final = 30


def _call(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    request.add_header("User-Agent", "agent-prompt-catalog-review")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as response:
            return json.loads(response.read(4 << 20) or b"null")
    except urllib.error.HTTPError as exc:
        detail = exc.read(2000).decode("utf-8", "replace")
        raise ReviewError(
            f"the GitHub API answered {exc.code} to {method} {url}: {detail[:300]}",
            hint="check the token's permissions (pull-requests: write) and the repository",
        ) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ReviewError(
            f"the GitHub API at {url} cannot be reached or answered no JSON: {exc}",
            hint="check the API address (--github-api) and the network",
        ) from None


def post_comment(
    body: str, *, repo: str, number: int, token: str, api: str = DEFAULT_API
) -> tuple[Literal["created", "updated"], str]:
    """Create or update the review comment of pull request ``number`` of ``repo``
    (``OWNER/NAME``); returns what was done and the comment's address."""
    if not _REPO.fullmatch(repo):
        raise ReviewError(f"{repo!r} is not a repository (OWNER/NAME)")
    if not token:
        raise ReviewError(
            "no token to post the comment with",
            hint="set GITHUB_TOKEN (the workflow's token, with pull-requests: write)",
        )
    base = api.rstrip("/")
    found = None
    for page in range(1, _PAGES + 1):
        url = f"{base}/repos/{repo}/issues/{number}/comments?per_page=100&page={page}"
        comments = _call("GET", url, token)
        if not isinstance(comments, list):
            raise ReviewError(f"the GitHub API answered no list of comments to GET {url}")
        found = next(
            (c for c in comments if isinstance(c, dict) and MARKER in str(c.get("body", ""))),
            None,
        )
        if found is not None or len(comments) < 100:
            break
    if found is not None:
        answer = _call(
            "PATCH", f"{base}/repos/{repo}/issues/comments/{found['id']}", token, {"body": body}
        )
        return "updated", str(answer.get("html_url", "")) if isinstance(answer, dict) else ""
    answer = _call("POST", f"{base}/repos/{repo}/issues/{number}/comments", token, {"body": body})
    return "created", str(answer.get("html_url", "")) if isinstance(answer, dict) else ""
