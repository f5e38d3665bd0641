"""Claude Code's prompt parts in the format of Piebald-AI/claude-code-system-prompts.

That repository (MIT) publishes, for every Claude Code release, one Markdown
file per prompt part under ``system-prompts/``, one git commit per release
(subject ``v2.1.37 (+0 tokens)``):

* each file starts with an HTML comment holding YAML-like fields (read as
  their authors meant them, every value text: :mod:`.header`): ``name``
  (``Agent Prompt: Explore``), ``description``, ``ccVersion`` (the release
  where the text last changed), optional ``variables`` and ``agentMetadata``;
  the body follows the comment, with the runtime's JavaScript placeholders
  (``${GLOB_TOOL_NAME}``, whole ``${...}`` expressions) kept as written;
* the file-name prefix is the category (:data:`CATEGORIES`);
* ``README.md`` lists each part as
  ``- [Name](./system-prompts/FILE.md) (**N** tks) - description.`` (N counted
  by Anthropic's token-counting API) and names the release
  (``as of **[Claude Code v2.1.38](...)``);
* ``CHANGELOG.md`` has a section per release (:func:`parse_changelog`).

Each release becomes one catalog version. Parts are raw text
(``template = false``): bodies are never rendered, so ``${...}`` and even
``${{ ... }}`` reach the prompt as published. The header fields (but
``description``, which is the part's own ``description``), the body's
``${...}`` placeholders (:func:`placeholders`) and the category are kept in
the part's ``meta``; the README's token count is the part's
``reference_tokens`` (``[catalog] reference_counter`` says who counted it);
``tokens`` is our own count with the catalog's tokenizer. Bodies are stored
once by content (:mod:`catalog.importers.writer`). An imported
catalog has no conditions: assemble it through an overlay
(``[catalog] base``, parts with ``from``).
"""

from __future__ import annotations

from catalog.importers.piebald.parse import (
    CATEGORIES,
    PROMPTS_DIR,
    UPSTREAM,
    Category,
    ChangelogItem,
    ChangelogRelease,
    Readme,
    ReadmeEntry,
    UpstreamPart,
    category_of,
    parse_changelog,
    parse_prompt_file,
    parse_readme,
    placeholders,
    release_version,
)
from catalog.importers.piebald.read import (
    Release,
    read_checkout,
    read_history,
)
from catalog.importers.piebald.write import (
    ImportedVersion,
    ImportReport,
    import_releases,
)

__all__ = [
    "CATEGORIES",
    "PROMPTS_DIR",
    "UPSTREAM",
    "Category",
    "ChangelogItem",
    "ChangelogRelease",
    "ImportReport",
    "ImportedVersion",
    "Readme",
    "ReadmeEntry",
    "Release",
    "UpstreamPart",
    "category_of",
    "import_releases",
    "parse_changelog",
    "parse_prompt_file",
    "parse_readme",
    "placeholders",
    "read_checkout",
    "read_history",
    "release_version",
]
