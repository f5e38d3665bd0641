"""Where a server of the package listens: the addresses only this machine reaches, the
rule a bearer token follows, and the listening socket. ``catalog serve`` and ``catalog
mcp --http`` listen alike."""

from __future__ import annotations

import errno
import socket
from typing import Final

from catalog.errors import UsageError

__all__ = [
    "LOOPBACK",
    "MIN_TOKEN_CHARACTERS",
    "MIN_TOKEN_LENGTH",
    "TOKEN_HINT",
    "listen",
    "token_problem",
]

TOKEN_HINT: Final = "make one with e.g. `openssl rand -hex 32`"
"""How to make a token that :func:`token_problem` takes."""

LOOPBACK: Final = frozenset({"127.0.0.1", "::1", "localhost"})
"""Addresses that only this machine reaches: the server binds here unless told otherwise."""


MIN_TOKEN_LENGTH: Final = 32
"""The fewest characters a token may have (``openssl rand -hex 16`` writes 32)."""
MIN_TOKEN_CHARACTERS: Final = 8
"""The fewest different characters a token may use: 32 random hexadecimal digits use
fewer than 8 once in 25 million."""


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot be the server's token, or None. It must be printable ASCII
    without spaces, which every HTTP client sends as it is (a header carries bytes, and
    clients disagree on how other characters become them), and hard to guess: at
    least :data:`MIN_TOKEN_LENGTH` characters, of at least
    :data:`MIN_TOKEN_CHARACTERS` different ones, and not one text repeated (a word,
    a short secret written twice)."""
    if not token:
        return "the token is empty"
    if not token.isascii() or not token.isprintable() or " " in token:
        return "the token must be printable ASCII without spaces"
    if len(token) < MIN_TOKEN_LENGTH:
        return (
            f"the token is too short to be safe: {len(token)} characters, at least "
            f"{MIN_TOKEN_LENGTH} needed"
        )
    if len(set(token)) < MIN_TOKEN_CHARACTERS:
        return (
            f"the token is too easy to guess: it uses {len(set(token))} different characters, "
            f"at least {MIN_TOKEN_CHARACTERS} needed"
        )
    if (token + token).find(token, 1) < len(token):
        return "the token is too easy to guess: it is one shorter text repeated"
    return None


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` whose accepted connections send small
    answers at once (``TCP_NODELAY``); a port in use or an address this machine does
    not have is a :class:`UsageError` saying what to do.

    Without ``TCP_NODELAY`` a keep-alive request waits for the client's delayed
    acknowledgement (about 40 ms on Linux) between an answer's headers and its body.
    asyncio sets it on a connection accepted from a socket whose protocol says TCP,
    which ``socket.create_server`` leaves unsaid: the socket is made again on the same
    descriptor, saying it. Worker processes get the socket from uvicorn by its
    descriptor, without that: the option set on the listening socket itself is given by
    the operating system to every connection it accepts (Linux and the BSDs do).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        created = socket.create_server((host, port), family=family)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"port {port} on {host} is in use: stop the program using it, or choose "
                "another port with --port"
            ) from None
        if exc.errno == errno.EACCES:
            raise UsageError(
                f"this user may not listen on port {port}",
                hint="choose a port from 1024 up, e.g. --port 8000",
            ) from None
        reason = exc.strerror or str(exc)
        raise UsageError(
            f"cannot listen on {host}:{port}: {reason}",
            hint="give --host an address of this machine, e.g. 127.0.0.1",
        ) from None
    listening = socket.socket(
        family, socket.SOCK_STREAM, socket.IPPROTO_TCP, fileno=created.detach()
    )
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return listening
