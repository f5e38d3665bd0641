"""Token counting: tiktoken encodings (offline), a character heuristic, any callable.

* :mod:`catalog.tokens.counters`: the counters, :func:`get_counter` that resolves a
  name or a callable to one, and the memo of counts by text;
* :mod:`catalog.tokens.claude`: the offline estimate of Anthropic's count.

Importing this package imports neither tiktoken nor its encoding data.
"""

from catalog.tokens.counters import (
    CLAUDE,
    MEMO_BYTES,
    CharCounter,
    ClaudeCounter,
    FunctionCounter,
    TiktokenCounter,
    TokenCounter,
    get_counter,
    memo_bytes,
    offline_encodings,
)

__all__ = [
    "CLAUDE",
    "MEMO_BYTES",
    "CharCounter",
    "ClaudeCounter",
    "FunctionCounter",
    "TiktokenCounter",
    "TokenCounter",
    "get_counter",
    "memo_bytes",
    "offline_encodings",
]
