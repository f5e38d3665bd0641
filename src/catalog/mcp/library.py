"""What ``catalog mcp`` offers, apart from the protocol: one prompt per catalog and agent
with its arguments, the prompt a client asks for, and the part bodies as resources.

A prompt is named like its agent's prompt in a trace (:func:`catalog.engine.telemetry.prompt_name`):
the catalog's name for the main agent, ``NAME.AGENT`` for a sub-agent. Its arguments
are the version (:data:`VERSION_ARGUMENT`: a version, a PEP 440 specifier or a release
label), the enabled tools (:data:`TOOLS_ARGUMENT`), the model (:data:`MODEL_ARGUMENT`, for
the context's ``model`` and ``env.model``) and each variable the newest version
declares. Those three names hold a ``-``, which a variable's name never does, so they
never clash with one. Every value is text, read as ``catalog assemble`` reads
``--set``, ``--tools`` and ``--model`` (:mod:`catalog.io.settings`); an empty value is
a value not given.
The text a prompt gives is exactly the text ``catalog assemble`` prints for the same
inputs.

A release label chooses the version its release points at now, read from the same
prompt store as ``catalog serve`` (a canary is chosen per conversation, and a prompt
fetched here belongs to none). Part bodies are the resources
``catalog://NAME/VERSION/PART``, as written in the part's file.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from packaging.version import InvalidVersion, Version

from catalog.conversations.connect import default_store_url, open_store
from catalog.conversations.releases import Releases, catalog_path_loader
from catalog.engine.catalog import Catalog
from catalog.engine.prompt import AssembledPrompt
from catalog.engine.telemetry import prompt_name, record_release
from catalog.errors import CatalogError, ContextError, NotFoundError, UsageError
from catalog.io.catalog_path import CatalogPath, check_name, parse_spec
from catalog.io.settings import tool_list, typed_value
from catalog.schema.context import coerce_context
from catalog.schema.manifest import MAIN_AGENT, MAX_NAME_LENGTH
from catalog.text.suggest import did_you_mean
from catalog.text.visible import visible

__all__ = [
    "MODEL_ARGUMENT",
    "RESOURCE_TEMPLATE",
    "TOOLS_ARGUMENT",
    "VERSION_ARGUMENT",
    "Argument",
    "PartResource",
    "PromptEntry",
    "PromptLibrary",
    "Resolved",
]

VERSION_ARGUMENT: Final = "version-spec"
TOOLS_ARGUMENT: Final = "enabled-tools"
MODEL_ARGUMENT: Final = "model-name"
RESOURCE_TEMPLATE: Final = "catalog://{name}/{version}/{part}"
"""The URI of a part's body in any version."""

_SCHEME: Final = "catalog://"
_MAX_URI_LENGTH: Final = 1000
_SHOWN: Final = 100
_log = logging.getLogger("catalog.mcp")

_FIXED = (
    (
        VERSION_ARGUMENT,
        "a version (1.2.0), a PEP 440 specifier (~=1.1) or a release label (production); "
        "default: the newest version",
    ),
    (TOOLS_ARGUMENT, "the enabled tools, comma-separated (Bash,Read,Grep)"),
    (MODEL_ARGUMENT, "the model id, for the context's model (and env.model)"),
)


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a prompt (every argument is optional)."""

    name: str
    description: str


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """One prompt: an agent of a catalog, described from the catalog's newest version."""

    name: str
    catalog: str
    agent: str
    version: str
    description: str
    arguments: tuple[Argument, ...]


@dataclass(frozen=True, slots=True)
class PartResource:
    """One part's body as a resource."""

    uri: str
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Resolved:
    """The prompt a client asked for, and the release label that chose its version."""

    prompt: AssembledPrompt
    release: str | None = None

    def meta(self) -> dict[str, Any]:
        """What identifies the prompt: catalog, version, agent, release (when a label
        chose the version), fingerprint and token count."""
        prompt = self.prompt
        meta: dict[str, Any] = {
            "catalog": prompt.catalog,
            "version": prompt.version,
            "agent": prompt.agent,
        }
        if self.release is not None:
            meta["release"] = self.release
        meta.update(fingerprint=prompt.fingerprint, tokens=prompt.tokens, counter=prompt.counter)
        return meta


