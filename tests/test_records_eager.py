"""Records whose annotations are objects, not text (no ``from __future__ import
annotations`` here), as the package's own manifests and contexts are written.

Such a record's annotations are read as they are; only one that holds a name
still written as text is evaluated by ``typing.get_type_hints``.
"""

from typing import Annotated, Literal, Optional

import pytest

from catalog.errors import RecordError
from catalog.records import Pattern, Record, field


class Leaf(Record):
    kind: Literal["small", "large"]
    label: Annotated[str, Pattern(r"^[a-z]+$"), "a text in the metadata"] = "leaf"
    weight: Optional[int] = None  # noqa: UP045 - the typing spelling is under test


class Tree(Record):
    name: str
    children: tuple["Tree", ...] = ()
    leaves: dict[str, Leaf] = field(default_factory=dict)


def test_texts_inside_literal_and_annotated_metadata_are_values() -> None:
    leaf = Leaf.model_validate({"kind": "small", "label": "abc", "weight": 3})
    assert (leaf.kind, leaf.label, leaf.weight) == ("small", "abc", 3)
    with pytest.raises(RecordError) as caught:
        Leaf.model_validate({"kind": "medium", "label": "ABC"})
    assert [problem.loc for problem in caught.value.problems] == [("kind",), ("label",)]


def test_a_name_written_as_text_inside_a_container_is_resolved() -> None:
    tree = Tree.model_validate(
        {"name": "a", "children": [{"name": "b"}], "leaves": {"x": {"kind": "large"}}}
    )
    assert isinstance(tree.children[0], Tree) and tree.children[0].name == "b"
    assert tree.leaves["x"] == Leaf(kind="large")
    with pytest.raises(RecordError) as caught:
        Tree.model_validate({"name": "a", "children": [{"name": 5}]})
    assert [problem.loc for problem in caught.value.problems] == [("children", 0, "name")]
