#!/usr/bin/env python3
"""Load on `catalog serve`: figures printed, never asserted.

8 concurrent clients x 500 requests each, mixing ``POST /api/assemble`` (the
bundled coding-agent catalog with a few tools), ``PUT /conversations/{id}``
(construct, on conversations the clients share), ``GET /conversations/{id}``
and ``POST /conversations/{id}/rebuild``, against

1. one server on an SQLite store, and
2. two servers sharing one PostgreSQL database (the clients alternate between
   them, as a load balancer would).

Prints per setup the throughput (requests/s), the p50 and p99 latency and the
number of errors (any answer but 200; it must be 0), then checks that the
final revisions add up to the rebuilds made (nothing lost).

Run from the repository root: ``python scripts/bench_serve.py [--clients 8]
[--requests 500] [--postgres URL]``. Without ``--postgres`` it starts a
throwaway PostgreSQL from the system's binaries (Debian's ``postgresql``
package), as the tests do; without those, the second setup is skipped.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.postgres_server import bin_dir, create_database, throwaway_postgres  # noqa: E402
from tests.serving import running_server  # noqa: E402

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


def _run(label: str, servers: list[str], clients: int, requests: int) -> None:
    for server in servers:  # compile the catalog once per server before timing
        httpx.post(f"{server}/api/assemble", json={"catalog": "coding-agent"}, timeout=60)
    with ThreadPoolExecutor(clients) as pool:
        started = time.perf_counter()
        results = list(pool.map(_client, range(clients), [servers] * clients, [requests] * clients))
        elapsed = time.perf_counter() - started
    latencies = sorted(x for r in results for x in r["latencies"])
    errors: Counter[str] = sum((r["errors"] for r in results), Counter())
    rebuilds: Counter[str] = sum((r["rebuilds"] for r in results), Counter())
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        f"{label:<34} {len(latencies):>6} requests  {len(latencies) / elapsed:8.1f} req/s  "
        f"p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  errors {sum(errors.values())}"
    )
    for message, count in errors.most_common(5):
        print(f"    {count} x {message}")
    lost = 0
    with httpx.Client(timeout=60) as http:
        for conversation, count in rebuilds.items():
            stored = http.get(f"{servers[0]}/conversations/{conversation}").json()
            # Revision 0 is the construct (or a rebuild that came first): rebuilds add one each.
            if stored["revision"] not in (count, count - 1):
                lost += 1
    print(f"{'':<34} {sum(rebuilds.values())} rebuilds, {lost} conversations off their count")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=500, help="per client")
    parser.add_argument("--postgres", help="a PostgreSQL base URL to create a database on")
    args = parser.parse_args()
    print(f"{args.clients} clients x {args.requests} requests (assemble, construct, get, rebuild)")
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        store = f"sqlite:///{folder / 'prompts.sqlite'}"
        one = stack.enter_context(running_server(["--store", store], folder / "sqlite.log"))
        _run("one server, SQLite", [one], args.clients, args.requests)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
