"""``strftime`` for expressions: a fixed, locale-free subset of C's ``strftime``.

Python's own :meth:`datetime.strftime` follows the process locale (``%A``
may print ``samedi``) and the platform's C library (``%-d`` exists on Linux,
not on Windows), so a prompt would depend on where it was assembled. This
module formats with English names and a fixed table of directives, the same
bytes on every machine:

======  ==========================================  ===========
``%a``  weekday, abbreviated                        ``Sat``
``%A``  weekday                                     ``Saturday``
``%b``  month, abbreviated                          ``Mar``
``%B``  month                                       ``March``
``%d``  day of the month, 2 digits                  ``07``
``%e``  day of the month, space-padded              `` 7``
``%j``  day of the year, 3 digits                   ``066``
``%m``  month, 2 digits                             ``03``
``%y``  year, 2 digits                              ``26``
``%Y``  year, 4 digits                              ``2026``
``%H``  hour (00-23)                                ``08``
``%I``  hour (01-12)                                ``08``
``%M``  minute                                      ``55``
``%S``  second                                      ``05``
``%p``  ``AM`` or ``PM``                            ``AM``
``%u``  weekday as a number, Monday = 1             ``6``
``%z``  UTC offset                                  ``-0600``
``%:z`` UTC offset with a colon                     ``-06:00``
``%Z``  zone name (see below)                       ``CST``
``%F``  ``%Y-%m-%d``                                ``2026-03-07``
``%T``  ``%H:%M:%S``                                ``08:55:05``
``%%``  a percent sign                              ``%``
======  ==========================================  ===========

A ``-`` after the ``%`` drops the padding of a number: ``%-d`` is ``7``,
``%-I`` is ``8``. Any other directive is refused: when the format is written
in the expression, at compile time.

``%Z`` is the ``zone`` argument when one is given (an ISO 8601 text keeps only
the offset, not the name the clock had, such as ``CST``); otherwise ``UTC``
for a zero offset, ``UTC+01:00`` for others, and nothing for a time without
an offset. ``%z`` and ``%:z`` are empty for such a time too.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Final

from catalog.errors import ExpressionError

__all__ = ["check_format", "format_time", "parse_time"]

_WEEKDAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS: Final = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# Numeric directives take the "-" flag (no padding); text directives do not.
_NUMBERS: Final = frozenset("dejmyYHIMSu")
_TEXTS: Final = frozenset("aAbBpzZFT%")
_KNOWN: Final = "%a %A %b %B %d %e %j %m %y %Y %H %I %M %S %p %u %z %:z %Z %F %T %%"
_LONGEST_TIME: Final = 64
"""Longest ISO 8601 text accepted: a date, a time with fractions and an offset fit easily."""


def _directives(fmt: str) -> list[tuple[str, str, bool]]:
    """``fmt`` cut into ``(literal text, directive, unpadded)`` triples, in one pass.

    The last triple's directive may be ``""`` (text after the last directive).
    Raises :class:`ExpressionError` for an unknown or unfinished directive.
    """
    pieces: list[tuple[str, str, bool]] = []
    start = 0
    index = 0
    length = len(fmt)
    while index < length:
        if fmt[index] != "%":
            index += 1
            continue
        literal = fmt[start:index]
        index += 1
        unpadded = index < length and fmt[index] == "-"
        if unpadded:
            index += 1
        if fmt.startswith(":z", index):
            directive = ":z"
        elif index < length:
            directive = fmt[index]
        else:
            raise ExpressionError(
                f"strftime format {_shown(fmt)} ends with an unfinished directive",
                hint=f"known directives: {_KNOWN} (%% is a percent sign)",
            )
        if directive not in _NUMBERS and directive not in _TEXTS and directive != ":z":
            raise ExpressionError(
                f"strftime format {_shown(fmt)}: unknown directive "
                f"'%{'-' if unpadded else ''}{directive}'",
                hint=f"known directives: {_KNOWN}; a '-' (as in %-d) drops a number's padding",
            )
        if unpadded and directive not in _NUMBERS:
            raise ExpressionError(
                f"strftime format {_shown(fmt)}: '%-{directive}' is not a number to unpad",
                hint="'-' drops the padding of a number only: %d %e %j %m %y %Y %H %I %M %S %u",
            )
        index += len(directive)
        pieces.append((literal, directive, unpadded))
        start = index
    pieces.append((fmt[start:], "", False))
    return pieces


def _shown(fmt: str) -> str:
    return repr(fmt) if len(fmt) <= 60 else repr(fmt[:57] + "...")


def check_format(fmt: str) -> None:
    """Refuse a format with an unknown or unfinished directive (:class:`ExpressionError`)."""
    _directives(fmt)


def parse_time(value: object) -> datetime | None:
    """``value`` as a datetime: a datetime, a date (at midnight) or an ISO 8601 text.

    None and ``""`` give None. Anything else raises :class:`ValueError`.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str) and len(value) <= _LONGEST_TIME:
        try:
            return datetime.fromisoformat(value.strip())
        except ValueError:
            pass
    shown = repr(value) if isinstance(value, str) and len(value) <= 40 else "the value"
    raise ValueError(f"{shown} is not an ISO 8601 date or date and time (2026-03-07T08:55:05)")


