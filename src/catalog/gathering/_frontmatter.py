"""YAML front matter: the ``---``-fenced header of SKILL.md, IDENTITY.md, USER.md."""

from __future__ import annotations

from typing import Any

from catalog.gathering.safe import YamlError, load_yaml

__all__ = ["FrontMatterError", "split_front_matter"]


class FrontMatterError(ValueError):
    """The front matter is refused: never closed, not safe YAML, or not a mapping.

    ``line`` is the 1-based line in the file, when known.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)``; a text without front matter gives ``({}, text)``.

    Raises :class:`FrontMatterError` for a header that never closes, is not
    YAML :func:`~catalog.gathering.safe.load_yaml` accepts (no anchors or aliases,
    bounded nesting and size) or is not a mapping.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            break
    else:
        raise FrontMatterError("the front matter opened with '---' is never closed", 1)
    header = "\n".join(lines[1:index])
    try:
        fields = load_yaml(header) if header.strip() else {}
    except YamlError as exc:
        # The header starts on the file's second line.
        line = exc.line + 1 if exc.line is not None else None
        raise FrontMatterError(f"front matter refused: {exc}", line) from None
    if not isinstance(fields, dict):
        raise FrontMatterError("the front matter is not a mapping of keys to values", 2)
    return fields, "\n".join(lines[index + 1 :]).lstrip("\n")
