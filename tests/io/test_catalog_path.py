"""A reference that names no catalog says what was meant: the '@' of a version, the
lower case of a name; an empty specifier is an error, never the newest version."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.errors import BadReferenceError, NotFoundError, UsageError
from catalog.io.catalog_path import CatalogPath
from tests.conftest import write_catalog


@pytest.fixture
def store(tmp_path: Path) -> CatalogPath:
    write_catalog(tmp_path, "mybot", "1.0.0", parts=[{"id": "intro", "body": "Hi."}])
    return CatalogPath([tmp_path])


@pytest.mark.parametrize(
    ("ref", "message", "hint"),
    [
        ("mybot==1.0.0", "'mybot==1.0.0' is not a catalog name (",
         "a version follows an '@': write 'mybot@==1.0.0'"),
        ("mybot>=1", "'mybot>=1' is not a catalog name (",
         "a version follows an '@': write 'mybot@>=1'"),
        ("MyBot", "'MyBot' is not a catalog name (",
         "catalog names are lower case: did you mean 'mybot'?"),
        ("mybot@", "'mybot@' has no version after its '@'",
         "write 'mybot' for the newest version, or e.g. 'mybot@1.0.0' or 'mybot@~=1.1'"),
        ("mybot@  ", "'mybot@  ' has no version after its '@'",
         "write 'mybot' for the newest version, or e.g. 'mybot@1.0.0' or 'mybot@~=1.1'"),
        ("mybot@abc", "'abc' is not a PEP 440 version specifier",
         "write e.g. 1.0.0, ==1.1.0, ~=1.1 or >=1,<2"),
    ],
)  # fmt: skip
def test_a_malformed_reference_says_what_was_meant(
    store: CatalogPath, ref: str, message: str, hint: str
) -> None:
    with pytest.raises(BadReferenceError) as caught:
        store.load_ref(ref)
    assert caught.value.message.startswith(message)
    assert caught.value.hint == hint
    # Nothing can be found by it, and it is written wrong: both.
    assert isinstance(caught.value, NotFoundError) and isinstance(caught.value, UsageError)


def test_the_name_alone_is_the_newest_version(store: CatalogPath) -> None:
    assert str(store.load_ref("mybot").version) == "1.0.0"
