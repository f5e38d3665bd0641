"""What ``catalog import`` shares for any source: the options every source takes, and
what it prints (a line per version, then the summary)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from catalog.cli._common import emit_text
from catalog.importers.report import ImportedVersion, ImportReport

__all__ = ["add_shared_options", "print_version", "summary_json", "summary_text"]


def add_shared_options(parser: argparse.ArgumentParser) -> None:
    """``--force`` and ``--format``, as every source's parser takes them."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace versions that exist with other content, and a NAME/LICENSE file "
        "with another text",
    )
    # Unset unless given here, so that a --format given before the source format holds.
    parser.add_argument(
        "--format", choices=("text", "json"), default=argparse.SUPPRESS, help="output format"
    )


def print_version(item: ImportedVersion) -> None:
    """The line for one version, as it is written."""
    emit_text(
        f"{item.version:<12} {item.parts:>5} parts {item.new_bodies:>5} new bodies  {item.status}\n"
    )


def summary_json(name: str, report: ImportReport) -> dict[str, Any]:
    """The summary as ``--format json`` gives it."""
    return {
        "name": name,
        "folder": str(report.folder),
        "versions": [asdict(item) for item in report.versions],
        "bodies": {
            "distinct": report.distinct_bodies,
            "stored_bytes": report.shared_bytes,
            "per_version_bytes": report.unshared_bytes,
        },
        "size": asdict(report.size),
    }


def summary_text(name: str, report: ImportReport) -> str:
    """The summary's lines: versions imported, bodies shared, the store's size."""
    size = report.size
    return (
        f"{name}: {len(report.versions)} version(s) imported into {report.folder}\n"
        f"bodies of these versions: {report.distinct_bodies} distinct taking "
        f"{_bytes(report.shared_bytes)} stored once each, against "
        f"{_bytes(report.unshared_bytes)} with a copy per version\n"
        f"store: {size.versions} version(s), {_bytes(size.total_bytes)} on disk "
        f"({_bytes(size.manifest_bytes)} of manifests, {size.parts_files} parts files in _parts "
        f"taking {_bytes(size.parts_bytes)}, {size.blobs} bodies in _blobs taking "
        f"{_bytes(size.blob_bytes)})\n"
    )


def _bytes(count: int) -> str:
    if count < 1000:
        return f"{count} B"
    if count < 1_000_000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1_000_000:.1f} MB"
