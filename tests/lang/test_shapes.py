"""Shapes: derived from annotations, and used to check names before use."""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping, Sequence

# pydantic needs typing_extensions' TypedDict on Python < 3.12.
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, computed_field
from typing_extensions import TypedDict

from catalog.errors import ExpressionError, TemplateError
from catalog.lang.compiler import compile_expression
from catalog.lang.shapes import (
    ANY,
    SCALAR,
    MappingShape,
    RecordShape,
    SequenceShape,
    Shape,
    common_shape,
    shape_of,
)
from catalog.lang.template import compile_template
from catalog.text.suggest import did_you_mean


class Env(BaseModel):
    os: str
    shell: str | None = None


class Skill(BaseModel):
    name: str
    description: str = ""


class Style(BaseModel):
    name: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def title(self) -> str:
        return self.name.title()


class Node(BaseModel):
    label: str
    children: list[Node] = []


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


class Server(TypedDict):
    name: str
    tools: list[str]


class Ctx(BaseModel):
    tools: list[str]
    env: Env
    skills: list[Skill]
    output_style: Optional[Style] = None  # noqa: UP045 - the typing spelling is what is tested
    style: Style | None = None
    by_name: dict[str, Skill] = {}
    pair: tuple[int, str] = (0, "")
    same_pair: tuple[int, int] = (0, 0)
    many: tuple[Skill, ...] = ()
    flags: frozenset[str] = frozenset()
    seq: Sequence[Env] = ()
    mapping: Mapping[str, list[str]] = {}
    anything: Any = None
    choice: Literal["a", "b"] = "a"
    number_or_text: int | str = 0
    env_or_text: Env | str = ""
    annotated: Annotated[list[Skill], "metadata"] = []
    color: Color = Color.RED
    path: Path = Path()
    when: datetime.date = datetime.date(2024, 1, 1)
    point: Point = Point(0, 0)
    server: Server | None = None
    tree: Node | None = None


ENV = RecordShape({"os": SCALAR, "shell": SCALAR}, "Env")
SKILL = RecordShape({"name": SCALAR, "description": SCALAR}, "Skill")
STYLE = RecordShape({"name": SCALAR, "title": SCALAR}, "Style")


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("tools", SequenceShape(SCALAR)),
        ("env", ENV),
        ("skills", SequenceShape(SKILL)),
        ("output_style", STYLE),
        ("style", STYLE),
        ("by_name", MappingShape(SKILL)),
        ("pair", SequenceShape(SCALAR)),
        ("same_pair", SequenceShape(SCALAR)),
        ("many", SequenceShape(SKILL)),
        ("flags", SequenceShape(SCALAR)),
        ("seq", SequenceShape(ENV)),
        ("mapping", MappingShape(SequenceShape(SCALAR))),
        ("anything", ANY),
        ("choice", SCALAR),
        ("number_or_text", SCALAR),
        ("env_or_text", ANY),
        ("annotated", SequenceShape(SKILL)),
        ("color", SCALAR),
        ("path", SCALAR),
        ("when", SCALAR),
        ("point", RecordShape({"x": SCALAR, "y": SCALAR}, "Point")),
        ("server", RecordShape({"name": SCALAR, "tools": SequenceShape(SCALAR)}, "Server")),
        (
            "tree",
            RecordShape({"label": SCALAR, "children": SequenceShape(ANY)}, "Node"),
        ),
    ],
)
def test_shape_of_model_fields(field: str, expected: Shape) -> None:
    assert shape_of(Ctx).fields[field] == expected  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, SCALAR),
        (int, SCALAR),
        (float, SCALAR),
        (bool, SCALAR),
        (None, SCALAR),
        (type(None), SCALAR),
        (Any, ANY),
        (object, ANY),
        (list, SequenceShape(ANY)),
        (dict, MappingShape(ANY)),
        (list[list[int]], SequenceShape(SequenceShape(SCALAR))),
        (dict[str, Env], MappingShape(ENV)),
        (Optional[list[Env]], SequenceShape(ENV)),  # noqa: UP045
        (Literal[1, 2], SCALAR),
    ],
)
def test_shape_of_annotations(annotation: object, expected: Shape) -> None:
    assert shape_of(annotation) == expected


def test_recursive_model_stops_with_any_where_it_recurs() -> None:
    shape = shape_of(Node)
    assert shape == RecordShape({"label": SCALAR, "children": SequenceShape(ANY)}, "Node")


def test_shapes_are_hashable_and_equal_by_value() -> None:
    first, second = shape_of(Ctx), shape_of(Ctx)
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second, ANY, SCALAR, SequenceShape(SCALAR), SequenceShape(SCALAR)}) == 4
    assert RecordShape({"a": SCALAR}, "R") != RecordShape({"a": SCALAR}, "S")
    assert RecordShape({"a": SCALAR}, "R") != RecordShape({"a": ANY}, "R")


