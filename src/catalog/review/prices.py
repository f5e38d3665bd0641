"""Per-model prices and prompt-cache figures: the data ``catalog cost`` and ``review`` use.

The figures ship as package data (``prices.toml``, with the date they were
taken and the pages they were taken from) because they change with every
model release; a user's own file (``--prices FILE``, same format) replaces or
adds models and may replace the cache multipliers. Every amount is a
:class:`~decimal.Decimal`, so a cost is exact to the cent.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Annotated, Final

from pydantic import Field

from catalog.errors import RecordError, ReviewError
from catalog.io.positions import key_lines
from catalog.io.textfile import parse_toml, read_text
from catalog.schema import Items, SchemaModel, validate
from catalog.text.suggest import did_you_mean

__all__ = ["ModelPrice", "Prices", "load_prices"]

_Amount = Annotated[float, Field(ge=0, le=1_000_000, allow_inf_nan=False)]
"""A price in dollars per million tokens: up to a million, so every cost stays exact."""
_Multiplier = Annotated[float, Field(ge=0, le=1_000, allow_inf_nan=False)]
"""A cache multiplier of the input price."""
_DATED: Final = re.compile(r"-\d{8}$")  # a dated snapshot id: claude-sonnet-4-5-20250929
_HINT: Final = "see the bundled prices.toml (`catalog cost --help`) for the format"


class _SourceTable(SchemaModel):
    taken: datetime.date
    urls: Items[str] = ()


class _CacheTable(SchemaModel):
    write_5m: _Multiplier = 1.25
    write_1h: _Multiplier = 2
    read: _Multiplier = 0.1
    max_breakpoints: Annotated[int, Field(ge=0, le=1_000)] = 4


class _ModelTable(SchemaModel):
    name: str = ""
    input_per_mtok: _Amount
    min_cacheable_tokens: Annotated[int, Field(ge=0, le=1_000_000_000)]
    write_5m: _Multiplier | None = None
    write_1h: _Multiplier | None = None
    read: _Multiplier | None = None


class _PricesFile(SchemaModel):
    source: _SourceTable | None = None
    cache: _CacheTable | None = None
    model: dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")], _ModelTable] = (
        Field(default_factory=dict)
    )


def _decimal(value: float) -> Decimal:
    """The number as written in the file: a float's shortest repr, so 0.8 is 0.8 (and
    3.0 is 3)."""
    number = Decimal(str(value))
    whole = number.to_integral_value()
    return whole if number == whole else number.normalize()


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """One model's figures: input price per million tokens, the shortest cacheable
    prefix, and the multipliers of a 5-minute write, a 1-hour write and a read."""

    id: str
    name: str
    input_per_mtok: Decimal
    min_cacheable_tokens: int
    write_5m: Decimal
    write_1h: Decimal
    read: Decimal
    max_breakpoints: int

    def write(self, ttl: str) -> Decimal:
        """The write multiplier of cache lifetime ``ttl`` (``5m`` or ``1h``)."""
        return self.write_1h if ttl == "1h" else self.write_5m


@dataclass(frozen=True, slots=True)
class Prices:
    """Every model's figures, with where they were taken from and when."""

    models: dict[str, ModelPrice]
    taken: str
    urls: tuple[str, ...]
    files: tuple[str, ...]

    def model(self, model_id: str) -> ModelPrice:
        """The figures of ``model_id`` (a dated snapshot id finds its model's entry)."""
        found = self.models.get(model_id) or self.models.get(_DATED.sub("", model_id))
        if found is None:
            raise ReviewError(
                f"no prices for model {model_id!r} in {', '.join(self.files)}",
                hint=f"{did_you_mean(model_id, self.models, what='models')}; "
                "add it to a prices file given with --prices",
            )
        return found


def _read(text: str, file: str) -> _PricesFile:
    data = parse_toml(text, file, ReviewError, "fix the TOML syntax")
    try:
        return validate(_PricesFile, data)
    except RecordError as exc:
        raise exc.as_error(ReviewError, _HINT).located(file=file, lines=key_lines(text)) from None


def load_prices(override: str | Path | None = None) -> Prices:
    """The bundled figures, with the models and cache multipliers of ``override`` (a
    prices file) over them; a problem in that file names it and its line."""
    bundled = resources.files("catalog.review").joinpath("prices.toml")
    files = [(bundled.read_text(encoding="utf-8"), "the bundled prices.toml")]
    if override is not None:
        path = Path(override)
        text = read_text(path, ReviewError, "the prices file", "check the path given with --prices")
        files.append((text, str(path)))
    cache = _CacheTable()
    tables: dict[str, _ModelTable] = {}
    taken, urls = "", tuple[str, ...]()
    for text, file in files:
        parsed = _read(text, file)
        cache = parsed.cache or cache
        tables.update(parsed.model)
        if parsed.source is not None:
            taken, urls = parsed.source.taken.isoformat(), parsed.source.urls
    models = {name: _price(name, table, cache) for name, table in tables.items()}
    return Prices(models, taken, tuple(urls), tuple(file for _, file in files))


def _price(model_id: str, table: _ModelTable, cache: _CacheTable) -> ModelPrice:
    def pick(own: float | None, default: float) -> Decimal:
        return _decimal(default if own is None else own)

    return ModelPrice(
        model_id,
        table.name or model_id,
        _decimal(table.input_per_mtok),
        table.min_cacheable_tokens,
        pick(table.write_5m, cache.write_5m),
        pick(table.write_1h, cache.write_1h),
        pick(table.read, cache.read),
        cache.max_breakpoints,
    )
