"""The geometry of the token-history chart: where each version's point, the axis and the
labels go. The page's template draws it (``templates/_macros.html``, ``chart``).

Figures counted by different counters are never joined by one line: each run of
versions counted alike is a line of its own, named in the legend (a catalog whose
newer versions are estimated by length / 4 does not seem to shrink or grow against
its older cl100k figures)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ChartLabel", "ChartLine", "ChartPoint", "TokenChart", "token_chart"]

_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 10, 12, 28
_LABELS = 5  # versions named under the axis at most: each readable on a phone too


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """One version's point: where it is drawn and its figures (for its tooltip)."""

    x: float
    y: float
    version: str
    tokens: int
    counter: str
    reference: int | None


@dataclass(frozen=True, slots=True)
class ChartLine:
    """A run of versions, ``first`` to ``last``, whose figures one counter gave: its
    points, as an SVG ``points`` attribute takes them, and the counter's index among
    the chart's (its line's style)."""

    counter: str
    points: str
    style: int
    first: str
    last: str


@dataclass(frozen=True, slots=True)
class ChartLabel:
    """A version named under the axis, anchored ``start``, ``middle`` or ``end``."""

    x: float
    text: str
    anchor: str


@dataclass(frozen=True, slots=True)
class TokenChart:
    """A line chart of token totals, oldest version left, in a ``width`` by ``height``
    box: a line per run of versions counted alike (``counters`` names each counter
    once); ``reference`` is the dashed line of the figures ``reference_counter`` gave."""

    width: int
    height: int
    left: int
    right: int
    top: int
    axis: float
    maximum: int
    points: tuple[ChartPoint, ...]
    lines: tuple[ChartLine, ...]
    counters: tuple[str, ...]
    reference: tuple[tuple[float, float], ...]
    reference_counter: str | None
    labels: tuple[ChartLabel, ...]

    @property
    def reference_line(self) -> str:
        """The points of the dashed reference line (empty without any figure)."""
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in self.reference)

    @property
    def legend(self) -> list[tuple[int, str, str]]:
        """Each counter once: its line's style, its name, and the versions it counted
        (``1.0.0 to 1.1.0, 1.3.0``)."""
        return [
            (
                style,
                counter,
                ", ".join(
                    line.first if line.first == line.last else f"{line.first} to {line.last}"
                    for line in self.lines
                    if line.counter == counter
                ),
            )
            for style, counter in enumerate(self.counters)
        ]


def token_chart(
    versions: Sequence[str],
    tokens: Sequence[int],
    reference: Sequence[int | None],
    counters: Sequence[str],
    *,
    reference_counter: str | None = None,
    width: int = 760,
    height: int = 220,
) -> TokenChart:
    """The chart of ``tokens``, each version's counted by its ``counters`` entry (and of
    ``reference`` figures, None where a version has none) across ``versions``, oldest
    first; the four sequences are as long."""
    top = max([*tokens, *(r for r in reference if r is not None)], default=0) or 1
    inner_w, inner_h = width - _LEFT - _RIGHT, height - _BOTTOM - _TOP
    step = inner_w / max(len(versions) - 1, 1)

    def x(index: int) -> float:
        return _LEFT + index * step

    def y(value: int) -> float:
        return _TOP + inner_h * (1 - value / top)

    points = tuple(
        ChartPoint(x(i), y(value), version, value, counter, figure)
        for i, (version, value, counter, figure) in enumerate(
            zip(versions, tokens, counters, reference, strict=True)
        )
    )
    named = tuple(dict.fromkeys(counters))
    lines: list[ChartLine] = []
    start = 0
    for end in range(1, len(points) + 1):
        if end == len(points) or points[end].counter != points[start].counter:
            run = points[start:end]
            shown = " ".join(f"{p.x:.1f},{p.y:.1f}" for p in run)
            style = named.index(run[0].counter)
            lines.append(ChartLine(run[0].counter, shown, style, run[0].version, run[-1].version))
            start = end
    dashed = tuple((x(i), y(r)) for i, r in enumerate(reference) if r is not None)
    last = len(versions) - 1
    ticks = sorted({round(k * last / (_LABELS - 1)) for k in range(_LABELS)}) if versions else []
    anchors = {last: "end", 0: "start"}  # the end labels stay inside the box
    labels = tuple(ChartLabel(x(i), versions[i], anchors.get(i, "middle")) for i in ticks)
    return TokenChart(
        width,
        height,
        _LEFT,
        width - _RIGHT,
        _TOP,
        _TOP + inner_h,
        top,
        points,
        tuple(lines),
        named,
        dashed,
        reference_counter if dashed else None,
        labels,
    )
