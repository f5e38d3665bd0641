"""Instruction files (``[[sources.files]]``): walks, names, rules, imports, budgets.

For each entry, in manifest order: the folders its ``walk`` (or ``dir``)
names; in each folder its ``names`` (globs allowed), the first found only
with ``first_wins``; a rule file kept only when its front matter's scope
applies to a touched file (``scoped_by``); each file followed by the files
its ``@path`` lines import (``imports``), depth first, each listed after its
importer with the chain that imported it; finally the entry's byte budget
(``max_bytes``) cuts or drops what does not fit. A file gathered once (by
any entry, or as an import) is not gathered again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from catalog.gathering._files import is_file, path_problem, strip_leading_html_comments, warn
from catalog.gathering._imports import Import, find_imports
from catalog.gathering._reader import Reader
from catalog.gathering._rules import read_rule
from catalog.gathering.safe import ReadRules, within_roots
from catalog.schema.sources import FileGroup
from catalog.text.globs import Glob, GlobBudgetError, GlobError, MatchBudget

__all__ = ["MAX_GLOBS_PER_RULE", "MAX_MATCH_STEPS", "MAX_TOUCHED", "InstructionFiles"]

MAX_TOUCHED = 1000
"""How many touched files path-scoped rules are matched against; more are ignored."""

MAX_GLOBS_PER_RULE = 64
"""How many globs of one rule file are looked at; more are ignored."""

MAX_MATCH_STEPS = 1_000_000
"""The glob-matching work of one gathering (characters read plus automaton
states visited: a second or so at worst); the scoped rules left when it is
spent are not taken, with a warning."""


@dataclass(frozen=True, slots=True)
class _Entry:
    """A gathered instruction file: its project_files record, and its place among the
    files the reader recorded (to mark it cut or dropped by the group's budget)."""

    record: dict[str, Any]
    index: int


"""A gathered file as a ``project_files`` record and its index in the reader's record."""


@dataclass(frozen=True, slots=True)
class _Chain:
    """An import chain: its ``last`` file, every file of it (outermost first, ``last``
    included), the reach of the imports of ``last`` (see :mod:`._reach`) and how many
    lines of ``last`` its gathered text leaves out at the start (HTML comments, front
    matter), so that a warning names the line of the file."""

    last: Path
    files: tuple[str, ...]
    reach: ReadRules
    skipped: int = 0


def _lines(read: str, kept: str) -> int:
    """How many lines of ``read`` come before ``kept``, one of its suffixes."""
    return read.count("\n", 0, len(read) - len(kept))


class InstructionFiles:
    """The ``project_files`` of one gathering."""

    def __init__(self, reader: Reader, touched: tuple[str, ...]) -> None:
        self.reader = reader
        if len(touched) > MAX_TOUCHED:
            warn(
                f"{len(touched)} touched files given; "
                f"rules are matched against the first {MAX_TOUCHED}"
            )
        self.touched = [
            PurePath(os.path.normpath(reader.cwd / name)) for name in touched[:MAX_TOUCHED]
        ]
        self.globs: dict[str, Glob | None] = {}
        self.capped: set[str] = set()
        self.budget = MatchBudget(MAX_MATCH_STEPS)
        self.spent = False

    def gather(self) -> list[dict[str, Any]]:
        """Every entry's files, entry by entry, in walk order."""
        found: list[dict[str, Any]] = []
        for index, group in enumerate(self.reader.sources.files):
            label = group.label or f"files[{index}]"
            entries: list[_Entry] = []
            for folder, base, reach in self.folders(group):
                self._in_folder(group, label, folder, base, reach, entries)
            if group.max_bytes is not None:
                entries = self._budget(group, label, entries)
            found.extend(entry.record for entry in entries)
        return found

    # -- where to look

    def folders(self, group: FileGroup) -> list[tuple[Path, Path, ReadRules]]:
        """The folders to look in, each with the base its rules' globs are relative to
        and the reach of the files found there (see :mod:`._reach`)."""
        reader = self.reader
        if group.dir is not None:
            return [
                (reader.path(folder), reader.top, reader.reaches.for_name(folder))
                for folder in reader.names([group.dir])
            ]
        if group.walk == "cwd":
            chain = [reader.cwd]
        elif group.walk == "root":
            chain = [reader.top]
        elif group.walk == "touched":
            chain = self._below_cwd()
        else:
            stop = reader.top if group.walk == "down" else reader.root
            chain = [reader.cwd]
            for parent in reader.cwd.parents:
                if stop is not None and not parent.is_relative_to(stop):
                    break
                chain.append(parent)
            if group.outermost_first:
                chain.reverse()
        return [(folder, folder, reader.reaches.for_folder(folder)) for folder in chain]

    def _below_cwd(self) -> list[Path]:
        """The folders between the working directory (not included) and each touched file,
        outermost first, each once, in the order of the touched files."""
        cwd = PurePath(self.reader.cwd)
        chain: list[Path] = []
        seen: set[PurePath] = set()
        for touched in self.touched:
            if not touched.parent.is_relative_to(cwd):
                continue
            folder = cwd
            for part in touched.parent.relative_to(cwd).parts:
                folder = folder / part
                if folder not in seen:
                    seen.add(folder)
                    chain.append(Path(folder))
        return chain

    def _in_folder(
        self,
        group: FileGroup,
        label: str,
        folder: Path,
        base: Path,
        reach: ReadRules,
        entries: list[_Entry],
    ) -> None:
        reader = self.reader
        for name in reader.names(group.names):
            left = max(group.max_files - len(entries), 0)
            found = reader.finder.find(folder, name, left + 1)
            if len(found) > left:
                if label not in self.capped:
                    self.capped.add(label)
                    warn(
                        f"{label}: stopped at max_files ({group.max_files}); "
                        "later files are not gathered"
                    )
                found = found[:left]
            present = False
            for path in found:
                how = f"{name} in {folder}"
                present |= self._take(group, label, path, base, how, reach, entries)
            if present and group.first_wins:
                return

    def _take(
        self,
        group: FileGroup,
        label: str,
        path: Path,
        base: Path,
        how: str,
        reach: ReadRules,
        entries: list[_Entry],
    ) -> bool:
        """Gather one found file (and its imports) under ``reach``; whether it counts as
        present."""
        reader = self.reader
        real = reader.real(path, reach)
        if real is None:  # the link rule refused it (warned)
            reader.record(
                path, label, "project_files", "skipped", f"{how}: refused by the link rule"
            )
            return False
        if real in reader.seen:
            reader.record(path, label, "project_files", "skipped", "gathered already")
            return True
        read = reader.read(path, reach, real=real)
        if read is None:
            return False
        text = strip_leading_html_comments(read) if group.strip_html_comments else read
        if group.skip_empty and not text.strip():
            reader.record(path, label, "project_files", "skipped", f"{how}: empty")
            return False
        if group.scoped_by is not None:
            scope = read_rule(text, group.scoped_by)
            applies, why = self._applies(scope.always, scope.globs, base)
            if not applies:
                reader.record(path, label, "project_files", "skipped", why)
                return True
            text, how = scope.body, f"{how}; {why}"
        reader.seen.add(real)
        at = _Chain(path, (str(path),), reader.reaches.narrowed(reach, real), _lines(read, text))
        if group.imports == "inline":
            text = self._inlined(group, label, at, text)
        self._add(group, label, path, text, how, (), entries)
        if group.imports is True or group.imports == "after":
            self._imports(group, label, at, text, entries)
        return True

    def _add(
        self,
        group: FileGroup,
        label: str,
        path: Path,
        text: str,
        how: str,
        chain: tuple[str, ...],
        entries: list[_Entry],
    ) -> None:
        index = self.reader.record(
            path, label, "project_files", "included", how, text=text, imported_by=chain
        )
        record: dict[str, Any] = {
            "path": str(path),
            "content": text,
            "scope": group.scope,
            "source": label,
        }
        if chain:
            record["imported_by"] = chain
        entries.append(_Entry(record, index))

    # -- path-scoped rules

    def _applies(self, always: bool, globs: tuple[str, ...], base: Path) -> tuple[bool, str]:
        """Whether a rule applies, and why in words."""
        if always:
            return True, "applies always"
        if not globs:
            return False, "neither alwaysApply nor globs: applies only when asked for"
        if self.spent:
            return False, "left out: the gathering's glob-matching budget is spent"
        touched = [
            "/".join(path.relative_to(base).parts)
            for path in self.touched
            if path.is_relative_to(base) and path != PurePath(base)
        ]
        try:
            for pattern in globs[:MAX_GLOBS_PER_RULE]:
                glob = self._glob(pattern)
                if glob is None:
                    continue
                for name in touched:
                    if glob.match(name, self.budget):
                        return True, f"{pattern!r} matches the touched file {name}"
        except GlobBudgetError as exc:
            if not self.spent:
                self.spent = True
                warn(f"{exc}: the scoped rules still to check are left out")
            return False, "left out: the gathering's glob-matching budget is spent"
        if not touched:
            return False, f"no touched file under {base} (globs: {', '.join(globs)})"
        return False, f"no touched file matches {', '.join(globs)}"

    def _glob(self, pattern: str) -> Glob | None:
        if pattern not in self.globs:
            try:
                self.globs[pattern] = Glob(pattern)
            except GlobError as exc:
                warn(f"rule glob {pattern[:60]!r} ignored: {exc}")
                self.globs[pattern] = None
        return self.globs[pattern]

    # -- @path imports

    def _imports(
        self, group: FileGroup, label: str, at: _Chain, text: str, entries: list[_Entry]
    ) -> None:
        """Gather the files ``text`` (the last file of ``at``) imports, depth first, each
        after its importer."""
        for found in find_imports(text):
            followed = self._follow(group, label, at, found, inline=False)
            if followed is not None:
                deeper, content, where = followed
                self._add(group, label, deeper.last, content, where, at.files, entries)
                self._imports(group, label, deeper, content, entries)

    def _inlined(self, group: FileGroup, label: str, at: _Chain, text: str) -> str:
        """``text`` (the last file of ``at``) with each import replaced by the imported
        file's text (imports inlined)."""
        pieces: list[str] = []
        done = 0
        for found in find_imports(text):
            followed = self._follow(group, label, at, found, inline=True)
            if followed is None:
                continue
            deeper, content, _ = followed
            pieces += [text[done : found.start], self._inlined(group, label, deeper, content)]
            done = found.end
        return "".join(pieces) + text[done:]

    def _follow(
        self, group: FileGroup, label: str, at: _Chain, found: Import, *, inline: bool
    ) -> tuple[_Chain, str, str] | None:
        """The chain one import of ``at.last`` extends ``at`` to, the imported file's text
        and the reason, when the chain's reach lets it be imported; None (recorded,
        warned where it matters) when it is missing, outside the reach, a cycle, too
        deep or gathered already. An inlined file is recorded here; one listed after
        its importer is recorded when it is added."""
        reader = self.reader
        importer, chain, reach = at.last, at.files, at.reach
        line, written = found.line + at.skipped, found.path
        bad = path_problem(written)
        if bad is not None:
            warn(f"{importer}:{line}: import @{written} refused, {bad}")
            return None
        target = Path(os.path.normpath(reader.path(written, importer.parent)))
        where = f"@{written} (line {line} of {importer}){', inlined' if inline else ''}"
        real = reader.resolved(target) if is_file(target) else None
        problem = ""
        if real is None:
            problem = "no such file, left as text"
        elif not within_roots(real, reach):
            problem = f"refused, outside {reach.place}"
            project = reach is reader.reaches.project
            why = " (a file of the project may import only from the project)" if project else ""
            warn(
                f"{importer}:{line}: import @{written} refused, it leads to {real}, "
                f"outside {reach.place}{why}"
            )
        elif any(Path(step).resolve() == real for step in chain):
            problem = "an import cycle"
            cycle = " -> ".join((*chain, str(target)))
            warn(f"{importer}:{line}: import cycle {cycle}; not imported again")
        elif len(chain) > group.max_import_depth:
            problem = f"more than {group.max_import_depth} hops"
            warn(
                f"{importer}:{line}: import @{written} not followed, more than "
                f"{group.max_import_depth} hops from {chain[0]}"
            )
        elif real in reader.seen:
            problem = "gathered already"
        if problem or real is None:
            reader.record(
                target, label, "project_files", "skipped", f"{where}: {problem}", imported_by=chain
            )
            return None
        read = reader.read(target, reach, real=real)
        if read is None:
            return None
        content = strip_leading_html_comments(read) if group.strip_html_comments else read
        reader.seen.add(real)
        if inline:
            reader.record(
                target, label, "project_files", "included", where, text=content, imported_by=chain
            )
        narrowed = reader.reaches.narrowed(reach, real)
        deeper = _Chain(target, (*chain, str(target)), narrowed, _lines(read, content))
        return deeper, content, where

    # -- byte budget

    def _budget(self, group: FileGroup, label: str, entries: list[_Entry]) -> list[_Entry]:
        """The entries that fit in ``group.max_bytes``, in gathered order, the crossing one cut."""
        budget = group.max_bytes
        assert budget is not None
        left = budget
        kept: list[_Entry] = []
        for entry in entries:
            record, index = entry.record, entry.index
            data = record["content"].encode("utf-8")
            if len(data) <= left:
                left -= len(data)
                kept.append(entry)
                continue
            path = record["path"]
            reason = self.reader.records[index].reason
            if left > 0 and group.over_budget == "cut":
                text = data[:left].decode("utf-8", errors="ignore")
                record["content"] = (
                    f"{text}\n\n[... cut: the rest of {Path(path).name} is over the "
                    f"{budget}-byte budget ...]"
                )
                kept.append(entry)
                warn(
                    f"{path}: cut to {left} of {len(data)} bytes "
                    f"by the {budget}-byte budget of {label}"
                )
                self.reader.update(
                    index,
                    status="cut",
                    bytes=len(text.encode("utf-8")),
                    reason=f"{reason}; cut to fit the {budget}-byte budget",
                )
            else:
                warn(f"{path}: dropped, over the {budget}-byte budget of {label}")
                self.reader.update(
                    index,
                    status="dropped",
                    bytes=0,
                    reason=f"{reason}; over the {budget}-byte budget",
                )
            left = 0
        return kept
