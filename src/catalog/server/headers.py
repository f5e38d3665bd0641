"""The security headers every answer carries, errors and 500s included: no framing by
other sites, a content security policy that the pages satisfy (their script and style
sheet come from the server, nothing is inline), no type sniffing, no referrer sent
elsewhere."""

from __future__ import annotations

from typing import Final

__all__ = ["FRAMED_HEADERS", "PAGE_POLICY", "SECURITY_HEADERS"]

PAGE_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
"""The content security policy of every answer that sets none of its own."""

SECURITY_HEADERS: Final = {
    "content-security-policy": PAGE_POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}
"""The headers added to every answer that does not set them itself."""


FRAMED_HEADERS: Final = {
    "content-security-policy": "default-src 'none'; style-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    "x-frame-options": "SAMEORIGIN",
}
"""The headers of a page shown in a frame of this server's pages alone: no script,
its style sheet from the server."""