def _offset(moment: datetime, colon: bool) -> str:
    delta = moment.utcoffset()
    if delta is None:
        return ""
    sign = "-" if delta < timedelta(0) else "+"
    minutes = abs(delta) // timedelta(minutes=1)
    hours, minutes = divmod(minutes, 60)
    return f"{sign}{hours:02d}{':' if colon else ''}{minutes:02d}"


def _zone(moment: datetime, zone: str) -> str:
    if zone:
        return zone
    offset = _offset(moment, colon=True)
    if not offset:
        return ""
    return "UTC" if offset == "+00:00" else f"UTC{offset}"


def _number(moment: datetime, directive: str) -> tuple[int, int]:
    """The value of a numeric directive and its padded width."""
    hour12 = moment.hour % 12 or 12
    table = {
        "d": (moment.day, 2),
        "e": (moment.day, 2),
        "j": (moment.timetuple().tm_yday, 3),
        "m": (moment.month, 2),
        "y": (moment.year % 100, 2),
        "Y": (moment.year, 4),
        "H": (moment.hour, 2),
        "I": (hour12, 2),
        "M": (moment.minute, 2),
        "S": (moment.second, 2),
        "u": (moment.isoweekday(), 1),
    }
    return table[directive]


def _text(moment: datetime, directive: str, zone: str) -> str:
    if directive == "a":
        return _WEEKDAYS[moment.weekday()][:3]
    if directive == "A":
        return _WEEKDAYS[moment.weekday()]
    if directive == "b":
        return _MONTHS[moment.month - 1][:3]
    if directive == "B":
        return _MONTHS[moment.month - 1]
    if directive == "p":
        return "AM" if moment.hour < 12 else "PM"
    if directive in ("z", ":z"):
        return _offset(moment, colon=directive == ":z")
    if directive == "Z":
        return _zone(moment, zone)
    if directive == "F":
        return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    if directive == "T":
        return f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    return "%"


def format_time(value: object, fmt: str, zone: str = "") -> str:
    """``value`` (see :func:`parse_time`) written by ``fmt``; ``""`` when ``value`` is empty."""
    pieces = _directives(fmt)
    moment = parse_time(value)
    if moment is None:
        return ""
    out: list[str] = []
    for literal, directive, unpadded in pieces:
        out.append(literal)
        if not directive:
            continue
        if directive in _NUMBERS:
            number, width = _number(moment, directive)
            if unpadded:
                out.append(str(number))
            elif directive == "e":
                out.append(f"{number:>{width}d}")
            else:
                out.append(f"{number:0{width}d}")
        else:
            out.append(_text(moment, directive, zone))
    return "".join(out)