def test_shapes_are_immutable() -> None:
    fields = {"a": SCALAR}
    record = RecordShape(fields, "R")
    fields["b"] = SCALAR
    assert set(record.fields) == {"a"}
    with pytest.raises(TypeError):
        record.fields["c"] = SCALAR  # type: ignore[index]
    with pytest.raises(FrozenInstanceError):
        record.name = "S"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        SequenceShape(SCALAR).item_shape = ANY  # type: ignore[misc]


@pytest.mark.parametrize(
    ("shape", "name", "expected"),
    [
        (ANY, "whatever", ANY),
        (MappingShape(ENV), "any_key", ENV),
        (ENV, "os", SCALAR),
        (STYLE, "title", SCALAR),
    ],
)
def test_attribute_shapes(shape: Shape, name: str, expected: Shape) -> None:
    assert shape.attribute(name, where="v") == expected


@pytest.mark.parametrize(
    ("shape", "name", "message", "hint"),
    [
        (ENV, "oss", "'v' (Env) has no attribute 'oss'", "did you mean 'os'?"),
        (SCALAR, "x", "'v' is a plain value", None),
        (SequenceShape(SKILL), "name", "'v' is a list and has no attribute 'name'", "pluck"),
    ],
)
def test_attribute_errors(shape: Shape, name: str, message: str, hint: str | None) -> None:
    with pytest.raises(ExpressionError) as caught:
        shape.attribute(name, where="v")
    assert message in caught.value.message
    if hint is not None:
        assert caught.value.hint is not None
        assert hint in caught.value.hint


@pytest.mark.parametrize(
    ("shape", "key", "expected"),
    [
        (ANY, 0, ANY),
        (SCALAR, 0, SCALAR),
        (SequenceShape(SKILL), -1, SKILL),
        (SequenceShape(SKILL), None, SKILL),
        (MappingShape(SKILL), "k", SKILL),
        (MappingShape(SKILL), None, SKILL),
        (ENV, "os", SCALAR),
        (ENV, None, ANY),
    ],
)
def test_item_shapes(shape: Shape, key: int | str | None, expected: Shape) -> None:
    assert shape.item(key, where="v") == expected


@pytest.mark.parametrize(
    ("shape", "key"),
    [(SequenceShape(SKILL), "k"), (SCALAR, "k"), (ENV, 0), (ENV, "nope")],
)
def test_item_errors(shape: Shape, key: int | str) -> None:
    with pytest.raises(ExpressionError):
        shape.item(key, where="v")


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (ANY, ANY),
        (SCALAR, SCALAR),
        (SequenceShape(SKILL), SKILL),
        (MappingShape(SKILL), SCALAR),
    ],
)
def test_element_shapes(shape: Shape, expected: Shape) -> None:
    assert shape.element(where="v") == expected


def test_a_record_cannot_be_iterated() -> None:
    with pytest.raises(ExpressionError, match="cannot be iterated"):
        ENV.element(where="env")


def test_common_shape() -> None:
    assert common_shape([SCALAR, SCALAR]) == SCALAR
    assert common_shape([SCALAR, ENV]) == ANY
    assert common_shape([]) == ANY


def test_did_you_mean_is_sorted_and_suggests() -> None:
    assert did_you_mean("tols", ["tools", "env", "agent"], what="known names") == (
        "did you mean 'tools'? known names: agent, env, tools"
    )
    assert did_you_mean("zzz", ["b", "a"], what="names") == "names: a, b"
    assert did_you_mean("x", [], what="names") == "there are no names"


NAMES = {name: shape for name, shape in shape_of(Ctx).fields.items()}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("source", "column", "suggestion"),
    [
        ("env.oss", 5, "'os'"),
        ("output_style.nme", 14, "'name'"),
        ("skills[0].nam", 11, "'name'"),
        ("first(skills).descripton", 15, "'description'"),
        ("by_name.x.nam", 11, "'name'"),
        ('pluck(skills, "nme")', 1, "'name'"),
        ("tols", 1, "'tools'"),
    ],
)
def test_compile_checks_attributes_against_model_shapes(
    source: str, column: int, suggestion: str
) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(source, NAMES)
    assert caught.value.column == column
    assert caught.value.hint is not None
    assert f"did you mean {suggestion}" in caught.value.hint


def test_loop_variable_gets_the_item_shape() -> None:
    body = "{% for s in skills %}\n- {{ s.nme }}\n{% endfor %}\n"
    with pytest.raises(TemplateError) as caught:
        compile_template(body, NAMES)
    assert (caught.value.line, caught.value.column) == (2, 8)
    assert caught.value.hint is not None
    assert "did you mean 'name'" in caught.value.hint
    good = compile_template("{% for s in skills %}{{ s.name }};{% endfor %}", NAMES)
    skills = [Skill(name="a"), Skill(name="b")]
    assert good.render({"skills": skills}) == "a;b;"


def test_loop_over_a_mapping_gives_text_keys() -> None:
    with pytest.raises(TemplateError, match="plain value"):
        compile_template("{% for k in by_name %}{{ k.name }}{% endfor %}", NAMES)
