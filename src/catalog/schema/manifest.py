"""The models of a ``catalog.toml`` manifest and of a shared parts file.

A manifest describes one catalog version: the catalog itself, the variables
it declares, the sub-agents it defines and its parts. The models check every
key and value and the cross-field rules (a duplicate id, an unknown agent);
:mod:`catalog.io.manifests` reads and writes the files and places each
problem at its line.
"""

import re
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, Self

from packaging.version import InvalidVersion, Version
from pydantic import (
    AfterValidator,
    Field,
    GetJsonSchemaHandler,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from catalog.errors import ManifestError
from catalog.lang.placeholders import PlaceholderSyntax
from catalog.schema._base import Items, SchemaModel
from catalog.schema.context import Context
from catalog.schema.sources import Sources
from catalog.text.suggest import guess

__all__ = [
    "ALL_AGENTS",
    "MAIN_AGENT",
    "MAX_NAME_LENGTH",
    "NAME_RULE",
    "AgentDecl",
    "BindingDecl",
    "CatalogInfo",
    "CatalogName",
    "LineDecl",
    "Manifest",
    "PartDecl",
    "PartDefaults",
    "PartKind",
    "PartsFile",
    "PartsSource",
    "PlaceholderDecl",
    "ReviewContextDecl",
    "ReviewDecl",
    "Stability",
    "VariableDecl",
    "VariableType",
    "VersionText",
    "fits_type",
    "is_catalog_name",
    "name_problem",
    "unknown_agent",
]

MAIN_AGENT = "main"
ALL_AGENTS = "*"

PartKind = Literal["system", "tool", "agent", "reminder"]
Stability = Literal["static", "session", "turn"]
VariableType = Literal["bool", "int", "float", "str", "list", "map"]

_SLUG = r"^[a-z0-9][a-z0-9._-]*$"

MAX_NAME_LENGTH = 100
"""Longest catalog name: far below any file system's limit on a folder's name."""
NAME_RULE = (
    "lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, "
    f"at most {MAX_NAME_LENGTH} characters"
)
"""What :func:`is_catalog_name` accepts, in words for messages."""
# It starts with a letter or a digit, so ``.``, ``..`` and hidden folders are never
# names, and it holds no separator: a name never names a folder.
_NAME = re.compile(_SLUG[1:-1])


def is_catalog_name(name: str) -> bool:
    """Whether ``name`` is a catalog name: the one rule for every name the package is
    given (a manifest's, a lock's, the library's, the command line's, the server's)."""
    return len(name) <= MAX_NAME_LENGTH and _NAME.fullmatch(name) is not None


_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")


def name_problem(name: str) -> str | None:
    """What keeps ``name`` from being a catalog name, in words, with a name that would do
    when one is near (``'CC'``: upper-case letters, ``'cc'`` would do); None for a name."""
    if is_catalog_name(name):
        return None
    if not name:
        return "it is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"it is {len(name)} characters long, more than {MAX_NAME_LENGTH}"
    problems = []
    if any(c.isascii() and c.isupper() for c in name):
        problems.append("it has upper-case letters")
    others = sorted({c for c in name.lower() if c not in _NAME_CHARACTERS})
    if others:
        shown = ", ".join(repr(c) for c in others[:5])
        problems.append(f"it holds {shown}, which a name may not")
    if name[0] in "._-":
        problems.append(f"it starts with {name[0]!r}, not a letter or a digit")
    near = "".join(c if c in _NAME_CHARACTERS else "-" for c in name.lower()).lstrip("._-")
    if is_catalog_name(near):
        problems.append(f"{near!r} would do")
    return "; ".join(problems)


def _catalog_name(name: str) -> str:
    if not is_catalog_name(name):
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise ValueError(f"{shown!r} is not a catalog name ({NAME_RULE})")
    return name


CatalogName = Annotated[
    str,
    AfterValidator(_catalog_name),
    WithJsonSchema({"type": "string", "pattern": _SLUG, "maxLength": MAX_NAME_LENGTH}),
]
"""A catalog's name as a manifest or a lock file writes it (:func:`is_catalog_name`)."""
_IDENT = r"^[A-Za-z][A-Za-z0-9_]*$"
_SHA256 = r"^[0-9a-f]{64}$"
_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "bool": (bool,),
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "list": (list, tuple),
    "map": (dict,),
}


