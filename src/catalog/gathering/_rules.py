"""Path-scoped rule files: when a rule applies, read from its front matter.

Two styles, as a ``[[sources.files]]`` entry's ``scoped_by`` names them:

* ``"paths"``: a ``paths:`` key holding a glob, a comma-separated list of
  globs or a YAML list of them; the rule applies when a touched file matches
  one; a rule without ``paths`` always applies;
* ``"globs"``: a ``globs:`` key (the same forms) and ``alwaysApply: true``;
  a rule with neither is one the user asks for by name, never gathered.

The header is read by a small line reader, not by a YAML parser: rule files
are written by hand (``globs: *.ts`` is not valid YAML, ``*`` starts an
alias) and nothing in them may expand. It knows ``key: value``, ``key:``
followed by ``- item`` lines, ``[a, b]`` lists and quoted strings; any other
line is ignored. Reading is linear in the header's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["MAX_HEADER_LINES", "RuleScope", "read_rule"]

MAX_HEADER_LINES = 200
"""A ``---`` header that does not close within this many lines is not a header."""

_TRUE = ("true", "yes", "on")


@dataclass(frozen=True, slots=True)
class RuleScope:
    """When a rule applies: ``always``, or when a touched file matches one of ``globs``."""

    always: bool
    globs: tuple[str, ...]
    body: str


def read_rule(text: str, style: Literal["paths", "globs"]) -> RuleScope:
    """The scope and the body (the text after the front matter) of one rule file."""
    fields, body = _header(text)
    if style == "paths":
        globs = _globs(fields.get("paths"))
        return RuleScope(always=not globs, globs=globs, body=body)
    always = str(fields.get("alwaysApply", "")).strip().lower() in _TRUE
    return RuleScope(always=always, globs=() if always else _globs(fields.get("globs")), body=body)


def _header(text: str) -> tuple[dict[str, str | list[str]], str]:
    """The front matter's keys (scalars and lists) and the body after it."""
    lines = text.split("\n", MAX_HEADER_LINES + 1)
    if not lines or lines[0].strip() != "---":
        return {}, text
    fields: dict[str, str | list[str]] = {}
    current: list[str] | None = None
    for index in range(1, min(len(lines), MAX_HEADER_LINES + 1)):
        line = lines[index]
        if line.strip() in ("---", "..."):
            rest = "\n".join(lines[index + 1 :])
            return fields, rest.lstrip("\n")
        stripped = line.strip()
        if stripped.startswith("- ") and current is not None:
            current.append(_unquote(stripped[2:]))
            continue
        key, colon, value = line.partition(":")
        if (
            not colon
            or not key
            or key[0].isspace()
            or not key.strip().replace("-", "_").isidentifier()
        ):
            current = None
            continue
        value = value.strip()
        if not value:
            current = []
            fields[key.strip()] = current
        elif value.startswith("[") and value.endswith("]"):
            current = None
            fields[key.strip()] = [_unquote(item) for item in _split(value[1:-1])]
        else:
            current = None
            fields[key.strip()] = _unquote(value)
    return {}, text


def _globs(value: str | list[str] | None) -> tuple[str, ...]:
    """The globs of a ``paths``/``globs`` value; a string may hold several, comma-separated."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    found: list[str] = []
    for item in items:
        found.extend(glob for glob in (_unquote(g) for g in _split(item)) if glob)
    return tuple(found)


def _split(text: str) -> list[str]:
    """``text`` cut at the commas outside braces and quotes (``{ts,tsx}`` stays whole)."""
    pieces: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "," and not depth:
            pieces.append(text[start:index])
            start = index + 1
    pieces.append(text[start:])
    return [piece.strip() for piece in pieces if piece.strip()]


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text