class PromptLibrary:
    """The catalogs found from ``paths`` (as ``--path``, then ``CATALOG_PATH``, installed
    packages and the bundled catalogs) as prompts; releases are read from the store at
    ``store_url`` (opened when a label is first used)."""

    def __init__(self, paths: Iterable[str | Path] = (), *, store_url: str | None = None) -> None:
        folders = tuple(paths)
        self._path = CatalogPath(folders)
        self._load = catalog_path_loader(folders)
        self._store_url = store_url

    @functools.cached_property
    def _releases(self) -> Releases:
        return Releases(open_store(self._store_url or default_store_url()), load=self._load)

    def close(self) -> None:
        """Close the prompt store, if a release was read from it."""
        releases = self.__dict__.pop("_releases", None)
        if releases is not None:
            releases.store.close()

    def newest(self, name: str, spec: str | None = None) -> Catalog:
        """The newest version of catalog ``name`` satisfying ``spec``, compiled once."""
        found = self._path.find(name, spec)
        return self._load(found.name, str(found.version))

    def _loadable(self) -> Iterator[Catalog]:
        """The newest version of each catalog, by name, leaving out those that do not
        load, each with a warning in the log (asking for one of its prompts says why)."""
        for name in self._path.names():
            try:
                yield self.newest(name)
            except CatalogError as exc:
                _log.warning("catalog %s is left out: %s", name, visible(exc.message))

    def entries(self) -> list[PromptEntry]:
        """Every prompt, by catalog then agent (main first); a catalog whose newest
        version does not load is left out (getting its prompt says why)."""
        names = set(self._path.names())
        found = []
        for entry in (entry for catalog in self._loadable() for entry in _entries(catalog)):
            if _split(entry.name, names) == (entry.catalog, entry.agent):
                found.append(entry)
            else:
                _log.warning(
                    "sub-agent %s of %s is left out: its prompt's name %s is the catalog %s",
                    entry.agent,
                    entry.catalog,
                    entry.name,
                    entry.name,
                )
        return found

    def resources(self) -> list[PartResource]:
        """The parts of each catalog's newest version (any version's are read with
        :data:`RESOURCE_TEMPLATE`); a catalog that does not load is left out."""
        return [
            PartResource(
                uri=f"{_SCHEME}{catalog.name}/{catalog.version}/{part.id}",
                name=f"{catalog.name}/{catalog.version}/{part.id}",
                description=part.decl.description,
            )
            for catalog in self._loadable()
            for part in catalog.parts
        ]

    def read(self, uri: str) -> str:
        """The body of the part ``catalog://NAME/VERSION/PART`` names, as written."""
        fields = uri.removeprefix(_SCHEME).split("/") if uri.startswith(_SCHEME) else []
        if len(fields) != 3 or not all(fields) or len(uri) > _MAX_URI_LENGTH:
            raise NotFoundError(
                f"{_shown(uri)} is not a part's address", hint=f"write {RESOURCE_TEMPLATE}"
            )
        name, version, part = fields
        if not _is_version(version):
            raise NotFoundError(
                f"{_shown(version)} is not a version, as written in a part's address",
                hint=f"write {RESOURCE_TEMPLATE} with a version as resources/list shows it (1.2.0)",
            )
        return self.newest(check_name(name), f"=={version}").part(part).body

    def get(self, name: str, arguments: Mapping[str, str] | None = None) -> Resolved:
        """Assemble the prompt ``name`` with ``arguments``: the text ``catalog assemble``
        prints for the same catalog, agent, version, tools, model and variables."""
        given = {key: _text(key, value) for key, value in (arguments or {}).items()}
        given = {key: value for key, value in given.items() if value.strip()}
        catalog_name, agent = _split(name, set(self._path.names()))
        spec = given.pop(VERSION_ARGUMENT, None)
        release = None if spec is None or _is_spec(spec) else spec.strip()
        if release is not None:
            catalog = self._released(catalog_name, release)
        else:
            catalog = self.newest(catalog_name, spec)
        context = coerce_context(_context(catalog, given), source="the prompt's arguments")
        prompt = catalog.assemble(context, agent=agent)
        if release is not None:
            record_release(release)
        return Resolved(prompt, release)

    def _released(self, name: str, label: str) -> Catalog:
        """The version of catalog ``name`` that release ``label`` points at now."""
        release = self._releases.current(label)
        target = release.target
        if target.catalog != name:
            raise UsageError(
                f"release {label} is of catalog {target.catalog}, not {name}",
                hint=f"ask for the prompt {target.catalog}, or give {name} a version",
            )
        return self._releases.load_version(release, target.version)


