"""A rules file: what an import from git adds to the files it reads.

A repository's prompt files say nothing of when each is used: that lives in
the code around them. A rules file (TOML) writes it down once for every
release::

    placeholders = "double-brace"        # how the bodies write placeholders

    [[variable]]                         # exactly as in a manifest
    name = "plan_mode"
    type = "bool"

    [[rule]]                             # in file order, later ones win
    parts = "gpt*"                       # a glob over part ids
    versions = ">=1.3"                   # optional: a PEP 440 specifier
    when = 'startswith(model, "gpt")'    # any of when, kind, order, agents,
    group = "provider"                   #   group, template, placeholders,
    order = 20                           #   description

    [[data]]                             # prompts inside a data file
    file = "codex-rs/core/models.json"
    path = "models.*.base_instructions"
    key = "slug"

``[[agent]]`` tables may be given too, as in a manifest, for the agents a
rule's ``agents`` names. Every error names the rules file and the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import Field, model_validator

from catalog.errors import ImporterError, RecordError
from catalog.io.positions import key_lines
from catalog.io.textfile import parse_toml, read_text
from catalog.lang.placeholders import PlaceholderSyntax
from catalog.schema import Items, SchemaModel, validate
from catalog.schema.manifest import AgentDecl, PartKind, VariableDecl
from catalog.text.globs import Glob, GlobError

__all__ = [
    "SETTINGS",
    "DataDecl",
    "ImportRules",
    "Rule",
    "RuleDecl",
    "Rules",
    "load_rules",
]

SETTINGS = (
    "when",
    "kind",
    "order",
    "agents",
    "group",
    "template",
    "placeholders",
    "description",
)
"""The part keys a rule may set."""

_HINT = "see the rules file format in docs/importing.md"


class RuleDecl(SchemaModel):
    """A ``[[rule]]``: the part keys it sets, for the parts and releases it matches."""

    parts: str
    versions: str | None = None
    when: str | None = None
    kind: PartKind | None = None
    order: int | None = None
    agents: Items[str] | None = None
    group: str | None = None
    template: bool | None = None
    placeholders: PlaceholderSyntax | None = None
    description: str | None = None

    @model_validator(mode="after")
    def _sets_something(self) -> Self:
        if not self.model_fields_set & set(SETTINGS):
            raise ValueError(f"a rule sets none of {', '.join(SETTINGS)}; give one or remove it")
        return self


class DataDecl(SchemaModel):
    """A ``[[data]]``: one part per entry of a text field of a JSON, TOML or YAML file.

    ``file`` is the file's path in the repository; ``path`` the field's path,
    keys joined by ``.``, ``*`` for every entry of a table or list; the part's
    id is ``prefix`` (the file's own id and ``-`` unless given) and the entry's
    name: the value of its field ``key`` when given, else its key in the table
    (or its index in the list) where the last ``*`` stands.
    """

    file: Annotated[str, Field(min_length=1)]
    path: Annotated[str, Field(min_length=1)]
    key: str | None = None
    prefix: str | None = None
    format: Literal["json", "toml", "yaml"] | None = None


class ImportRules(SchemaModel):
    """A whole rules file."""

    placeholders: PlaceholderSyntax = "dollar-brace"
    variable: Items[VariableDecl] = ()
    agent: Items[AgentDecl] = ()
    rule: Items[RuleDecl] = ()
    data: Items[DataDecl] = ()


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule, compiled: where it is written, what it matches and what it sets."""

    number: int
    line: int | None
    parts: Glob
    versions: SpecifierSet | None
    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Rules:
    """A rules file read and checked (no file: :meth:`none`)."""

    file: str | None
    decl: ImportRules
    rules: tuple[Rule, ...]
    data_lines: tuple[int | None, ...] = ()  # the line of each [[data]]

    @classmethod
    def none(cls) -> Rules:
        """The rules of an import without a rules file: none."""
        return cls(None, ImportRules(), ())


def load_rules(path: str | Path) -> Rules:
    """The rules file at ``path``; an :class:`ImporterError` naming the file and line
    of what is wrong in it."""
    file = str(path)
    text = read_text(Path(path).expanduser(), ImporterError, "the rules file", "check --rules")
    data = parse_toml(text, file, ImporterError, _HINT)
    lines = key_lines(text)
    try:
        decl = validate(ImportRules, data)
    except RecordError as exc:
        raise exc.as_error(ImporterError, _HINT).located(file=file, lines=lines) from None
    rules = []
    for number, rule in enumerate(decl.rule):
        line = lines(("rule", number))
        try:
            glob = Glob("/" + rule.parts)
        except GlobError as exc:
            raise ImporterError(
                f"rule {number + 1}: parts {rule.parts!r} is not a glob: {exc}",
                file=file,
                line=lines(("rule", number, "parts")),
                hint="write a glob over part ids, like 'gpt*' or '{gpt,codex}'",
            ) from None
        versions = None
        if rule.versions is not None:
            try:
                versions = SpecifierSet(rule.versions)
            except InvalidSpecifier:
                raise ImporterError(
                    f"rule {number + 1}: versions {rule.versions!r} is not a PEP 440 specifier",
                    file=file,
                    line=lines(("rule", number, "versions")),
                    hint="write it like '>=1.3,<2'",
                ) from None
        settings = {key: getattr(rule, key) for key in SETTINGS if key in rule.model_fields_set}
        if "agents" in settings:
            settings["agents"] = list(settings["agents"])
        rules.append(Rule(number, line, glob, versions, settings))
    data_lines = tuple(lines(("data", number)) for number in range(len(decl.data)))
    return Rules(file, decl, tuple(rules), data_lines)
