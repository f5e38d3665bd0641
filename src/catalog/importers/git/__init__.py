"""Any repository's prompts, release by release: ``catalog import git``.

Coding agents keep their prompts as plain files in their own repositories
and tag every release. This importer reads such a repository at every tag
matching a glob, in version order (:mod:`.tags`), takes the files matching
``--include`` globs as parts (:mod:`.read`) and the texts inside data files a
rules file names (:mod:`.data`), gives them the conditions, kinds, order and
groups the rules file says (:mod:`.rules`), and writes one catalog version
per release, bodies shared across releases (:mod:`.write`). The repository is
read with dulwich, as for every importer: nothing it configures runs.
"""

from __future__ import annotations

from catalog.importers.git.read import GitRelease, ReadStats, ReleaseReader, SourceFile, part_id
from catalog.importers.git.rules import Rules, load_rules
from catalog.importers.git.tags import ReleaseTag, TagChoice, choose_tags, tag_version
from catalog.importers.git.write import DEFAULT_ORDER, GitImport, import_git

__all__ = [
    "DEFAULT_ORDER",
    "GitImport",
    "GitRelease",
    "ReadStats",
    "ReleaseReader",
    "ReleaseTag",
    "Rules",
    "SourceFile",
    "TagChoice",
    "choose_tags",
    "import_git",
    "load_rules",
    "part_id",
    "tag_version",
]
