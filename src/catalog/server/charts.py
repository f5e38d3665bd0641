"""The geometry of the token-history chart: where each version's point, the axis and the
labels go. The page's template draws it (``templates/_macros.html``, ``chart``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ChartLabel", "ChartPoint", "TokenChart", "token_chart"]

_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 10, 12, 28


@dataclass(frozen=True, slots=True)
class ChartPoint:
    """One version's point: where it is drawn and its figures (for its tooltip)."""

    x: float
    y: float
    version: str
    tokens: int
    reference: int | None


@dataclass(frozen=True, slots=True)
class ChartLabel:
    """A version named under the axis, anchored ``start``, ``middle`` or ``end``."""

    x: float
    text: str
    anchor: str


@dataclass(frozen=True, slots=True)
class TokenChart:
    """A line chart of token totals, oldest version left, in a ``width`` by ``height``
    box; ``reference`` is the dashed line of the figures another counter gave."""

    width: int
    height: int
    left: int
    right: int
    top: int
    axis: float
    maximum: int
    points: tuple[ChartPoint, ...]
    reference: tuple[tuple[float, float], ...]
    labels: tuple[ChartLabel, ...]

    @property
    def line(self) -> str:
        """The points of the token line, as an SVG ``points`` attribute takes them."""
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def reference_line(self) -> str:
        """The points of the dashed reference line (empty without any figure)."""
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in self.reference)


def token_chart(
    versions: Sequence[str],
    tokens: Sequence[int],
    reference: Sequence[int | None],
    *,
    width: int = 760,
    height: int = 220,
) -> TokenChart:
    """The chart of ``tokens`` (and of ``reference`` figures, None where a version has
    none) across ``versions``, oldest first; the three sequences are as long."""
    top = max([*tokens, *(r for r in reference if r is not None)], default=0) or 1
    inner_w, inner_h = width - _LEFT - _RIGHT, height - _BOTTOM - _TOP
    step = inner_w / max(len(versions) - 1, 1)

    def x(index: int) -> float:
        return _LEFT + index * step

    def y(value: int) -> float:
        return _TOP + inner_h * (1 - value / top)

    points = tuple(
        ChartPoint(x(i), y(value), version, value, figure)
        for i, (version, value, figure) in enumerate(zip(versions, tokens, reference, strict=True))
    )
    dashed = tuple((x(i), y(r)) for i, r in enumerate(reference) if r is not None)
    last = len(versions) - 1
    ticks = sorted({0, len(versions) // 2, last}) if versions else []
    anchors = {last: "end", 0: "start"}  # the end labels stay inside the box
    labels = tuple(ChartLabel(x(i), versions[i], anchors.get(i, "middle")) for i in ticks)
    return TokenChart(
        width, height, _LEFT, width - _RIGHT, _TOP, _TOP + inner_h, top, points, dashed, labels
    )