def _split(name: str, names: set[str]) -> tuple[str, str]:
    """The catalog and agent a prompt's name means, of the catalogs ``names``: the
    longest catalog name that the name is, or starts with followed by a dot (so a
    catalog ``a.b`` hides the sub-agent ``b`` of a catalog ``a``)."""
    if name in names:
        return name, MAIN_AGENT
    cut = MAX_NAME_LENGTH + 1  # no longer catalog name: bounded work on any name
    while (cut := name.rfind(".", 0, cut)) > 0:
        if name[:cut] in names:
            return name[:cut], name[cut + 1 :]
    raise NotFoundError(
        f"there is no prompt {_shown(name)}",
        hint=f"{did_you_mean(name, names, what='catalogs')}; a sub-agent's prompt is NAME.AGENT",
    )


def _context(catalog: Catalog, given: dict[str, str]) -> dict[str, Any]:
    """The context the arguments besides the version describe, read as the command line
    reads ``--tools``, ``--model`` and ``--set VARIABLE=...``."""
    data: dict[str, Any] = {}
    tools = given.pop(TOOLS_ARGUMENT, None)
    if tools is not None:
        data["tools"] = tool_list(tools)
    model = given.pop(MODEL_ARGUMENT, None)
    if model is not None:
        data["model"] = model
        data["env"] = {"model": model}
    types = catalog.variable_types
    for key, raw in given.items():
        declared = types.get(key)
        if declared is None:
            known = [*types, *(fixed for fixed, _ in _FIXED)]
            raise ContextError(
                f"argument {key[:100]!r}: no such variable of {catalog.name} {catalog.version}",
                hint=did_you_mean(key, known, what="arguments"),
            )
        variables = data.setdefault("variables", {})
        variables[key] = typed_value(raw, declared, key, given="argument")
    return data


def _text(key: str, value: object) -> str:
    """An argument's value, which the protocol says is text."""
    if not isinstance(value, str):
        raise ContextError(
            f"argument {_shown(key)}: a {type(value).__name__}, not text",
            hint="every argument's value is a string, as on the command line",
        )
    return value


def _shown(text: str) -> str:
    """``text`` quoted for a message (control and bidi characters escaped), cut to
    :data:`_SHOWN` characters."""
    return repr(f"{text[:_SHOWN]}..." if len(text) > _SHOWN else text)


def _is_version(text: str) -> bool:
    """Whether ``text`` is a version written the one way a version is listed."""
    try:
        return str(Version(text)) == text
    except InvalidVersion:
        return False


def _is_spec(text: str) -> bool:
    """Whether ``text`` is a version or a PEP 440 specifier (else it is a release label)."""
    try:
        parse_spec(text)
    except NotFoundError:
        return False
    return True


def _entries(catalog: Catalog) -> list[PromptEntry]:
    """The prompts of one catalog version: its main agent, then each sub-agent."""
    variables = tuple(
        Argument(
            decl.name,
            f"{decl.description} ({decl.type}; default {decl.effective_default()!r})".lstrip(),
        )
        for decl in catalog.manifest.variable
    )
    arguments = tuple(Argument(name, text) for name, text in _FIXED) + variables
    described = {agent.name: agent.description for agent in catalog.manifest.agent}
    version = str(catalog.version)
    return [
        PromptEntry(
            name=prompt_name(catalog.name, agent),
            catalog=catalog.name,
            agent=agent,
            version=version,
            description=(
                f"{catalog.summary} ({catalog.name} {version})"
                if agent == MAIN_AGENT
                else f"{described.get(agent, '')} ({catalog.name} {version}, sub-agent {agent})"
            ).lstrip(),
            arguments=arguments,
        )
        for agent in catalog.agents
    ]
