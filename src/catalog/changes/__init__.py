"""Diffs between two catalog versions, and between the prompts they assemble.

:func:`diff` compares two compiled catalogs part by part (matched by id) and
returns an immutable :class:`CatalogDiff`: parts added, removed, renamed
(a removed and an added part with the same or nearly the same body) and
changed (text with a unified diff, order, condition, agents, stability, slot
and the other manifest keys), each change classified (:data:`ChangeClass`:
prose, whitespace only, placeholders only, assembly keys, metadata only),
parts moved (their place among the parts both versions share changed; see
:func:`~catalog.changes.classify.moved_parts` for which of two swapped parts),
token deltas per part and in total, and the changes to the catalog's settings, variables
and sub-agents. Given a context, it also assembles both versions and diffs
the two prompts.

Token figures count each part body as written (templates unrendered) with the
newer catalog's tokenizer unless ``counter=`` says otherwise; the prompt diff
counts the assembled texts. The version number itself is reported but is not
a difference: :attr:`CatalogDiff.identical` means same content.

The renderers (:func:`render_text`, :func:`render_markdown`,
:func:`render_json`, :func:`render_html`) only read the diff object.
"""

from __future__ import annotations

from catalog.changes.compute import (
    JSON_SCHEMA_VERSION,
    CatalogDiff,
    ChangeClass,
    FieldChange,
    ItemDiff,
    PartDiff,
    PromptDiff,
    Status,
    diff,
    human_name,
)
from catalog.changes.render import (
    render_html,
    render_json,
    render_markdown,
    render_text,
)

__all__ = [
    "JSON_SCHEMA_VERSION",
    "CatalogDiff",
    "ChangeClass",
    "FieldChange",
    "ItemDiff",
    "PartDiff",
    "PromptDiff",
    "Status",
    "diff",
    "human_name",
    "render_html",
    "render_json",
    "render_markdown",
    "render_text",
]
