#!/usr/bin/env python3
"""Re-derive the ``claude`` token counter's coefficients from an imported history.

Reads every version of an imported Claude Code catalog (``catalog import
piebald``), takes each distinct part text with its published count
(``reference_tokens``) and its header's ``ccVersion``, and splits them in two
eras: texts last changed before ``--era`` (counted upstream with an older
model, about 1.18 times cl100k) and the rest (the current model, about 1.58 times).
On the current era it prints, for a plain factor, for the shipped
coefficients (``catalog.tokens.claude.COEFFICIENTS``) and for freshly fitted
ones, the share of texts within ±15 % of the published count, and the fitted
coefficients to paste into ``catalog/tokens/claude.py``. A hold-out figure fits
on all versions but the newest and checks the newest's new texts. Nothing is
asserted: these are figures.

Run: ``python scripts/calibrate_claude.py --path CATALOGS [--name claude-code] [--era 2.1.180]``.
"""

from __future__ import annotations

import argparse
import statistics
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from packaging.version import InvalidVersion, Version

from catalog.tokens import get_counter
from catalog.tokens.claude import COEFFICIENTS, FEATURES, estimate, features

Sample = tuple[str, int, int]


def fit(samples: Sequence[tuple[str, int, int]]) -> tuple[float, ...]:
    """Coefficients for ``(text, cl100k count, published count)`` samples.

    Least squares on the relative error (each sample weighted by the inverse
    square of its published count), so short and long texts count alike.
    """
    size = len(FEATURES)
    normal = [[0.0] * size for _ in range(size)]
    right = [0.0] * size
    for text, cl100k, target in samples:
        row = features(text, cl100k)
        weight = 1.0 / max(target, 1) ** 2
        for i in range(size):
            right[i] += weight * row[i] * target
            for j in range(size):
                normal[i][j] += weight * row[i] * row[j]
    for i in range(size):
        normal[i][i] += 1e-9  # keeps the system solvable when a feature is always 0
    return tuple(_solve(normal, right))


def accuracy(
    samples: Sequence[tuple[str, int, int]],
    count: Callable[[str, int], float],
    tolerance: float = 0.15,
) -> float:
    """The share of samples whose ``count(text, cl100k)`` is within ``tolerance`` of the
    published count."""
    if not samples:
        return 0.0
    close = sum(abs(count(text, cl) - target) <= tolerance * target for text, cl, target in samples)
    return close / len(samples)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a 10 by 10 system)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        if lead == 0:
            continue
        for r in range(size):
            if r != column and rows[r][column]:
                factor = rows[r][column] / lead
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
    return [rows[i][size] / rows[i][i] if rows[i][i] else 0.0 for i in range(size)]


def _version(text: object) -> Version | None:
    try:
        return Version(str(text))
    except InvalidVersion:
        return None


def read_history(folder: Path) -> dict[str, list[tuple[str, int, Version | None]]]:
    """Per version: (body, published count, ccVersion) of every part with a count."""
    found: dict[str, list[tuple[str, int, Version | None]]] = {}
    for manifest in sorted(folder.glob("*/catalog.toml")):
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        rows = []
        for part in data.get("part", ()):
            count = part.get("reference_tokens")
            if count is None or "file" not in part:
                continue
            body = (manifest.parent / part["file"]).read_text(encoding="utf-8")
            rows.append((body, int(count), _version(part.get("meta", {}).get("ccVersion"))))
        found[manifest.parent.name] = rows
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", required=True, type=Path, help="the folder of catalogs")
    parser.add_argument("--name", default="claude-code", help="the imported catalog's name")
    parser.add_argument("--era", default="2.1.180", help="first ccVersion of the current model")
    args = parser.parse_args()
    era = Version(args.era)
    cl100k = get_counter("cl100k_base")
    history = read_history(args.path / args.name)
    if not history:
        raise SystemExit(f"no imported versions in {args.path / args.name}")
    current: dict[tuple[str, int], Sample] = {}
    older: dict[tuple[str, int], Sample] = {}
    for rows in history.values():
        for body, count, cc in rows:
            target = current if cc is not None and cc >= era else older
            target.setdefault((body, count), (body, cl100k(body), count))
    for label, era_samples in (("older model", older), ("current model", current)):
        ratios = [count / max(cl, 1) for _, cl, count in era_samples.values()]
        if ratios:
            median = statistics.median(ratios)
            print(f"{label}: {len(ratios)} texts, published/cl100k median {median:.3f}")
    samples = list(current.values())
    if len(samples) < len(FEATURES):
        raise SystemExit("too few texts counted with the current model to fit")
    factor = statistics.median(count / max(cl, 1) for _, cl, count in samples)
    fitted = fit(samples)
    print(
        f"within ±15 %, plain factor {factor:.3f}: {accuracy(samples, lambda t, c: factor * c):.1%}"
    )
    shipped = accuracy(samples, lambda t, c: estimate(t, c))
    print(f"within ±15 %, shipped coefficients: {shipped:.1%}")
    print(
        f"within ±15 %, fitted here: {accuracy(samples, lambda t, c: estimate(t, c, fitted)):.1%}"
    )
    newest = max(history, key=Version)
    train = {
        key: sample
        for version, rows in history.items()
        if version != newest
        for body, count, cc in rows
        if cc is not None and cc >= era
        for key, sample in [((body, count), current[(body, count)])]
    }
    held = [s for key, s in current.items() if key not in train]
    if len(train) >= len(FEATURES) and held:
        held_out = fit(list(train.values()))
        score = accuracy(held, lambda t, c: estimate(t, c, held_out))
        print(f"hold-out: fitted without {newest}, on its {len(held)} new texts: {score:.1%}")
    print("COEFFICIENTS = (")
    for name, value in zip(FEATURES, fitted, strict=True):
        print(f"    {value:.5f},  # {name}")
    print(")")
    if tuple(round(v, 5) for v in fitted) == COEFFICIENTS:
        print("(the shipped coefficients are these)")


if __name__ == "__main__":
    main()
