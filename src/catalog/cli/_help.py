"""``catalog help [TOPIC]``: the documentation pages, as shipped with the package.

The pages are the Markdown files of the project's ``docs/`` folder. A built
wheel carries them as ``catalog/docs/`` (the build copies the folder in:
``docs/`` stays their one source); a source checkout, installed editable or
not, reads ``docs/`` itself. ``catalog help`` lists the topics, ``catalog
help TOPIC`` prints one page (``cli``, ``format``, ``catalogs/coding-agent``...).
"""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from catalog.cli._common import EXIT_OK, add_format, emit_json
from catalog.errors import CatalogError, UsageError
from catalog.io.textfile import read_text
from catalog.text.suggest import did_you_mean

__all__ = ["docs_folder", "register", "run", "topics"]


def register(parser: argparse.ArgumentParser) -> None:
    """Add the ``help`` command."""
    parser.description = (
        "Print a documentation page shipped with the package (TOPIC, e.g. cli, format, "
        "expressions, catalogs/coding-agent), or list the pages. The pages are Markdown."
    )
    parser.add_argument("topic", nargs="?", metavar="TOPIC", help="the page; none: list them")
    add_format(parser, "json")
    parser.set_defaults(func=run)


def docs_folder() -> Traversable | None:
    """Where the pages are: ``catalog/docs`` in an installed wheel, else the ``docs``
    folder of the source checkout the package runs from (None when neither is there)."""
    shipped = files("catalog").joinpath("docs")
    if shipped.is_dir():
        return shipped
    checkout = Path(__file__).resolve().parents[3] / "docs"
    return checkout if checkout.joinpath("cli.md").is_file() else None


def topics(folder: Traversable) -> dict[str, Traversable]:
    """Every page of ``folder`` by topic: its path without ``.md`` (``catalogs/opal``)."""
    found: dict[str, Traversable] = {}
    pending: list[tuple[str, Traversable]] = [("", folder)]
    while pending:
        prefix, where = pending.pop()
        for entry in where.iterdir():
            if entry.is_dir():
                pending.append((f"{prefix}{entry.name}/", entry))
            elif entry.name.endswith(".md"):
                found[f"{prefix}{entry.name[:-3]}"] = entry
    return dict(sorted(found.items()))


_SOURCE_LINK = "](../src/catalog/"
"""How a page links a file of the package (a catalog's changelog) from the docs folder."""


def _installed_links(text: str) -> str:
    """``text`` with its links to files of the package pointing where this copy of the
    package has them: installed, the pages are no longer beside the sources."""
    return text.replace(_SOURCE_LINK, f"]({Path(__file__).resolve().parents[1]}/")


def _title(page: Traversable) -> str:
    """The page's first heading, without its ``#``."""
    text = read_text(page, CatalogError, "a documentation page", "reinstall the package")
    heading = next((line for line in text.splitlines() if line.startswith("#")), "")
    return heading.lstrip("#").strip()


def run(args: argparse.Namespace) -> int:
    """List the topics, or print one page."""
    folder = docs_folder()
    if folder is None:
        raise UsageError(
            "the documentation pages are not installed with this copy of the package",
            hint="read them at the project's home page, in its docs/ folder",
        )
    pages = topics(folder)
    if args.topic is None:
        listed = {topic: _title(page) for topic, page in pages.items()}
        if args.format == "json":
            emit_json({"topics": [{"topic": t, "title": title} for t, title in listed.items()]})
        else:
            width = max(map(len, listed))
            sys.stdout.write("".join(f"{t:<{width}}  {title}\n" for t, title in listed.items()))
            sys.stdout.write("\nshow one with: catalog help TOPIC\n")
        return EXIT_OK
    page = pages.get(args.topic.removesuffix(".md"))
    if page is None:
        raise UsageError(
            f"no documentation page {args.topic!r}",
            hint=did_you_mean(args.topic, pages, what="topics"),
        )
    text = _installed_links(
        read_text(page, CatalogError, "a documentation page", "reinstall the package")
    )
    if args.format == "json":
        emit_json({"topic": args.topic.removesuffix(".md"), "text": text})
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK
