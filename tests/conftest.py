"""Shared fixtures: catalogs written into temporary folders by the tests themselves."""

from __future__ import annotations

import hashlib
import locale
import os
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from catalog import Catalog, clear_caches, load_dir
from tests._support.github_api import FakeGitHub, serving

SHARED_VARIABLE = "CATALOG_TEST_SHARED"


def shared_dir(environ: Mapping[str, str]) -> Path:
    """The project's shared data (real published prompts, the source documents): the
    folder ``CATALOG_TEST_SHARED`` names, else ``../shared`` beside the checkout."""
    given = environ.get(SHARED_VARIABLE, "")
    return Path(given).expanduser() if given else Path(__file__).resolve().parents[2] / "shared"


SHARED = shared_dir(os.environ)

# What the user's environment may set that the package reads: every CATALOG_* variable
# but the tests' own, the metrics folder of `catalog serve --workers`, and what changes
# the command line's output (colour, width).
_OUTSIDE = ("PROMETHEUS_MULTIPROC_DIR", "NO_COLOR", "COLUMNS")


def _project_variables() -> list[str]:
    """The variables of the user's environment that would reach the code under test."""
    return [
        name
        for name in os.environ
        if (name.startswith("CATALOG_") and name != SHARED_VARIABLE) or name in _OUTSIDE
    ]


def pytest_configure(config: pytest.Config) -> None:
    """Clear the project's variables before any test module is imported: a user's own
    ``CATALOG_PATH`` (another ``coding-agent`` on it) must not change what is collected."""
    for name in _project_variables():
        del os.environ[name]


