"""Two `catalog serve` processes on one PostgreSQL, with concurrent clients constructing
and rebuilding overlapping conversations through both: identical prompts, exact
revisions, nothing lost."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed")
httpx = pytest.importorskip("httpx")

from tests._support.postgres_server import fresh_database, postgres_server  # noqa: E402
from tests._support.serving import running_server, write_demo_catalogs  # noqa: E402

__all__ = ["fresh_database", "postgres_server"]  # fixtures used below

CLIENTS = 8
CONVERSATIONS = 10
REBUILDS_PER_CLIENT = 40


def _construct(client: int, servers: list[str]) -> list[dict[str, Any]]:
    answers = []
    with httpx.Client(timeout=60) as http:
        for index in range(CONVERSATIONS):
            server = servers[(client + index) % 2]
            body = {"catalog": "tpl", "context": {"env": {"cwd": f"/client{client}"}}}
            response = http.put(f"{server}/conversations/conv-{index}", json=body)
            assert response.status_code == 200, response.text
            answers.append(response.json())
    return answers


def _rebuild(client: int, servers: list[str]) -> list[dict[str, Any]]:
    answers = []
    with httpx.Client(timeout=60) as http:
        for index in range(REBUILDS_PER_CLIENT):
            server = servers[(client + index) % 2]
            conversation = f"conv-{(client * 7 + index) % CONVERSATIONS}"
            body = {"context": {"env": {"cwd": f"/r{client}-{index}"}}, "append": "Compact."}
            response = http.post(f"{server}/conversations/{conversation}/rebuild", json=body)
            assert response.status_code == 200, response.text
            answers.append(response.json())
    return answers


@pytest.mark.slow
def test_two_servers_on_one_postgres_lose_nothing(fresh_database: str, tmp_path: Path) -> None:
    catalogs = write_demo_catalogs(tmp_path / "catalogs")
    args = ["--store", fresh_database, "--path", str(catalogs), "--template-catalog", "tpl"]
    with (
        running_server(args, tmp_path / "one.log") as one,
        running_server(args, tmp_path / "two.log") as two,
        ThreadPoolExecutor(CLIENTS) as pool,
    ):
        servers = [one, two]
        built = list(pool.map(_construct, range(CLIENTS), [servers] * CLIENTS))
        for index in range(CONVERSATIONS):
            seen = [answers[index] for answers in built]
            # Whoever came first, every client was handed the same stored prompt.
            assert all(answer == seen[0] for answer in seen)
            assert seen[0]["revision"] == 0
            assert seen[0]["text"].startswith("Default in /client")

        rebuilt = [a for answers in pool.map(_rebuild, range(CLIENTS), [servers] * CLIENTS)
                   for a in answers]  # fmt: skip
        assert len(rebuilt) == CLIENTS * REBUILDS_PER_CLIENT
        per_conversation = Counter(answer["conversation_id"] for answer in rebuilt)
        for conversation, count in per_conversation.items():
            revisions = sorted(
                a["revision"] for a in rebuilt if a["conversation_id"] == conversation
            )
            assert revisions == list(range(1, count + 1)), conversation  # none read twice
        for answer in rebuilt:
            assert answer["text"].endswith("\n\nCompact.")

        with httpx.Client(timeout=60) as http:
            for index in range(CONVERSATIONS):
                path = f"/conversations/conv-{index}"
                first, second = (http.get(server + path).json() for server in servers)
                assert first == second
                assert first["revision"] == per_conversation[f"conv-{index}"]
                # Stored without the appended text, as the last rebuild resolved it.
                last = next(a for a in rebuilt if a["conversation_id"] == first["conversation_id"]
                            and a["revision"] == first["revision"])  # fmt: skip
                assert first["text"] + "\n\nCompact." == last["text"]
                assert first["fingerprint"] == last["fingerprint"]
