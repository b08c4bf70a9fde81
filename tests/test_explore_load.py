"""A short, bounded load on `refuge explore` (the 20-second one is benchmarks/bench_explore.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_explore import load, serve


@pytest.mark.slow
def test_twenty_clients_get_answers_and_no_error():
    address, server = serve()
    try:
        # warm, as the benchmark does: the first request builds the network; the load measures
        # answers, not twenty cold builds racing on a busy machine
        asyncio.run(load(address, clients=1, seconds=0.1))
        figures = asyncio.run(load(address, clients=20, seconds=3.0))
    finally:
        server.should_exit = True
    assert figures["errors"] == 0
    assert figures["requests"] >= 20  # every client was answered at least once
