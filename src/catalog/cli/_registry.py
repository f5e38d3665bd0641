"""The commands of ``catalog``: one entry each, their modules imported only when needed.

Each entry names a command, its one-line help and the optional dependency group
(extra) it needs, if any; its arguments and its ``run`` live in the module
``catalog.cli._<name>`` (dashes as underscores), which exposes ``register(parser)``.
``catalog --help`` reads the entries alone, so listing the commands imports none
of them; a command whose extra is not installed says which one to install
(exit status 2) instead of failing on the import.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
from collections.abc import Iterator
from dataclasses import dataclass

from catalog.errors import UsageError

__all__ = ["COMMANDS", "DISTRIBUTION", "Command", "MissingExtraError", "extra_needed", "register"]

DISTRIBUTION = "agent-prompt-catalog"
"""The name the package is installed by, for the install hints."""


@dataclass(frozen=True, slots=True)
class Command:
    """One command of the registry: its one-line help, and the extra its module needs."""

    help: str
    extra: str | None = None


COMMANDS: dict[str, Command] = {
    "list": Command("list catalogs and versions"),
    "show": Command("describe one catalog version"),
    "assemble": Command("assemble the prompt for an agent under a context"),
    "gather": Command(
        "show the context a catalog gathers from a folder, and where each file came from"
    ),
    "tokens": Command("per-part token table of an assembled prompt"),
    "variables": Command("list a catalog's variables and template bindings"),
    "diff": Command("compare two catalog versions (parts, conditions, order, tokens)"),
    "review": Command(
        "review the prompt changes between two git revisions: diffs, tokens, cache cost"
    ),
    "cost": Command("what a prompt costs per conversation on a model, with and without caching"),
    "log": Command("every version where a part was added, changed, renamed or removed"),
    "blame": Command("each line of a part with the version that introduced it"),
    "grep": Command("which parts say a text, from which version to which"),
    "variants": Command("which part of each group each model gets, and where a variant drifted"),
    "lock": Command("write a lock file: exact version, part hashes, prompt fingerprints"),
    "verify": Command("check the installed catalog against a lock file"),
    "validate": Command("check catalogs: manifests, names, hashes, token estimates, cache order"),
    "schema": Command("print the JSON Schema of a manifest or a context"),
    "stamp": Command("rewrite the sha256 and tokens of every part in version folders"),
    "init": Command("write a new catalog that validates and assembles at once"),
    "import": Command("import prompt parts published elsewhere as a catalog"),
    "port": Command(
        "port an overlay to a new release of its base, reporting what needs a decision"
    ),
    "serve": Command("run the web UI and the HTTP API (needs the [serve] extra)", extra="serve"),
    "mcp": Command("serve the prompts to MCP clients (needs the [mcp] extra)", extra="mcp"),
    "release": Command("name releases in a prompt store, with a canary, a rollback and a history"),
    "completion": Command("print a shell completion script (bash, zsh or fish)"),
    "help": Command("print a documentation page shipped with the package, or list them"),
}
"""Every command, in the order ``--help`` lists them. Adding a command is one entry here
and its module ``catalog.cli._<name>``."""


class MissingExtraError(UsageError):
    """A command's module needs a library of an extra that is not installed."""


def _module_of(name: str) -> str:
    return f"catalog.cli._{name.replace('-', '_')}"


@contextlib.contextmanager
def extra_needed(name: str) -> Iterator[None]:
    """Turn a missing library of the extra command ``name`` needs into a
    :class:`MissingExtraError` saying what to install; any other failure passes."""
    try:
        yield
    except ModuleNotFoundError as exc:
        extra = COMMANDS[name].extra
        missing = exc.name or ""
        if extra is None or not missing or missing.partition(".")[0] == "catalog":
            raise
        raise MissingExtraError(
            f"catalog {name} needs the {extra} extra ({missing} is not installed)",
            hint=f"pip install '{DISTRIBUTION}[{extra}]' "
            f"(from a checkout: pip install '.[{extra}]')",
        ) from None


def register(name: str, parser: argparse.ArgumentParser) -> None:
    """Import the module of command ``name`` and let it add its arguments to ``parser``."""
    with extra_needed(name):
        module = importlib.import_module(_module_of(name))
    module.register(parser)
