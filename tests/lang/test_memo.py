"""Remembered bodies: keyed by exactly what they read, bounded, safe across threads."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from catalog.errors import EvaluationError
from catalog.lang.memo import MAX_CHARACTERS, MAX_ENTRIES, remember, usage
from catalog.lang.shapes import ANY
from catalog.lang.template import compile_template
from catalog.schema.context import Environment


class _Counting:
    """A body render that counts how often it really renders."""

    def __init__(self, body: str, names: dict[str, Any]) -> None:
        self.template = compile_template(body, names)
        self.renders = 0

    def __call__(self, scope: Any) -> str:
        self.renders += 1
        return self.template.render(scope)


def _remembered(body: str, *names: str) -> tuple[_Counting, Any]:
    counting = _Counting(body, dict.fromkeys(names, ANY))
    return counting, remember(counting, counting.template.reads, len)


def test_values_met_again_are_a_look_up_and_other_values_render() -> None:
    counting, run = _remembered("{{ env.cwd }} on {{ env.os }}: {{ tools }}", "env", "tools")
    first = {"env": Environment(cwd="/a", os="Linux"), "tools": ("Bash",)}
    assert run(first) == "/a on Linux: Bash"  # met once: only noted
    assert run(first) == "/a on Linux: Bash"  # met again: kept
    assert counting.renders == 2
    assert run({"env": Environment(cwd="/a", os="Linux", shell="zsh"), "tools": ("Bash",)}) == (
        "/a on Linux: Bash"
    )  # a field the body does not read changes nothing
    assert counting.renders == 2
    assert run({**first, "tools": ("Bash", "Read")}) == "/a on Linux: Bash, Read"
    assert run({**first, "env": Environment(cwd="/b", os="Linux")}) == "/b on Linux: Bash"
    assert counting.renders == 4


def test_values_met_once_keep_nothing() -> None:
    entries = usage()[0]
    _, run = _remembered("{{ x }}!", "x")
    for index in range(100):
        assert run({"x": f"once {index}"}) == f"once {index}!"
    assert usage()[0] == entries


@pytest.mark.parametrize(
    ("values", "written"),
    [
        ((1, True, "1", 1), ["[1]", "[true]", "[1]", "[1]"]),  # 1 == True in Python
        ((0, False, None, "", 0), ["[0]", "[false]", "[]", "[]", "[0]"]),
        ((("a",), "a", ("a", "b")), ["[a]", "[a]", "[a, b]"]),
    ],
)
def test_equal_values_of_different_types_are_different_keys(
    values: tuple[Any, ...], written: list[str]
) -> None:
    _, run = _remembered("[{{ x }}]", "x")
    for value in values:  # met twice: each kept
        run({"x": value})
        run({"x": value})
    assert [run({"x": value}) for value in values] == written


@pytest.mark.parametrize(
    "value",
    [0.0, -0.0, ["a"], ("a", 1), {"k": "v"}, {"a"}, Environment(cwd="/x")],
    ids=repr,
)
def test_values_whose_equals_may_render_apart_are_rendered_each_time(value: Any) -> None:
    counting, run = _remembered("{{ x }}", "x")
    assert run({"x": value}) == run({"x": value}) == run({"x": value})
    assert counting.renders == 3  # a value that can be a key renders twice, then is kept


def test_an_error_is_raised_each_time_and_never_remembered() -> None:
    counting, run = _remembered("{{ 1 < x }}", "x")
    for _ in range(2):
        with pytest.raises(EvaluationError, match="cannot apply '<'"):
            run({"x": "a"})
    assert counting.renders == 2
    assert run({"x": 2}) == "true"


def test_the_memory_is_bounded_in_entries_and_characters() -> None:
    _, run = _remembered("{{ x }}", "x")
    for index in range(MAX_ENTRIES + 50):
        run({"x": f"value {index}"})
        run({"x": f"value {index}"})
    entries, characters = usage()
    assert entries <= MAX_ENTRIES and characters <= MAX_CHARACTERS
    counting, big = _remembered("{{ x }}{{ x }}", "x")
    text = "y" * (MAX_CHARACTERS // 20)
    for index in range(40):  # each output is a tenth of the memory
        big({"x": f"{index}{text}"})
        big({"x": f"{index}{text}"})
    assert usage()[1] <= MAX_CHARACTERS
    huge = "z" * (MAX_CHARACTERS // 8)  # one output this large is never kept
    for _ in range(3):
        big({"x": huge})
    assert counting.renders == 83


def test_threads_get_what_rendering_gives() -> None:
    _, run = _remembered("{{ x }}-{{ y }}", "x", "y")
    failures: list[str] = []

    def work(offset: int) -> None:
        for index in range(2000):
            x, y = f"{(index + offset) % 97}", str(index % 13)
            if run({"x": x, "y": y}) != f"{x}-{y}":
                failures.append(f"{x}-{y}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_two_bodies_never_share_an_entry() -> None:
    _, first = _remembered("a {{ x }}", "x")
    _, second = _remembered("b {{ x }}", "x")
    assert (first({"x": "1"}), second({"x": "1"})) == ("a 1", "b 1")
