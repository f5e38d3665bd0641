"""YAML read safely: plain data, no anchors or aliases, bounded nesting and size.

YAML read here comes from files nobody reviewed (a gathered project's front
matter, a data file of an imported repository). One alias can stand for a
whole tree, and nested ones multiply ("billion laughs"), so anchors and
aliases are refused before anything is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

__all__ = ["MAX_YAML_BYTES", "MAX_YAML_DEPTH", "YamlError", "load_yaml"]

MAX_YAML_BYTES: Final = 64 * 1024
"""Longest YAML document (a front matter header) read by default, in bytes of UTF-8."""
MAX_YAML_DEPTH: Final = 32
"""Deepest nesting of YAML collections."""


class YamlError(ValueError):
    """YAML refused or invalid; ``line`` (1-based, in the text given) when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(
    text: str, *, max_depth: int = MAX_YAML_DEPTH, max_bytes: int = MAX_YAML_BYTES
) -> Any:
    """``text`` read as YAML (the safe subset: plain data), bounded.

    Refused with :class:`YamlError`: anchors and aliases (one alias can stand
    for a whole tree, and nested ones multiply: "billion laughs"), nesting
    deeper than ``max_depth``, more than ``max_bytes`` bytes, and
    any syntax error. The parser's events are checked first, without building
    anything, so no alias is expanded and no depth reaches Python's recursion
    limit; only then is the document built (with libyaml when PyYAML has it).
    """
    if len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes:
        raise YamlError(f"longer than the limit of {max_bytes} bytes")
    # PyYAML looks ahead up to 1024 characters per flow collection, at a
    # quadratic cost: refuse an obviously too deep run of openers before that.
    if re.search(rf"[\[{{]{{{max_depth + 1}}}", "".join(text.split())):
        raise YamlError(f"nested more than {max_depth} levels deep")
    import yaml  # imported on first use, so that importing catalog stays cheap

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_events(yaml.parse(text, Loader=loader), max_depth)
        return yaml.load(text, Loader=loader)  # a safe loader: plain data only
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = f": {exc.problem}" if exc.problem else ""
        raise YamlError(f"invalid YAML{problem}", mark.line + 1 if mark else None) from None
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError) as exc:
        raise YamlError(f"invalid YAML ({type(exc).__name__})") from None


def _check_events(events: Iterable[Any], max_depth: int) -> None:
    """Refuse anchors, aliases and nesting past ``max_depth`` in a YAML event stream."""
    import yaml

    depth = 0
    for event in events:
        line = event.start_mark.line + 1 if event.start_mark else None
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlError("anchors and aliases (& and *) are not accepted", line)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                raise YamlError(f"nested more than {max_depth} levels deep", line)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