def _pep440(value: str) -> str:
    try:
        Version(value)
    except InvalidVersion:
        raise ValueError(
            f"{value!r} is not a PEP 440 version (write it like 1.0.0 or 2.1.37)"
        ) from None
    return value


VersionText = Annotated[str, AfterValidator(_pep440)]
"""A version as written in a manifest or a lock file, checked to be PEP 440."""


class CatalogInfo(SchemaModel):
    """The ``[catalog]`` table: identity and assembly settings of one version.

    ``base`` (``"NAME@SPEC"``) names another catalog whose parts this one may
    reuse with ``from``: an overlay that adds order, conditions and agents to
    text kept elsewhere (an imported upstream release, say). It is resolved
    through the catalog path when the catalog loads.

    ``reference_counter`` names who counted the parts' ``reference_tokens``
    (another tokenizer, a vendor's counting API): figures kept beside the
    catalog's own ``tokens`` and shown next to them by ``catalog diff``.
    """

    name: CatalogName
    version: VersionText
    summary: str = ""
    tokenizer: str = "cl100k_base"
    separator: str = "\n\n"
    token_budget: Annotated[int, Field(gt=0)] | None = None
    base: str | None = None
    reference_counter: str | None = None

    @model_validator(mode="after")
    def _not_its_own_base(self) -> Self:
        """Refuse a ``base`` that is this very version: checked with the manifest, so
        the cycle is the first thing said about it, before missing stamps (which
        ``catalog stamp`` could not record either: it needs the base's bodies)."""
        if self.base is not None and _names_itself(self.base, self.name, self.version):
            raise ManifestError(
                f"base {self.base!r} is this catalog itself ({self.name} {self.version}): "
                "an overlay cannot be its own base; name another catalog, or an earlier "
                f'version of this one with a specifier that excludes {self.version} (base = "'
                f'{self.name}@<{self.version}")',
                key="base",
            )
        return self


def _names_itself(base: str, name: str, version: str) -> bool:
    """Whether ``base`` (``NAME@SPEC``) may resolve to catalog ``name`` at ``version``: the
    same name with no specifier (the newest version may be this one) or one it admits."""
    base_name, _, spec = base.partition("@")
    if base_name.strip() != name:
        return False
    spec = spec.strip()
    if not spec:
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # only for overlays

    try:
        specifier = SpecifierSet(f"=={spec}" if spec[0].isdigit() else spec)
    except InvalidSpecifier:
        return False  # reported where the base is looked up
    return specifier.contains(version, prereleases=True)


class VariableDecl(SchemaModel):
    """A ``[[variable]]``: a name the catalog adds to its conditions and bodies."""

    name: Annotated[str, Field(pattern=_IDENT)]
    type: VariableType
    default: Any = None
    description: str = ""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.default is not None and not fits_type(self.default, self.type):
            raise ValueError(f"default {self.default!r} is not of type {self.type}")
        return self

    def effective_default(self) -> Any:
        """The default, or the type's empty value when none is given."""
        if self.default is not None:
            return tuple(self.default) if self.type == "list" else self.default
        empty: dict[str, Any] = {"bool": False, "int": 0, "float": 0.0, "str": "", "list": ()}
        return empty.get(self.type, {})


class BindingDecl(SchemaModel):
    """A ``[[binding]]``: a ``type:name`` a user's bracket template may use.

    ``value`` is an expression over the context (``env.cwd``). A name ending in
    a colon (``file:``) is a dynamic type: its value maps names to values. With
    ``source = "file"`` it needs no ``value``: the names are paths, read from
    the project by :func:`catalog.gather` into the context's ``files``.
    """

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*:([^\]\s]*)$")]
    value: str | None = None
    source: Literal["file"] | None = None
    description: str = ""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.value is None) == (self.source is None):
            raise ValueError("give exactly one of `value` (an expression) and `source`")
        if self.source is not None and not self.name.endswith(":"):
            raise ValueError("`source` is for dynamic types, whose name ends in ':' (file:)")
        return self


class AgentDecl(SchemaModel):
    """A ``[[agent]]``: a sub-agent the catalog can assemble a prompt for."""

    name: Annotated[str, Field(pattern=_SLUG)]
    description: str = ""
    tools: Items[str] = ()
    skills: Items[str] = ()
    critical_reminder: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)


