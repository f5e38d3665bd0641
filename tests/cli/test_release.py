"""`catalog release`: set, show, list, history and rollback on a prompt store, as text and
JSON, each refusal a message and exit 2; what it sets, a server sharing the store uses."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from catalog.conversations import sqlite
from tests.conftest import FakeTime, run_cli, write_catalog

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def catalogs(tmp_path: Path) -> Path:
    root = tmp_path / "catalogs"
    for version in ("1.0.0", "1.1.0", "2.0.0"):
        write_catalog(root, "demo", version, parts=[{"id": "who", "body": f"Demo {version}."}])
    return root


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'prompts.sqlite'}"


def _json(capsys: Capsys, *args: str) -> object:
    code, out, err = run_cli(capsys, "release", *args, "--format", "json")
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_set_show_list_history_and_rollback_as_json(
    capsys: Capsys, catalogs: Path, store: str
) -> None:
    where = ["--store", store, "--path", str(catalogs)]
    made = _json(capsys, "set", "production", "demo@1.0.0", *where)
    assert isinstance(made, dict)
    assert {k: made[k] for k in ("label", "catalog", "version", "canary", "change", "who")} == {
        "label": "production",
        "catalog": "demo",
        "version": "1.0.0",
        "canary": None,
        "change": 1,
        "who": "local",
    }
    canary = _json(
        capsys, "set", "production", "demo@1.1.0", "--canary", "2.0.0", "--percent", "10", *where
    )
    assert isinstance(canary, dict)
    assert (canary["version"], canary["canary"]) == ("1.1.0", {"version": "2.0.0", "percent": 10.0})
    # A specifier chooses the newest match now; the release records that version.
    staging = _json(capsys, "set", "staging", "demo@>=1,<2", *where)
    assert isinstance(staging, dict) and staging["version"] == "1.1.0"
    listed = _json(capsys, "list", *where)
    assert isinstance(listed, list)
    assert [r["label"] for r in listed] == ["production", "staging"]
    back = _json(capsys, "rollback", "production", *where)
    assert isinstance(back, dict)
    assert (back["version"], back["canary"], back["action"], back["change"]) == (
        "1.0.0",
        None,
        "rollback",
        3,
    )
    assert _json(capsys, "show", "production", *where) == back
    history = _json(capsys, "history", "production", *where)
    assert isinstance(history, list)
    assert [(c["change"], c["action"], c["version"]) for c in history] == [
        (1, "set", "1.0.0"),
        (2, "set", "1.1.0"),
        (3, "rollback", "1.0.0"),
    ]


def test_text_output(
    capsys: Capsys, catalogs: Path, store: str, fake_time: Callable[..., FakeTime]
) -> None:
    """The store's clock is fixed, so the date shown does not depend on when this runs."""
    clock = fake_time(sqlite)
    clock.now = datetime.datetime(2026, 3, 7, 23, 59, 59, tzinfo=datetime.UTC).timestamp()
    where = ["--store", store, "--path", str(catalogs)]
    code, out, _ = run_cli(capsys, "release", "list", *where)
    assert (code, out) == (0, "no releases\n")
    run_cli(capsys, "release", "set", "production", "demo@1.0.0", *where)
    code, out, _ = run_cli(
        capsys, "release", "set", "production", "demo@1.0.0", "--canary", "2.0.0",
        "--percent", "12.5", *where,
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "production: demo 1.0.0, canary 2.0.0 for 12.5% of new conversations"
    assert lines[1] == "  change 2 (set) at 2026-03-07 23:59:59 UTC by local"
    code, out, _ = run_cli(capsys, "release", "history", "production", *where)
    assert [line.split()[0] for line in out.splitlines()] == ["1", "2"]
    assert out.splitlines()[0].endswith("set       local               demo 1.0.0")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["show", "production"], "there is no release production"),
        (["history", "production"], "there is no release production"),
        (["rollback", "production"], "there is no release production"),
        (["set", "production", "demo"], "'demo' names no version"),
        (["set", "production", "demo@9.0.0"], "no version of 'demo' satisfies '==9.0.0'"),
        (["set", "production", "nothing@1"], "no catalog named 'nothing'"),
        (["set", "Prod", "demo@1.0.0"], "'Prod' is not a release label"),
        (["set", "p", "demo@1.0.0", "--canary", "2.0.0"], "--canary and --percent go together"),
        (["set", "p", "demo@1.0.0", "--percent", "5"], "--canary and --percent go together"),
        (["set", "p", "demo@1.0.0", "--canary", "7.0", "--percent", "5"], "demo 7.0 cannot be"),
        (["set", "p", "demo@1.0.0", "--canary", "2.0", "--percent", "0"], "more than 0"),
    ],
)
def test_refusals_are_one_message_and_exit_2(
    capsys: Capsys, catalogs: Path, store: str, args: list[str], words: str
) -> None:
    code, out, err = run_cli(capsys, "release", *args, "--store", store, "--path", str(catalogs))
    assert (code, out) == (2, "")
    assert err.startswith("catalog: error: ") and words in err
    assert "Traceback" not in err


def test_a_release_set_here_is_used_by_a_server_on_the_store(
    capsys: Capsys, catalogs: Path, store: str
) -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from fastapi.testclient import TestClient

    from catalog.server.app import create_app
    from catalog.server.state import ServerSettings

    run_cli(capsys, "release", "set", "production", "demo@2.0.0", "--store", store,
            "--path", str(catalogs))  # fmt: skip
    settings = ServerSettings(paths=(str(catalogs),), store_url=store)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        made = client.put("/conversations/c", json={"release": "production"}).json()
        assert (made["version"], made["text"], made["release"]) == (
            "2.0.0",
            "Demo 2.0.0.",
            "production",
        )
        assert client.post("/releases/production/rollback").status_code == 409
    code, out, _ = run_cli(capsys, "release", "show", "production", "--store", store)
    assert code == 0 and out.startswith("production: demo 2.0.0\n")
