"""catalog._digest: the same SHA-256 as hashlib, without importing it for a short run."""

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


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's own SHA-256")
def test_openssl_takes_over_after_a_megabyte() -> None:
    code = (
        "import sys; from catalog._digest import sha256_hex\n"
        "chunk = bytes(range(256)) * 2400  # 614,400 bytes\n"
        "first = sha256_hex(chunk); before = 'hashlib' in sys.modules\n"
        "second = sha256_hex(chunk); after = 'hashlib' in sys.modules\n"
        "print(first == second, before, after)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "True"]


def test_openssl_is_used_once_something_imported_hashlib(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bytes] = []
    real = hashlib.sha256

    def sha256(data: bytes) -> object:
        calls.append(data)
        return real(data)

    # This process has imported hashlib: sha256_hex goes straight to it.
    monkeypatch.setattr(hashlib, "sha256", sha256)
    assert sha256_hex(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert calls == [b"abc"]
