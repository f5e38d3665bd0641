"""Which tags are releases: the version behind a tag's prefix, in version order."""

from __future__ import annotations

import pytest
from packaging.version import Version

from catalog.importers.git.tags import choose_tags, tag_version


@pytest.mark.parametrize(
    ("tag", "version"),
    [
        ("v1.3.4", "1.3.4"),
        ("rust-v0.46.0", "0.46.0"),
        ("rust-v0.0.2504301132", "0.0.2504301132"),
        ("1.0", "1.0"),
        ("release-2.0rc1", "2.0rc1"),
        ("v1.0.0-beta.2", "1.0.0b2"),
    ],
)
def test_the_version_is_the_tag_without_its_prefix(tag: str, version: str) -> None:
    assert tag_version(tag) == Version(version)


@pytest.mark.parametrize("tag", ["nightly", "v1.x", "latest-2024-01-01-abc", "vé"])
def test_a_tag_that_is_no_pep_440_version_gives_none(tag: str) -> None:
    assert tag_version(tag) is None


def test_releases_come_in_version_order_not_name_order() -> None:
    tags = {"v1.10.0": "c", "v1.2.0": "b", "v1.9.0": "a", "v0.9": "d"}
    chosen = choose_tags(tags, ["v*"], pre=False)
    assert [r.tag for r in chosen.releases] == ["v0.9", "v1.2.0", "v1.9.0", "v1.10.0"]
    assert [r.commit for r in chosen.releases] == ["d", "b", "a", "c"]


def test_tags_left_out_are_counted_by_reason() -> None:
    tags = {
        "v1.0.0": "a",
        "v1.1.0rc1": "b",
        "v1.1.0": "c",
        "vnext": "d",
        "v1.0": "e",
        "docs-1.0": "f",
    }
    chosen = choose_tags(tags, ["v*"], pre=False)
    assert [r.tag for r in chosen.releases] == ["v1.0.0", "v1.1.0"]
    assert chosen.not_versions == ("vnext",)
    assert chosen.pre_releases == ("v1.1.0rc1",)
    assert chosen.duplicates == ("v1.0",)  # equal to 1.0.0; the later name wins
    with_pre = choose_tags(tags, ["v*"], pre=True)
    assert [r.tag for r in with_pre.releases] == ["v1.0.0", "v1.1.0rc1", "v1.1.0"]


def test_several_globs_and_prefixes_mix() -> None:
    tags = {"rust-v0.46.0": "a", "v0.1.0": "b", "cli-v2.0.0": "c"}
    chosen = choose_tags(tags, ["rust-v*", "v*"], pre=False)
    assert [r.tag for r in chosen.releases] == ["v0.1.0", "rust-v0.46.0"]
