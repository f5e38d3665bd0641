"""The `claude` token counter: an offline estimate of Anthropic's count."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from catalog.importers.piebald import parse_prompt_file, parse_readme
from catalog.tokens import ClaudeCounter, get_counter
from catalog.tokens.claude import FEATURES, estimate, features
from tests.conftest import run_cli


def test_claude_is_a_counter_by_name() -> None:
    counter = get_counter("claude")
    assert isinstance(counter, ClaudeCounter) and counter.name == "claude"
    text = "Use the Read tool to read files before you edit them.\n"
    assert isinstance(counter(text), int)
    cl100k = get_counter("cl100k_base")(text)
    # Anthropic's counts run above cl100k's for prose like this.
    assert cl100k < counter(text) < 2 * cl100k
    assert counter("") == 0
    assert get_counter(None, tokenizer="claude").name == "claude"


def test_features_are_counted_from_the_text() -> None:
    values = dict(zip(FEATURES, features("Ab  c1é\n(x)", 7), strict=True))
    assert values == {
        "cl100k": 7,
        "chars": 11,
        "non_ascii": 1,
        "punctuation": 2,
        "digits": 1,
        "newlines": 1,
        "space_runs": 1,
        "uppercase": 1,
        "words": 3,
        "constant": 1,
    }


# The features as first written, one regular expression each: what the counting
# by byte classes must give on every text.
_PUNCTUATION = re.compile(r"""[{}\[\]()<>;:=+\-*/\\|&^%$#@!?`~"',._]""")
_BY_PATTERN = {
    "punctuation": _PUNCTUATION,
    "digits": re.compile(r"[0-9]"),
    "space_runs": re.compile(r" {2,}"),
    "uppercase": re.compile(r"[A-Z]"),
    "words": re.compile(r"[A-Za-z]+"),
}


def _features_by_pattern(text: str, cl100k: int) -> dict[str, float]:
    found = {name: float(len(pattern.findall(text))) for name, pattern in _BY_PATTERN.items()}
    return {
        "cl100k": float(cl100k),
        "chars": float(len(text)),
        "non_ascii": float(len(text.encode("utf-8")) - len(text)),
        "newlines": float(text.count("\n")),
        "constant": 1.0,
        **found,
    }


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        st.one_of(
            st.sampled_from(list(" \n\t  aZq9_.-{}\\\"'`~éßİı€😀")),
            st.characters(codec="utf-8"),
        ),
        max_size=60,
    )
)
def test_features_equal_those_of_one_pattern_each_on_any_text(text: str) -> None:
    assert dict(zip(FEATURES, features(text, 5), strict=True)) == _features_by_pattern(text, 5)


def test_features_equal_those_of_one_pattern_each_on_every_character_and_real_parts() -> None:
    import catalog

    every = "".join(map(chr, range(0x3000))) + "  x  " + "A" * 3
    bodies = "\n\n".join(part.body for part in catalog.load("coding-agent").parts)
    for text in (every, bodies, "", " ", "  ", "a", "ab  c"):
        assert dict(zip(FEATURES, features(text, 9), strict=True)) == _features_by_pattern(text, 9)


def _calibration() -> ModuleType:
    """The calibration script, which holds the fitting (the package only estimates)."""
    path = Path(__file__).resolve().parents[2] / "scripts" / "calibrate_claude.py"

    root = next(p for p in Path(__file__).resolve().parents if (p / "scripts").is_dir())
    path = root / "scripts" / "calibrate_claude.py"
    spec = importlib.util.spec_from_file_location("calibrate_claude", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fit_recovers_a_known_linear_model() -> None:
    calibration = _calibration()
    fit, accuracy = calibration.fit, calibration.accuracy
    truth = (1.5, 0.0, 0.0, 0.3, 0.0, 2.0, 0.0, 0.0, 0.0, 4.0)
    texts = [
        "word " * n + "(x);" * (n % 7) + "\n" * (n % 5) + "more text" * (n % 3)
        for n in range(1, 60)
    ]
    samples = []
    for n, text in enumerate(texts):
        cl = 3 * len(text.split()) + n % 4
        value = sum(w * f for w, f in zip(truth, features(text, cl), strict=True))
        samples.append((text, cl, round(value)))
    fitted = fit(samples)
    assert accuracy(samples, lambda t, c: estimate(t, c, fitted), tolerance=0.02) == 1.0
    assert accuracy(samples, lambda t, c: 1.0 * c, tolerance=0.02) < 0.5


def test_cli_counts_with_claude(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tokens", "coding-agent", "--counter", "claude")
    assert code == 0
    assert "claude" in out


def test_claude_estimate_is_close_on_real_parts(claude_code_releases: Path) -> None:
    # Parts whose text last changed at 2.1.180 or later were counted upstream with the
    # current model: the estimate is within 15 % for at least 85 % of them.
    release = claude_code_releases / "2.1.240"
    readme = parse_readme((release / "README.md").read_text(encoding="utf-8"))
    counter = get_counter("claude")
    close = total = 0
    for path in sorted((release / "system-prompts").glob("*.md")):
        part = parse_prompt_file(path.read_text(encoding="utf-8"), path.name)
        entry = readme.entries.get(path.name)
        cc = str(part.header.get("ccVersion", "0"))
        if entry is None or not re.fullmatch(r"[\d.]+", cc) or Version(cc) < Version("2.1.180"):
            continue
        total += 1
        close += abs(counter(part.body) - entry.tokens) <= 0.15 * entry.tokens
    assert total > 300
    assert close >= 0.85 * total
