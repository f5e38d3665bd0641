"""Models whose annotations are objects, not text (no ``from __future__ import
annotations`` here), as the package's own manifests and contexts are written,
with names still written as text where a model refers to itself.
"""

from typing import Annotated, Literal, Optional

import pytest
from pydantic import Field

from catalog.errors import RecordError
from catalog.schema import Items, SchemaModel, validate


class Leaf(SchemaModel):
    kind: Literal["small", "large"]
    label: Annotated[str, Field(pattern=r"^[a-z]+$"), "a text in the metadata"] = "leaf"
    weight: Optional[int] = None  # noqa: UP045 - the typing spelling is under test


class Tree(SchemaModel):
    name: str
    children: Items["Tree"] = ()
    leaves: dict[str, Leaf] = Field(default_factory=dict)


def test_texts_inside_literal_and_annotated_metadata_are_values() -> None:
    leaf = validate(Leaf, {"kind": "small", "label": "abc", "weight": 3})
    assert (leaf.kind, leaf.label, leaf.weight) == ("small", "abc", 3)
    with pytest.raises(RecordError) as caught:
        validate(Leaf, {"kind": "medium", "label": "ABC"})
    assert [problem.loc for problem in caught.value.problems] == [("kind",), ("label",)]


def test_a_name_written_as_text_inside_a_container_is_resolved() -> None:
    tree = validate(
        Tree, {"name": "a", "children": [{"name": "b"}], "leaves": {"x": {"kind": "large"}}}
    )
    assert isinstance(tree.children[0], Tree) and tree.children[0].name == "b"
    assert tree.leaves["x"] == Leaf(kind="large")
    with pytest.raises(RecordError) as caught:
        validate(Tree, {"name": "a", "children": [{"name": 5}]})
    assert [problem.loc for problem in caught.value.problems] == [("children", 0, "name")]