def _some_agent(value: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if value is not None and not value:
        raise ValueError("lists no agent, so the part can never be selected")
    return value


class LineDecl(SchemaModel):
    """One entry of a ``[[lines.NAME]]`` list: a line, or the lines an expression gives.

    ``text`` is one fixed line; ``items`` an expression giving a text or a
    list of texts. Either is taken only when ``when`` holds. The list keeps
    the entries' order, strips each line and drops blank ones and repeats.
    """

    text: str | None = None
    items: str | None = None
    when: str = "true"

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.text is None) == (self.items is None):
            raise ValueError(
                "give exactly one of `text` (a line) and `items` (an expression giving lines)"
            )
        return self


class PlaceholderDecl(SchemaModel):
    """A ``[placeholders]`` entry: what a raw body's ``${NAME}`` is replaced with.

    Written as a string (the text itself) or a table ``{ expr = "..." }`` (an
    expression over the context, rendered as text when the prompt is assembled).
    """

    value: str | None = None
    expr: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _text_alone(cls, data: Any) -> Any:
        return {"value": data} if isinstance(data, str) else data

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """A text, or the table: the schema says both forms."""
        return {"anyOf": [{"type": "string"}, handler(core_schema)]}

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.value is None) == (self.expr is None):
            raise ValueError("give a text, or a table with `expr` (an expression)")
        return self


class PartDefaults(SchemaModel):
    """A ``[defaults.KIND]`` table: what a part of that kind takes when it leaves a key out.

    ``when`` may read ``part`` (the part's ``id``, ``name`` and ``kind``), so
    one condition serves every part of the kind: ``part.name in tools``.
    ``required = true`` makes the kind's parts never dropped to fit a token
    budget, so a prompt over it is an error (a catalog whose document says a
    prompt over budget is an error, not one to trim).
    """

    when: str | None = None
    agents: Annotated[Items[str] | None, AfterValidator(_some_agent)] = None
    stability: Stability | None = None
    required: bool | None = None


def _relative_path(value: str | None) -> str | None:
    if value is None:
        return value
    if not value or value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", value):
        raise ValueError("must be a path relative to the version directory")
    if "\0" in value:  # no system call takes one: it used to end `stamp` in a traceback
        raise ValueError("must be a path without a NUL character")
    return value


