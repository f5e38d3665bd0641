"""strftime(): a fixed, locale-free subset of strftime, checked when an expression compiles."""

from __future__ import annotations

import locale
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest

from catalog.errors import EvaluationError, ExpressionError
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import SCALAR

NAMES = {"t": SCALAR, "fmt": SCALAR, "zone": SCALAR}
# Saturday, March 7, 2026, 08:55:05 at UTC-6 (Central Standard Time).
MORNING = "2026-03-07T08:55:05-06:00"


def run(source: str, **scope: Any) -> Any:
    return compile_expression(source, NAMES)(scope)


def test_the_shape_a_document_gives() -> None:
    got = run('strftime(t, "%A, %B %-d, %Y at %I:%M:%S %p %Z", "CST")', t=MORNING)
    assert got == "Saturday, March 7, 2026 at 08:55:05 AM CST"


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("%a %A %b %B", "Sat Saturday Mar March"),
        ("%d|%-d|%e|%j|%-j", "07|7| 7|066|66"),
        ("%m|%-m|%y|%Y", "03|3|26|2026"),
        ("%H|%-H|%I|%-I|%M|%S|%p", "08|8|08|8|55|05|AM"),
        ("%u", "6"),
        ("%z|%:z", "-0600|-06:00"),
        ("%Z", "UTC-06:00"),
        ("%F %T", "2026-03-07 08:55:05"),
        ("100%% at %H", "100% at 08"),
        ("no directive", "no directive"),
        ("", ""),
    ],
)
def test_each_directive(fmt: str, expected: str) -> None:
    assert run("strftime(t, fmt)", t=MORNING, fmt=fmt) == expected


@pytest.mark.parametrize(
    ("value", "fmt", "expected"),
    [
        ("2026-03-07T20:05:00+00:00", "%I:%M %p %Z", "08:05 PM UTC"),
        ("2026-03-07T00:30:00Z", "%I %p", "12 AM"),
        ("2026-03-07T12:00:00+05:30", "%I %p %z", "12 PM +0530"),
        ("2026-12-31", "%A %j %H:%M %Z%z", "Thursday 365 00:00 "),
        ("0042-01-01T00:00:00", "%Y %y", "0042 42"),
    ],
)
def test_noon_midnight_offsets_and_naive_times(value: str, fmt: str, expected: str) -> None:
    assert run("strftime(t, fmt)", t=value, fmt=fmt) == expected


def test_dates_and_datetimes_are_accepted_and_none_is_empty() -> None:
    aware = datetime(2026, 3, 7, 8, 55, 5, tzinfo=timezone(timedelta(hours=-6)))
    assert run('strftime(t, "%F %T %z")', t=aware) == "2026-03-07 08:55:05 -0600"
    assert run('strftime(t, "%A %F %T")', t=date(2026, 3, 7)) == "Saturday 2026-03-07 00:00:00"
    assert run('strftime(t, "%F")', t=None) == ""
    assert run('strftime(t, "%F")', t="") == ""


def test_names_do_not_follow_the_process_locale() -> None:
    before = locale.setlocale(locale.LC_TIME)
    try:
        locale.setlocale(locale.LC_TIME, "fr_FR.UTF-8")
    except locale.Error:
        pytest.skip("no French locale on this machine")
    try:
        assert run('strftime(t, "%A %B %p")', t=MORNING) == "Saturday March AM"
    finally:
        locale.setlocale(locale.LC_TIME, before)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('strftime(t, "%Q")', "unknown directive '%Q'"),
        ('strftime(t, "%c")', "unknown directive '%c'"),
        ('strftime(t, "at %")', "ends with an unfinished directive"),
        ('strftime(t, "%-A")', "'%-A' is not a number to unpad"),
        ('strftime(t, "%-")', "ends with an unfinished directive"),
    ],
)
def test_a_written_format_is_checked_when_compiling(source: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(source, NAMES)
    assert message in caught.value.message
    assert caught.value.hint is not None and "%d" in caught.value.hint
    assert caught.value.column == 1


def test_a_format_from_data_is_checked_when_evaluating() -> None:
    with pytest.raises(EvaluationError, match=r"strftime\(\): .*unknown directive '%Q'"):
        run("strftime(t, fmt)", t=MORNING, fmt="%Q")


@pytest.mark.parametrize("value", ["yesterday", "2026-13-01", "x" * 5000, 17, ["2026-03-07"]])
def test_a_value_that_is_no_time_is_an_evaluation_error(value: object) -> None:
    with pytest.raises(EvaluationError, match=r"strftime\(\)"):
        run('strftime(t, "%F")', t=value)


def test_argument_count_is_checked() -> None:
    with pytest.raises(ExpressionError, match="takes 2 to 3 arguments"):
        compile_expression("strftime(t)", NAMES)
