"""The token chart never joins figures of two counters in one line, names each counter,
and labels enough versions to find one."""

from __future__ import annotations

from catalog.server.charts import token_chart


def test_each_run_of_one_counter_is_a_line_of_its_own() -> None:
    versions = ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"]
    counters = ["cl100k_base", "cl100k_base", "chars", "chars", "cl100k_base"]
    chart = token_chart(versions, [10, 20, 30, 40, 50], [None] * 5, counters)
    assert [(line.counter, line.first, line.last, line.style) for line in chart.lines] == [
        ("cl100k_base", "1.0.0", "1.1.0", 0),
        ("chars", "1.2.0", "1.3.0", 1),
        ("cl100k_base", "1.4.0", "1.4.0", 0),
    ]
    assert [len(line.points.split()) for line in chart.lines] == [2, 2, 1]
    assert chart.legend == [
        (0, "cl100k_base", "1.0.0 to 1.1.0, 1.4.0"),
        (1, "chars", "1.2.0 to 1.3.0"),
    ]


def test_one_counter_is_one_line() -> None:
    chart = token_chart(["1.0.0", "2.0.0"], [5, 7], [None, 9], ["cl100k_base"] * 2,
                        reference_counter="upstream")  # fmt: skip
    assert len(chart.lines) == 1 and chart.counters == ("cl100k_base",)
    assert chart.reference_counter == "upstream"


def test_five_versions_of_many_are_labelled_evenly() -> None:
    versions = [f"2.1.{n}" for n in range(265)]
    chart = token_chart(versions, [1] * 265, [None] * 265, ["cl100k_base"] * 265)
    assert [label.text for label in chart.labels] == [
        "2.1.0", "2.1.66", "2.1.132", "2.1.198", "2.1.264"
    ]  # fmt: skip
    assert [label.anchor for label in chart.labels] == ["start", *["middle"] * 3, "end"]
