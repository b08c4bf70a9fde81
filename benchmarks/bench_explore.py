"""Load on `refuge explore` at 127.0.0.1: concurrent clients clicking points and judging cases.

Prints the throughput, the p50 and p95 latency and the errors (there must be none). The suite
runs a short variant (tests/test_explore_load.py); this is the 20-client, 20-second one.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import sys
import threading
import time

import httpx
import uvicorn

from refuge_map.explore.app import create_app

#: A point, then a case, each client in turn (a class clicking and asking).
REQUESTS = (
    ("/api/where", {"settings": {}, "point": [35.2819, 32.2136]}),
    ("/api/where", {"settings": {"network": {"cubit": "chazon_ish"}}, "point": [35.29, 32.22]}),
    (
        "/api/judge",
        {"case": {"act": "descending_ladder", "intent": "none", "killer": {"blind": True}}},
    ),
)


def serve() -> tuple[str, uvicorn.Server]:
    """The app on a free port of 127.0.0.1, in a thread; its address and server."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{listener.getsockname()[1]}", server


async def load(address: str, *, clients: int, seconds: float) -> dict[str, float]:
    """`clients` concurrent clients for `seconds`: requests, errors, throughput, latencies."""
    latencies: list[float] = []
    errors: list[str] = []
    stop = time.perf_counter() + seconds

    async def client(k: int) -> None:
        async with httpx.AsyncClient(base_url=address, timeout=30) as http:
            i = k
            while True:  # every client asks at least once
                path, body = REQUESTS[i % len(REQUESTS)]
                began = time.perf_counter()
                try:
                    reply = await http.post(path, json=body)
                except httpx.HTTPError as failed:  # a timeout or a dropped connection
                    errors.append(f"{path}: {type(failed).__name__}")
                else:
                    latencies.append(time.perf_counter() - began)
                    if reply.status_code != 200:
                        errors.append(f"{path}: {reply.status_code}")
                i += 1
                if time.perf_counter() >= stop:
                    break

    began = time.perf_counter()
    await asyncio.gather(*(client(k) for k in range(clients)))
    elapsed = time.perf_counter() - began
    ordered = sorted(latencies)
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "throughput_per_s": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(ordered),
        "p95_ms": 1000 * ordered[int(0.95 * (len(ordered) - 1))],
    }


def main(clients: int = 20, seconds: float = 20.0) -> int:
    address, server = serve()
    try:
        asyncio.run(load(address, clients=1, seconds=1.0))  # warm: the networks are built once
        figures = asyncio.run(load(address, clients=clients, seconds=seconds))
    finally:
        server.should_exit = True
    print(
        f"refuge explore, {clients} clients for {seconds:g} s: {figures['requests']:,} requests, "
        f"{figures['throughput_per_s']:.1f}/s, p50 {figures['p50_ms']:.0f} ms, "
        f"p95 {figures['p95_ms']:.0f} ms, {figures['errors']} errors"
    )
    return 1 if figures["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
