#!/usr/bin/env python3
"""Load on `catalog serve`: figures printed, never asserted.

8 concurrent clients x 500 requests each, mixing ``POST /api/assemble`` (the
bundled coding-agent catalog with a few tools), ``PUT /conversations/{id}``
(construct, on conversations the clients share), ``GET /conversations/{id}``
and ``POST /conversations/{id}/rebuild``, against

1. one server on an SQLite store with one process (``--workers 1``), then with
   two (``--workers 2``), on the same machine in the same run;
2. two servers sharing one PostgreSQL database (the clients alternate between
   them, as a load balancer would).

Prints per setup the throughput (requests/s), the p50 and p99 latency and the
number of errors (any answer but 200; it must be 0), then checks that the
final revisions add up to the rebuilds made (nothing lost).

3. The release scenario: the same clients construct new conversations through
   the release ``production`` (coding-agent 1.1.0 with 1.2.0 as a 10 % canary)
   on the two PostgreSQL servers and read each back, while the release is set
   to 1.2.0 a third of the way through and rolled back two thirds of the way.
   Prints the same figures, how many conversations each version got, and how
   many changed version between their construction and a later read (must be 0).

Run from the repository root: ``python scripts/bench_serve.py [--clients 8]
[--requests 500] [--postgres URL]``. Without ``--postgres`` it starts a
throwaway PostgreSQL from the system's binaries (Debian's ``postgresql``
package), as the tests do; without those, the second setup is skipped.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests._support.postgres_server import bin_dir, create_database, throwaway_postgres  # noqa: E402
from tests._support.serving import running_server  # noqa: E402

SHARED_CONVERSATIONS = 50
CONTEXT = {"tools": ["Bash", "Read", "Grep"], "env": {"cwd": "/src", "os": "Linux"}}


def _client(client: int, servers: list[str], requests: int) -> dict[str, Any]:
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    rebuilds: Counter[str] = Counter()
    with httpx.Client(timeout=60) as http:
        for index in range(requests):
            server = servers[(client + index) % len(servers)]
            conversation = f"bench-{(client * 31 + index) % SHARED_CONVERSATIONS}"
            kind = index % 4
            started = time.perf_counter()
            if kind == 0:
                body = {"catalog": "coding-agent", "context": CONTEXT}
                response = http.post(f"{server}/api/assemble", json=body)
            elif kind == 1:
                body = {"catalog": "coding-agent", "context": CONTEXT}
                response = http.put(f"{server}/conversations/{conversation}", json=body)
            elif kind == 2:
                response = http.get(f"{server}/conversations/{conversation}")
            else:
                body = {"catalog": "coding-agent", "context": CONTEXT, "append": "Compact."}
                response = http.post(f"{server}/conversations/{conversation}/rebuild", json=body)
                if response.status_code == 200:
                    rebuilds[conversation] += 1
            latencies.append(time.perf_counter() - started)
            # A GET may come before any construct of that conversation: 404 is expected.
            if response.status_code != 200 and not (kind == 2 and response.status_code == 404):
                errors[f"{response.status_code} {response.text[:120]}"] += 1
    return {"latencies": latencies, "errors": errors, "rebuilds": rebuilds}


def _report(label: str, results: list[dict[str, Any]], elapsed: float) -> None:
    """Print the throughput, p50 and p99 and the errors of ``results``."""
    latencies = sorted(x for r in results for x in r["latencies"])
    errors: Counter[str] = sum((r["errors"] for r in results), Counter())
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        f"{label:<34} {len(latencies):>6} requests  {len(latencies) / elapsed:8.1f} req/s  "
        f"p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  errors {sum(errors.values())}"
    )
    for message, count in errors.most_common(5):
        print(f"    {count} x {message}")


def _warm(servers: list[str]) -> None:
    """Compile the catalog once per server (each process of it) before timing."""
    for server in servers:
        for _ in range(4):
            httpx.post(f"{server}/api/assemble", json={"catalog": "coding-agent"}, timeout=60)


def _run(label: str, servers: list[str], clients: int, requests: int) -> None:
    _warm(servers)
    with ThreadPoolExecutor(clients) as pool:
        started = time.perf_counter()
        results = list(pool.map(_client, range(clients), [servers] * clients, [requests] * clients))
        elapsed = time.perf_counter() - started
    _report(label, results, elapsed)
    rebuilds: Counter[str] = sum((r["rebuilds"] for r in results), Counter())
    lost = 0
    with httpx.Client(timeout=60) as http:
        for conversation, count in rebuilds.items():
            stored = http.get(f"{servers[0]}/conversations/{conversation}").json()
            # Revision 0 is the construct (or a rebuild that came first): rebuilds add one each.
            if stored["revision"] not in (count, count - 1):
                lost += 1
    print(f"{'':<34} {sum(rebuilds.values())} rebuilds, {lost} conversations off their count")


RELEASE = {
    "catalog": "coding-agent",
    "version": "1.1.0",
    "canary": {"version": "1.2.0", "percent": 10},
}


class _Progress:
    """Requests made by every client of the release scenario, counted at once."""

    def __init__(self) -> None:
        self._count = itertools.count(1)
        self.made = 0

    def step(self) -> None:
        self.made = next(self._count)


def _release_client(
    client: int, servers: list[str], requests: int, progress: _Progress
) -> dict[str, Any]:
    """Construct new conversations through the release, each read back at once and the
    client's first one read again every few requests: its version must never change."""
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    versions: dict[str, str] = {}
    changed = 0
    with httpx.Client(timeout=60) as http:
        for index in range(requests):
            server = servers[(client + index) % len(servers)]
            if index % 2 == 0:
                conversation = f"release-{client}-{index}"
                body = {"release": "production", "context": CONTEXT}
                started = time.perf_counter()
                response = http.put(f"{server}/conversations/{conversation}", json=body)
                if response.status_code == 200:
                    versions[conversation] = response.json()["version"]
            else:
                # The one just made; every fifth read, the client's first one again.
                made = 0 if index % 10 == 9 else index - 1
                conversation = f"release-{client}-{made}"
                started = time.perf_counter()
                response = http.get(f"{server}/conversations/{conversation}")
                if response.status_code == 200 and conversation in versions:
                    changed += response.json()["version"] != versions[conversation]
            latencies.append(time.perf_counter() - started)
            progress.step()
            if response.status_code != 200:
                errors[f"{response.status_code} {response.text[:120]}"] += 1
    return {"latencies": latencies, "errors": errors, "versions": versions, "changed": changed}


