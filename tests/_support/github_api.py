"""A fake GitHub REST API on loopback: the three routes the review comment uses."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeGitHub:
    """The three routes the comment needs, over an in-memory list of comments."""

    url: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # method, path, auth
    refuse: bool = False
    answer: tuple[int, dict[str, str], Any] | None = None  # status, headers, body for every call
    author: str = "github-actions[bot]"  # whom the token posts as


def _handler(state: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _answer(self, code: int, data: Any, headers: dict[str, str] | None = None) -> None:
            raw = json.dumps(data).encode()
            self.send_response(code)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length", "0"))
            data: dict[str, Any] = json.loads(self.rfile.read(length))
            return data

        def _route(self, method: str) -> None:
            state.requests.append((method, self.path, self.headers.get("Authorization", "")))
            if state.refuse:
                return self._answer(403, {"message": "Resource not accessible by integration"})
            if state.answer is not None:
                code, headers, data = state.answer
                return self._answer(code, data, headers)
            listing = re.fullmatch(
                r"/repos/o/r/issues/7/comments\?per_page=100&page=(\d+)", self.path
            )
            if method == "GET" and listing:
                page = int(listing.group(1))
                return self._answer(200, state.comments[(page - 1) * 100 : page * 100])
            if method == "POST" and self.path == "/repos/o/r/issues/7/comments":
                comment = {
                    "id": len(state.comments) + 1,
                    "body": self._body()["body"],
                    "user": {"login": state.author, "type": "Bot"},
                }
                comment["html_url"] = f"https://github.test/o/r/pull/7#c{comment['id']}"
                state.comments.append(comment)
                return self._answer(201, comment)
            edit = re.fullmatch(r"/repos/o/r/issues/comments/(\d+)", self.path)
            if method == "PATCH" and edit:
                comment = state.comments[int(edit.group(1)) - 1]
                comment["body"] = self._body()["body"]
                return self._answer(200, comment)
            return self._answer(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PATCH(self) -> None:
            self._route("PATCH")

    return Handler


@contextmanager
def serving() -> Iterator[FakeGitHub]:
    """The fake API, served on a free port of 127.0.0.1 while the block runs."""
    state = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
