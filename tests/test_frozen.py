"""catalog.records.frozen on its own: the base of the package's immutable value classes.

The classes here are written for the tests; every expected value is written out.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import ClassVar, NamedTuple

import pytest

from catalog.records.frozen import (
    Frozen,
    FrozenInstanceError,
    asdict,
    astuple,
    class_fields,
    field,
    fields,
    replace,
)


class Point(Frozen):
    x: int
    y: int = 0
    label: str = field(default="", compare=False)
    tags: tuple[str, ...] = field(default=(), repr=False)
    kind: ClassVar[str] = "point"


class Bag(Frozen):
    items: list[object] = field(default_factory=list)


class Point3(Point):
    z: int = 0


class Handle(Frozen, eq=False):
    name: str


class Scaled(Frozen):
    base: int
    double: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "double", self.base * 2)


class Pair(NamedTuple):
    left: int
    right: Point


class Box(Frozen):
    items: tuple[Point, ...]
    by_name: dict[str, Point]
    listed: list[Point]
    pair: Pair | None = None


@dataclasses.dataclass
class PlainData:
    a: int
    b: str = "b"


# -- building


def test_fields_come_positionally_or_by_keyword() -> None:
    assert (Point(1, 2).x, Point(1, 2).y) == (1, 2)
    assert (Point(y=5, x=3).x, Point(y=5, x=3).y) == (3, 5)
    point = Point(1)
    assert (point.y, point.label, point.tags) == (0, "", ())


def test_a_default_factory_makes_a_new_object_each_time() -> None:
    first, second = Bag(), Bag()
    assert first.items == [] and first.items is not second.items


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "Point() missing required argument: 'x'"),
        ((1, 2, "a", (), 5), {}, "Point() takes 4 positional arguments but 5 were given"),
        ((1,), {"x": 2}, "Point() got multiple values for argument 'x'"),
        ((1,), {"colour": "red"}, "Point() got an unexpected keyword argument 'colour'"),
        ((1,), {"kind": "line"}, "Point() got an unexpected keyword argument 'kind'"),
    ],
)
def test_wrong_arguments_are_type_errors(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError) as caught:
        Point(*args, **kwargs)
    assert str(caught.value) == message


def test_a_class_variable_is_not_a_field() -> None:
    assert [spec.name for spec in fields(Point)] == ["x", "y", "label", "tags"]
    assert Point(1).kind == "point"


def test_a_subclass_adds_fields_after_its_bases() -> None:
    point = Point3(1, 2, "p", ("t",), 3)
    assert [spec.name for spec in fields(point)] == ["x", "y", "label", "tags", "z"]
    assert (point.x, point.z) == (1, 3)
    assert Point3.__match_args__ == ("x", "y", "label", "tags", "z")


def test_a_required_field_after_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="field 'b' has no default but follows 'a'"):

        class Wrong(Frozen):
            a: int = 0
            b: int


def test_a_mutable_default_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Wrong\.items: a list default would be one object"):

        class Wrong(Frozen):
            items: list[int] = []  # noqa: RUF012 - the mistake under test


def test_default_and_factory_together_are_refused() -> None:
    with pytest.raises(TypeError, match="a default or a default_factory, not both"):
        field(default=1, default_factory=int)


def test_post_init_sets_a_field_init_does_not_take() -> None:
    scaled = Scaled(4)
    assert scaled.double == 8
    assert repr(scaled) == "Scaled(base=4, double=8)"
    with pytest.raises(TypeError, match="unexpected keyword argument 'double'"):
        Scaled(4, double=1)  # type: ignore[call-arg]


# -- a frozen value


def test_fields_cannot_be_assigned_or_deleted() -> None:
    point = Point(1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x': Point is frozen"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError, match="cannot delete field 'y': Point is frozen"):
        del point.y  # type: ignore[misc]
    with pytest.raises(AttributeError):  # FrozenInstanceError is one
        point.other = 1  # type: ignore[attr-defined]
    assert point.x == 1


def test_equality_and_hash_follow_the_compared_fields() -> None:
    assert Point(1, 2, "a") == Point(1, 2, "b")  # label is not compared
    assert hash(Point(1, 2, "a")) == hash(Point(1, 2, "b"))
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2) != Point3(1, 2)  # another class is never equal
    assert Point(1, 2) != (1, 2)
    assert len({Point(1), Point(1), Point(2)}) == 2


def test_eq_false_keeps_identity() -> None:
    first, second = Handle("a"), Handle("a")
    assert first != second
    assert first == first
    assert len({first, second}) == 2


def test_an_unhashable_field_fails_only_when_hashed() -> None:
    assert Bag([1]) == Bag([1])
    with pytest.raises(TypeError, match="unhashable"):
        hash(Bag([1]))


def test_repr_shows_the_shown_fields_in_order() -> None:
    assert repr(Point(1, 2, "a", ("t",))) == "Point(x=1, y=2, label='a')"
    assert repr(Handle("h")) == "Handle(name='h')"


def test_pattern_matching_takes_the_init_fields_in_order() -> None:
    match Point(4, 5):
        case Point(x, y):
            assert (x, y) == (4, 5)
        case _:
            pytest.fail("Point(x, y) did not match")


def test_pickle_and_deepcopy_round_trip() -> None:
    bag = Bag([1, 2])
    for copied in (pickle.loads(pickle.dumps(bag)), copy.deepcopy(bag)):
        assert copied == bag and copied.items is not bag.items
        with pytest.raises(FrozenInstanceError):
            copied.items = []  # type: ignore[misc]
    point = Point3(1, 2, "a", ("t",), 3)
    for copied in (pickle.loads(pickle.dumps(point)), copy.deepcopy(point)):
        assert copied == point and copied.label == "a" and copied.tags == ("t",)
        with pytest.raises(FrozenInstanceError):
            copied.x = 9  # type: ignore[misc]


# -- the dataclasses functions' stand-ins


def test_replace_builds_through_init() -> None:
    point = Point(1, 2, "a")
    moved = replace(point, y=7)
    assert (moved.x, moved.y, moved.label) == (1, 7, "a")
    assert point.y == 2
    assert replace(Scaled(2), base=5).double == 10  # __post_init__ ran again
    with pytest.raises(TypeError, match="Scaled: 'double' cannot be replaced"):
        replace(Scaled(2), double=1)


def test_asdict_turns_nested_values_into_plain_data() -> None:
    box = Box(
        items=(Point(1),),
        by_name={"p": Point(2, 3)},
        listed=[Point(4)],
        pair=Pair(5, Point(6)),
    )
    point = {"x": 1, "y": 0, "label": "", "tags": ()}
    assert asdict(box) == {
        "items": (point,),
        "by_name": {"p": {"x": 2, "y": 3, "label": "", "tags": ()}},
        "listed": [{"x": 4, "y": 0, "label": "", "tags": ()}],
        "pair": Pair(5, {"x": 6, "y": 0, "label": "", "tags": ()}),  # type: ignore[arg-type]
    }
    assert type(asdict(box)["pair"]) is Pair
    assert astuple(Point(1, 2, "a")) == (1, 2, "a", ())
    assert astuple(Bag([Point(1)])) == ([{"x": 1, "y": 0, "label": "", "tags": ()}],)
    assert astuple(Scaled(3)) == (3, 6)


def test_class_fields_knows_frozen_classes_and_standard_dataclasses() -> None:
    assert class_fields(Point3) == ("x", "y", "label", "tags", "z")
    assert class_fields(PlainData) == ("a", "b")
    assert class_fields(dict) is None
    assert class_fields(Pair) is None