def _change_release(server: str, total: int, progress: _Progress) -> None:
    """Set the release to its canary a third of the way through, roll it back at two."""
    with httpx.Client(timeout=60) as http:
        while progress.made < total // 3:
            time.sleep(0.01)
        http.put(
            f"{server}/releases/production", json={"catalog": "coding-agent", "version": "1.2.0"}
        )
        while progress.made < 2 * total // 3:
            time.sleep(0.01)
        http.post(f"{server}/releases/production/rollback")


def _release_run(servers: list[str], clients: int, requests: int) -> None:
    _warm(servers)
    for version in ("1.1.0", "1.2.0"):
        httpx.post(f"{servers[0]}/api/assemble", json={"catalog": f"coding-agent@{version}"})
    httpx.put(f"{servers[0]}/releases/production", json=RELEASE, timeout=60).raise_for_status()
    time.sleep(1.1)  # every server reads the release anew within a second
    progress = _Progress()
    changer = threading.Thread(
        target=_change_release, args=(servers[1], clients * requests, progress)
    )
    with ThreadPoolExecutor(clients) as pool:
        started = time.perf_counter()
        changer.start()
        results = list(
            pool.map(
                _release_client,
                range(clients),
                [servers] * clients,
                [requests] * clients,
                [progress] * clients,
            )
        )
        elapsed = time.perf_counter() - started
    changer.join()
    _report("release changed mid-run, 2 servers", results, elapsed)
    versions: dict[str, str] = {}
    for result in results:
        versions.update(result["versions"])
    with httpx.Client(timeout=60) as http:  # every conversation once more, at the end
        changed = sum(r["changed"] for r in results) + sum(
            http.get(f"{servers[0]}/conversations/{c}").json()["version"] != v
            for c, v in versions.items()
        )
    per_version = Counter(versions.values())
    shown = ", ".join(f"{count} on {version}" for version, count in sorted(per_version.items()))
    print(f"{'':<34} {len(versions)} conversations: {shown}; {changed} changed version on get")
    history = httpx.get(f"{servers[0]}/releases/production").json()["history"]
    print(f"{'':<34} release history: {[(c['action'], c['version']) for c in history]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=500, help="per client")
    parser.add_argument("--postgres", help="a PostgreSQL base URL to create a database on")
    args = parser.parse_args()
    print(f"{args.clients} clients x {args.requests} requests (assemble, construct, get, rebuild)")
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        for workers in (1, 2):
            store = f"sqlite:///{folder / f'prompts-{workers}.sqlite'}"
            serve = ["--store", store, "--workers", str(workers)]
            with running_server(serve, folder / f"sqlite-{workers}.log") as one:
                label = f"one server, SQLite, {workers} worker{'s' * (workers > 1)}"
                _run(label, [one], args.clients, args.requests)
        postgres = args.postgres
        if postgres is None:
            binaries = bin_dir()
            if binaries is None:
                print("two servers, PostgreSQL: skipped (no PostgreSQL binaries; --postgres URL)")
                return 0
            postgres = stack.enter_context(throwaway_postgres(binaries))
        database = create_database(postgres)
        servers = [
            stack.enter_context(running_server(["--store", database], folder / f"pg{i}.log"))
            for i in range(2)
        ]
        _run("two servers, one PostgreSQL", servers, args.clients, args.requests)
        _release_run(servers, args.clients, args.requests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
