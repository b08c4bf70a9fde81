"""Benchmark a sweep on a LocalCluster of one worker and of two: the speed-up (goal >= 1.8x).

The sweep: the shipped ``data/sweeps/tiny_escorts.yaml`` axes (escorts x what the avenger knows
x sampled delays) with more replications, 96 runs of 8 incidents over 24 hours. Each cluster is
started and its workers prepared (imports, network) before the clock starts, so the figures
compare the sweep's work alone; start-up times are printed beside them. Both runs must give the
same ``runs.parquet``.

Run: ``.venv/bin/python benchmarks/bench_sweep.py``.
"""

from __future__ import annotations

import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import pandas as pd
from distributed import Client, LocalCluster

from refuge_map.sweep import load_sweep, run_sweep
from refuge_map.sweep.backends import DaskBackend
from refuge_map.sweep.plan import plan_sweep
from refuge_map.sweep.runner import network_options
from refuge_map.sweep.spec import SweepSpec
from refuge_map.sweep.worker import prepare_worker

SWEEP = Path(__file__).resolve().parents[1] / "data" / "sweeps" / "tiny_escorts.yaml"
REPLICATIONS = 8


def timed_sweep(spec: SweepSpec, workers: int, out: Path) -> tuple[float, float]:
    """Start-up and sweep seconds on a LocalCluster of `workers` processes."""
    start = time.perf_counter()
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(prepare_worker, network_options(plan_sweep(spec)))
        ready = time.perf_counter()
        run_sweep(spec, out, backend=nullcontext(DaskBackend(client)))
        done = time.perf_counter()
    return ready - start, done - ready


def main() -> None:
    """Run the sweep on one and on two workers and print the speed-up."""
    spec = load_sweep(SWEEP).model_copy(update={"replications": REPLICATIONS})
    n = len(plan_sweep(spec).runs)
    with tempfile.TemporaryDirectory() as tmp:
        times = {w: timed_sweep(spec, w, Path(tmp) / f"w{w}") for w in (1, 2)}
        pd.testing.assert_frame_equal(
            pd.read_parquet(Path(tmp) / "w1" / "runs.parquet"),
            pd.read_parquet(Path(tmp) / "w2" / "runs.parquet"),
        )
    for workers, (startup, sweep) in times.items():
        print(
            f"{workers} worker(s): {n} runs in {sweep:.2f} s ({n / sweep:.1f} runs/s); "
            f"cluster start-up and preparation {startup:.2f} s"
        )
    print(f"speed-up 1 -> 2 workers: {times[1][1] / times[2][1]:.2f}x (goal >= 1.8x)")


if __name__ == "__main__":
    main()