@pytest.fixture(autouse=True)
def _isolated(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Each test starts without the project's variables, with a data folder of its own
    (the default prompt store lives there) and leaves the locale as it found it; a
    variable a test sets without ``monkeypatch`` does not reach the next test."""
    for name in _project_variables():
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
    before = locale.setlocale(locale.LC_ALL)
    yield
    locale.setlocale(locale.LC_ALL, before)
    for name in _project_variables():
        del os.environ[name]


def sha(text: str) -> str:
    """The sha256 a manifest records: UTF-8 with LF line endings (computed independently)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def write_catalog(
    root: Path,
    name: str = "demo",
    version: str = "1.0.0",
    parts: Sequence[Mapping[str, Any]] = (),
    *,
    bodies: Mapping[str, str] | None = None,
    variables: Sequence[Mapping[str, Any]] = (),
    agents: Sequence[Mapping[str, Any]] = (),
    catalog: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``root/name/version/`` with a manifest and bodies; returns the version folder.

    Each part mapping may hold ``body`` (the text); ``file``, ``sha256`` and
    ``tokens`` are filled in unless given. ``extra`` adds top-level tables
    (``sources``, ``binding``...).
    """
    folder = root / name / version
    folder.mkdir(parents=True, exist_ok=True)
    table: list[dict[str, Any]] = []
    for index, spec in enumerate(parts):
        part = dict(spec)
        body = part.pop("body", f"Body of {part['id']}.")
        part.setdefault("file", f"{part['id']}.md")
        part.setdefault("order", (index + 1) * 10)
        part.setdefault("tokens", max(1, len(body) // 4))
        part.setdefault("sha256", sha(body))
        (folder / part["file"]).write_text(body, encoding="utf-8")
        table.append(part)
    for file, text in (bodies or {}).items():
        (folder / file).write_text(text, encoding="utf-8")
    data: dict[str, Any] = {"catalog": {"name": name, "version": version, **(catalog or {})}}
    if variables:
        data["variable"] = [dict(v) for v in variables]
    if agents:
        data["agent"] = [dict(a) for a in agents]
    data.update(extra or {})
    data["part"] = table
    (folder / "catalog.toml").write_text(tomli_w.dumps(data), encoding="utf-8")
    return folder


class FakeTime:
    """Stands for the ``time`` module inside one module of the package: a clock that
    moves only when the test moves it (``sleep`` or ``now``), for tests of dates shown
    and of bounds in seconds, at any time of day and at any speed of the machine."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> Callable[..., FakeTime]:
    """``fake_time(module, ...)``: one :class:`FakeTime` (starting at 2026-03-07
    12:00:00 UTC) standing for ``time`` in each module given; undone after the test."""

    def install(*modules: object) -> FakeTime:
        clock = FakeTime(1_772_884_800.0)
        for module in modules:
            monkeypatch.setattr(module, "time", clock)
        return clock

    return install


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the ``catalog`` command in-process: (exit status, stdout, stderr)."""
    from catalog.cli import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@pytest.fixture(scope="session", autouse=True)
def _own_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The package's caches (history indexes) go to a folder of the test session, never
    the user's own: ``XDG_CACHE_HOME``, which servers started by the tests inherit."""
    folder = tmp_path_factory.mktemp("user-cache")
    folder.chmod(0o700)
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture
def make_catalog(tmp_path: Path) -> Callable[..., Path]:
    """Write a catalog under ``tmp_path/catalogs``; returns its version folder."""
    root = tmp_path / "catalogs"

    def make(*args: Any, **kwargs: Any) -> Path:
        return write_catalog(root, *args, **kwargs)

    return make


@pytest.fixture
def build(make_catalog: Callable[..., Path]) -> Callable[..., Catalog]:
    """A catalog with the given [sources] table (and optional bindings/variables)."""

    def make(sources: dict[str, Any], **kwargs: Any) -> Catalog:
        extra = {"sources": sources, **kwargs.pop("extra", {})}
        parts = kwargs.pop("parts", [{"id": "intro", "body": "Hi."}])
        return load_dir(make_catalog(parts=parts, extra=extra, **kwargs))

    return make


@pytest.fixture
def catalogs_root(tmp_path: Path) -> Path:
    return tmp_path / "catalogs"


@pytest.fixture
def cli_demo(make_catalog: Callable[..., Path], catalogs_root: Path) -> Path:
    """A folder of catalogs holding demo 1.0.0: a variable, a sub-agent, a tool part and
    conditions on the tools; for the command-line tests."""
    make_catalog(
        "demo",
        "1.0.0",
        [
            {"id": "intro", "body": "Hello."},
            {"id": "grep", "when": '"Grep" in tools', "body": "Grep docs."},
            {"id": "bash", "kind": "tool", "name": "Bash", "agents": ["*"], "body": "Runs."},
            {"id": "shell", "when": '"Shell" in agent.tools', "agents": ["*"], "body": "Sh."},
        ],
        variables=[{"name": "plan_mode", "type": "bool"}],
        agents=[{"name": "explore", "tools": ["Glob"]}],
    )
    return catalogs_root


@pytest.fixture
def shared_fixtures() -> Path:
    """The real data in ../shared/fixtures (or $CATALOG_TEST_SHARED/fixtures); skips
    when this machine has none."""
    path = SHARED / "fixtures"
    if not path.is_dir():
        pytest.skip(f"{path} is not present on this machine (set {SHARED_VARIABLE})")
    return path


@pytest.fixture
def claude_code_releases(shared_fixtures: Path) -> Path:
    """The published Claude Code releases among the fixtures, one folder each; skips
    when they are not there."""
    path = shared_fixtures / "claude-code-system-prompts"
    if not path.is_dir():
        pytest.skip("no claude-code-system-prompts fixture on this machine")
    return path


@pytest.fixture
def vendor_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An installed distribution on ``sys.path`` whose entry point (group
    ``catalog.catalogs``) ships ``vendor-agent`` 0.3.0 ("Hi from a plugin."); yields the
    site folder."""
    site = tmp_path / "site"
    package = site / "vendor_prompts"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    write_catalog(package, "vendor-agent", "0.3.0", [{"id": "hello", "body": "Hi from a plugin."}])
    info = site / "vendor_prompts-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vendor-prompts\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[catalog.catalogs]\nvendor = vendor_prompts\n")
    monkeypatch.syspath_prepend(str(site))
    clear_caches()  # as a program would, after a package is installed
    try:
        yield site
    finally:
        clear_caches()


_EXPORTER: list[Any] = []
"""The one in-memory exporter of this process: OpenTelemetry's global tracer provider can
be set once, so every test that reads spans shares it (emptied before each)."""


@pytest.fixture
def spans() -> Iterator[Any]:
    """OpenTelemetry's SDK set up with an in-memory exporter: ``spans.get_finished_spans()``
    gives the spans ended during the test (skipped without ``opentelemetry-sdk``)."""
    pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    if not _EXPORTER:
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        _EXPORTER.append(exporter)
    _EXPORTER[0].clear()
    yield _EXPORTER[0]
    _EXPORTER[0].clear()


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """A fake GitHub REST API on loopback, for the review comment's tests."""
    with serving() as state:
        yield state