class PartDecl(SchemaModel):
    """A ``[[part]]``: one prompt part, its body and when it is used.

    The body is either ``file`` (a path relative to the version folder) or
    ``from``, the id of a part of the catalog's ``base``: that part's body,
    and its ``kind``, ``name``, ``description``, ``template``,
    ``reference_tokens`` and ``meta``
    where this part leaves them out. ``sha256`` and ``tokens`` are recorded
    either way, so an overlay pins the exact base text it was reviewed with.

    ``required`` and ``priority`` matter only under a token budget: optional
    parts are dropped, lowest ``priority`` first, until the prompt fits.
    ``reference_tokens`` is the body's count by the catalog's
    ``reference_counter`` (for imported parts, the count their source published).
    ``group`` names the part's group of alternatives: of the parts of one group,
    an assembly takes the first (in prompt order) whose condition holds, and no other.
    ``placeholders`` says how a raw body (``template = false``) writes the
    placeholders ``[placeholders]`` fills: ``${NAME}`` (``dollar-brace``, when
    unset), ``{{ NAME }}`` (``double-brace``) or ``{NAME}`` (``single-brace``).
    """

    id: Annotated[str, Field(pattern=_SLUG)]
    file: Annotated[str | None, AfterValidator(_relative_path)] = None
    from_: Annotated[str, Field(pattern=_SLUG)] | None = Field(default=None, alias="from")
    kind: PartKind = "system"
    name: str | None = None
    description: str = ""
    order: int
    when: str = "true"
    agents: Annotated[Items[str], AfterValidator(_some_agent)] = (MAIN_AGENT,)
    stability: Stability = "static"
    slot: Annotated[str, Field(pattern=_SLUG)] | None = None
    template: bool = True
    placeholders: PlaceholderSyntax | None = None
    required: bool = False
    priority: int = 0
    tokens: Annotated[int, Field(ge=0)]
    sha256: Annotated[str, Field(pattern=_SHA256)]
    reference_tokens: Annotated[int, Field(ge=0)] | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    group: Annotated[str, Field(pattern=_SLUG)] | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.file is None) == (self.from_ is None):
            raise ValueError(
                "give exactly one of `file` (a body file) and `from` (a part of the base catalog)"
            )
        if self.from_ is not None and not {"kind", "name"} <= self.model_fields_set:
            return self  # kind and name may come from the base part: checked once resolved
        if self.kind == "tool" and not self.name:
            raise ValueError("a part of kind 'tool' needs `name`, the tool's name")
        if self.kind != "tool" and self.name is not None:
            raise ValueError("`name` is only for parts of kind 'tool'")
        return self

    @property
    def tool_name(self) -> str:
        """The tool's name for ``tool`` parts, else the id."""
        return self.name or self.id

    def for_agent(self, agent: str) -> bool:
        """Whether this part is given to ``agent`` at all."""
        return ALL_AGENTS in self.agents or agent in self.agents

    @property
    def placeholder_syntax(self) -> PlaceholderSyntax:
        """How the raw body writes its placeholders (``${NAME}`` unless said)."""
        return self.placeholders or "dollar-brace"

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The part as plain data; ``group`` and ``placeholders`` left out when unset,
        so that a manifest that does not say them keeps the hash its lock records."""
        data: dict[str, Any] = handler(self)
        for key in ("group", "placeholders"):
            if getattr(self, key) is None:
                data.pop(key, None)
        return data


class PartsSource(SchemaModel):
    """A ``[[parts_from]]``: a shared parts file whose ``[[part]]`` records this version takes.

    ``file`` is a path relative to the version folder, inside the catalog's
    own folder, like a part's ``file``; ``sha256`` is the file's hash (UTF-8,
    LF line endings), checked when the version loads so an edited shared file
    is an error. Every part of the file is taken but those named in ``omit``;
    a part of a later parts file, or of the manifest itself, replaces one with
    the same id from an earlier file. Many versions can name one parts file,
    so each version's manifest holds only what changed.
    """

    file: Annotated[str, AfterValidator(_relative_path)]
    sha256: Annotated[str, Field(pattern=_SHA256)]
    omit: Items[str] = ()


class PartsFile(SchemaModel):
    """A shared parts file named by ``[[parts_from]]``: ``[[part]]`` tables only."""

    part: Items[PartDecl] = ()

    @model_validator(mode="after")
    def _check(self) -> Self:
        _no_duplicates("part", [p.id for p in self.part])
        return self


class ReviewContextDecl(SchemaModel):
    """A ``[[review.context]]``: a named context under which ``catalog review`` assembles
    the prompts of ``agents`` (every agent when left out) on both sides of a change."""

    name: Annotated[str, Field(pattern=_SLUG)]
    description: str = ""
    agents: Annotated[Items[str] | None, AfterValidator(_some_agent)] = None
    context: Context = Field(default_factory=Context)


class ReviewDecl(SchemaModel):
    """The ``[review]`` table: what ``catalog review`` shows of a change to this catalog.

    ``models`` names the models (ids of the prices data, ``claude-sonnet-4-5``) whose
    cache economics are worked out before and after; ``context`` lists the review
    contexts. Without contexts, review uses an empty context for every agent.
    """

    models: Items[Annotated[str, Field(min_length=1)]] = ()
    context: Items[ReviewContextDecl] = ()


def unknown_agent(
    agent: str, known: Iterable[str], *, key: str | tuple[str | int, ...]
) -> ManifestError:
    """The error for a part or a default naming ``agent``, which is not among the
    ``known`` agents: the declared ones listed, and the closest, if one is close."""
    declared = sorted(set(known) - {ALL_AGENTS})
    close = guess(agent, declared)
    return ManifestError(
        f"unknown agent {agent!r} (declared: {', '.join(declared)})"
        + (f"; {close}" if close else "; add an [[agent]] table or fix the name"),
        key=key,
    )


class Manifest(SchemaModel):
    """A whole ``catalog.toml``.

    ``parts_from`` is read by the loader, which merges those records into
    ``part`` and leaves ``parts_from`` empty in the catalog it loads; it is
    left out of the manifest's dump (and so of a lock's ``manifest_sha256``)
    when empty.
    """

    catalog: CatalogInfo
    variable: Items[VariableDecl] = ()
    agent: Items[AgentDecl] = ()
    binding: Items[BindingDecl] = ()
    definitions: dict[Annotated[str, Field(pattern=_IDENT)], str] = Field(default_factory=dict)
    lines: dict[Annotated[str, Field(pattern=_IDENT)], Items[LineDecl]] = Field(
        default_factory=dict
    )
    defaults: dict[PartKind, PartDefaults] = Field(default_factory=dict)
    placeholders: dict[
        Annotated[str, Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")], PlaceholderDecl
    ] = Field(default_factory=dict)
    sources: Sources = Field(default_factory=Sources)
    parts_from: Items[PartsSource] = ()
    part: Items[PartDecl] = ()
    review: ReviewDecl = Field(default_factory=ReviewDecl)

    @model_validator(mode="after")
    def _check(self) -> Self:
        _no_duplicates("variable", [v.name for v in self.variable])
        _no_duplicates("binding", [b.name for b in self.binding])
        _no_duplicates("agent", [a.name for a in self.agent])
        _no_duplicates("part", [p.id for p in self.part])
        _no_duplicates_at(("review", "context"), "name", [c.name for c in self.review.context])
        _no_duplicates_at(("review", "models"), None, list(self.review.models))
        known = {MAIN_AGENT, ALL_AGENTS} | {a.name for a in self.agent}
        _no_duplicates("parts_from", [p.file for p in self.parts_from])
        if self.catalog.base is None:
            for index, part in enumerate(self.part):
                if part.from_ is not None:
                    raise ManifestError(
                        "`from` names a part of the base catalog, but [catalog] has no `base`; "
                        'add base = "NAME@SPEC" or give the part a `file`',
                        key=("part", index, "from"),
                    )
        for index, decl in enumerate(self.agent):
            if decl.name == MAIN_AGENT:
                raise ManifestError(
                    "'main' is implicit and must not be declared", key=("agent", index, "name")
                )
        agent_lists: list[tuple[tuple[str | int, ...], tuple[str, ...]]] = [
            (("part", i, "agents"), part.agents) for i, part in enumerate(self.part)
        ]
        agent_lists += [
            (("defaults", k, "agents"), d.agents or ()) for k, d in self.defaults.items()
        ]
        agent_lists += [
            (("review", "context", i, "agents"), c.agents or ())
            for i, c in enumerate(self.review.context)
        ]
        for key, agents in agent_lists:
            for agent in agents:
                if agent not in known:
                    raise unknown_agent(agent, known, key=key)
        for name in self.lines:
            if name in self.definitions:
                raise ManifestError(
                    f"{name!r} is defined twice, in [definitions] and in [lines]",
                    key=("lines", name),
                )
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The manifest as plain data; ``parts_from`` and ``review`` left out when empty
        (so a manifest without them keeps the dump, and the lock hash, it always had)."""
        data: dict[str, Any] = handler(self)
        if not self.parts_from:
            data.pop("parts_from", None)
        if not (self.review.models or self.review.context):
            data.pop("review", None)
        return data

    def with_defaults(self, part: PartDecl) -> PartDecl:
        """``part`` with the keys it leaves out taken from ``[defaults.KIND]`` of its kind."""
        defaults = self.defaults.get(part.kind)
        if defaults is None:
            return part
        given = part.model_fields_set
        taken = {
            name: value
            for name in PartDefaults.model_fields
            if name not in given and (value := getattr(defaults, name)) is not None
        }
        return part.model_copy(update=taken) if taken else part

    @property
    def agent_names(self) -> tuple[str, ...]:
        """``main`` followed by the declared sub-agents, in manifest order."""
        return (MAIN_AGENT, *(a.name for a in self.agent))


def _no_duplicates(table: str, names: Sequence[str]) -> None:
    _no_duplicates_at((table,), {"part": "id", "parts_from": "file"}.get(table, "name"), names)


def _no_duplicates_at(table: tuple[str, ...], what: str | None, names: Sequence[str]) -> None:
    """Refuse a name given twice in the list at key path ``table`` (each entry's key
    ``what``, or the entries themselves when None)."""
    seen: dict[str, int] = {}
    shown = ".".join(table)
    for index, name in enumerate(names):
        if name in seen:
            key: tuple[str | int, ...] = (*table, index) if what is None else (*table, index, what)
            raise ManifestError(
                f"duplicate {shown} {what or 'entry'} {name!r} "
                f"(first used by {shown}[{seen[name]}])",
                key=key,
            )
        seen[name] = index


def fits_type(value: Any, type_name: str) -> bool:
    """Whether ``value`` is acceptable for a variable declared as ``type_name``."""
    if type_name in ("int", "float") and isinstance(value, bool):
        return False
    return isinstance(value, _PYTHON_TYPES[type_name])
