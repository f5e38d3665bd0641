"""catalog._digest: the same SHA-256 as hashlib, without importing it on CPython."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalog._digest import sha256_hex


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ],
)
def test_known_digests(data: bytes, expected: str) -> None:
    assert sha256_hex(data) == expected


@given(st.binary(max_size=5000))
def test_the_same_digest_as_hashlib(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_long_input() -> None:
    data = bytes(range(256)) * 40_000  # 10 MB, past any single-block path
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's own SHA-256")
def test_hashlib_and_openssl_are_not_imported() -> None:
    code = (
        "import sys; from catalog._digest import sha256_hex; sha256_hex(b'x'); "
        "print(sorted(m for m in ('hashlib', '_hashlib') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
