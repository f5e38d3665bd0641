"""Importers: turn prompt collections published elsewhere into ordinary catalogs.

An imported catalog is a set of version folders like any other, so ``load``,
``validate``, ``diff`` and ``lock`` treat it like a hand-written one. Bodies
are stored once by content (:mod:`catalog.importers.writer`), however many
versions use them. Formats:

* :mod:`catalog.importers.piebald`: Claude Code's prompt parts as published
  by Piebald-AI/claude-code-system-prompts, from a checkout or from its git
  history (one catalog version per release).
"""

from __future__ import annotations

__all__: list[str] = []
