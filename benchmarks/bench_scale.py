"""A run's fixed and per-incident costs from a thousand to a million incidents.

Each size runs in a fresh Python process (nothing cached from the one before) the default
scenario's flight with `SIZE` incidents generated along the roads, over `HORIZON_H` hours (the
default's five walking days would be minutes of stepping at a million incidents; the set-up and
the tables do not depend on the horizon), without the exile, and times its phases:

- set-up: `build_world` (the draws, the incidents snapped to the roads; the network is built
  before, once per process, and not counted);
- stepping: `fly`;
- tables: `make_run` (events, trajectories, summary);
- writing: `write_run` into a temporary folder (of the run alone: the world and the flight
  are dropped once the run is made, as `simulate` drops them).

A phase pays what it is the first in its process to load: the stepping numba's import and the
cached kernels (about 0.1 s), the tables the import of pandas, pyarrow and geopandas (about
0.2 s), which the network and the flight do not need. At 1k and 10k incidents these fixed costs
are half or more of the two phases' figures; at 1M a few per cent.

Printed per size: each phase's wall and CPU seconds, the ratio of set-up plus tables to the
stepping (the goal is at most 1), and the peak memory per incident: the process's maximum
resident size after the run less its resident size before the set-up, over the incidents.
Without ``--record`` the flight records no trajectory rows (as replications after the first and
sweeps run); with it, a row every `RECORD_EVERY` steps per agent.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--million] [--record]`` (1M incidents needs
a few GB of memory and a few minutes; without ``--million`` the sizes stop at 100,000).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _timing import Seconds, clock, load

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "default.yaml"
SIZES = (1_000, 10_000, 100_000)
MILLION = 1_000_000
HORIZON_H = 2.0
RECORD_EVERY = 30  # steps of 120 s: one trajectory row per agent per hour
PHASES = ("set-up", "stepping", "tables", "writing")


def _rss_bytes() -> int:
    """This process's resident size now (Linux: /proc/self/statm)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def one_size(n: int, *, record: bool) -> dict[str, Any]:
    """Run `n` incidents phase by phase in this process; each phase's (wall, CPU) seconds and
    the memory per incident."""
    from refuge_map.simulation import load_scenario, make_run, write_run
    from refuge_map.simulation._setup import build_world, scenario_network
    from refuge_map.simulation.engine import fly

    base = load_scenario(SCENARIO)
    scenario = base.model_copy(
        update={
            "generate": base.generate.model_copy(update={"n": n}),
            "horizon_h": HORIZON_H,
            "exile": None,
            "output": base.output.model_copy(update={"record_every_steps": RECORD_EVERY}),
        }
    )
    scenario_network(scenario)  # the network, built once per process: not counted
    before = _rss_bytes()
    times: dict[str, Seconds] = {}
    world, times["set-up"] = clock(build_world, scenario, scenario.seed)
    flight, times["stepping"] = clock(fly, scenario, world, record=record)
    run, times["tables"] = clock(make_run, scenario, scenario.seed, flight)
    del world, flight  # as `simulate` returns the run alone: the flight is not kept
    with tempfile.TemporaryDirectory() as tmp:
        _, times["writing"] = clock(write_run, run, Path(tmp) / "run")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "times": times,
        "bytes_per_incident": (peak - before) / n,
        "peak_mb": peak / 1e6,
        "events": len(run.events),
    }


def main(sizes: tuple[int, ...], *, record: bool) -> None:
    """Each size in a fresh process; print the phases, the ratio and the memory."""
    flags = ["--record"] if record else []
    print(
        f"default flight, {HORIZON_H:g} h, no exile, "
        + (f"a row per agent every {RECORD_EVERY} steps" if record else "no trajectory rows")
    )
    print(f"{'incidents':>10} " + " ".join(f"{p:>17}" for p in PHASES) + "   ratio  KB/inc")
    for n in sizes:
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(n), *flags],
            check=True,
            capture_output=True,
            text=True,
        )
        result = json.loads(done.stdout.splitlines()[-1])
        times = result["times"]
        cells = " ".join(f"{w:7.2f} ({c:6.2f})" for w, c in (times[p] for p in PHASES))
        ratio = (times["set-up"][0] + times["tables"][0]) / times["stepping"][0]
        print(f"{n:>10,} {cells}   {ratio:5.2f}  {result['bytes_per_incident'] / 1e3:6.2f}")
    print("seconds wall (CPU); ratio: (set-up + tables) / stepping, wall; KB/inc: peak memory")
    print(load())


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--one"]:
        print(json.dumps(one_size(int(args[1]), record="--record" in args)))
    else:
        main(SIZES + ((MILLION,) if "--million" in args else ()), record="--record" in args)
