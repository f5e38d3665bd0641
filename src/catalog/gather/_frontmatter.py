"""YAML front matter: the ``---``-fenced header of SKILL.md, IDENTITY.md, USER.md."""

from __future__ import annotations

from typing import Any

__all__ = ["FrontMatterError", "split_front_matter"]


class FrontMatterError(ValueError):
    """The front matter is not valid YAML or not a mapping."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)``; a text without front matter gives ``({}, text)``.

    Raises :class:`FrontMatterError` for a header that never closes, is not
    YAML or is not a mapping. PyYAML is imported here, on first use, so that
    importing :mod:`catalog` stays cheap.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            break
    else:
        raise FrontMatterError("the front matter opened with '---' is never closed")
    import yaml

    header = "\n".join(lines[1:index])
    try:
        fields = yaml.safe_load(header) if header.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise FrontMatterError(f"invalid YAML in the front matter{where}") from None
    if not isinstance(fields, dict):
        raise FrontMatterError("the front matter is not a mapping of keys to values")
    return fields, "\n".join(lines[index + 1 :]).lstrip("\n")
