"""Benchmark a sweep through the CLI, as a user runs it: `refuge sweep run` with ``--serial``,
``--workers 1`` and ``--workers 2``, and with no option (the default: the pilot in the command's
process, then a local cluster only if the runs left are worth its start-up).

The sweep: the base scenario and axes of the shipped ``data/sweeps/tiny_escorts.yaml`` (8
incidents over 24 hours; escorts x what the avenger knows x Latin-hypercube delays), with 2 delay
samples and 8 replications: 64 runs. Each command is timed from the outside (wall clock and the
CPU time of the command and its worker processes, from the operating system's accounting of
waited-for children), so the figure includes Python's start-up, the imports, the cluster's
start-up and the workers' preparation (network); the command itself prints the seconds of the
sweep's tasks alone and of its start-up (`SweepResult.sweep_s`, ``startup_s``), which give the
figure with start-up excluded. Every mode must write the same ``runs.parquet`` (but for ``part``,
which follows the batches each mode measured). The load average is printed beside the figures
(the machine is shared: read ratios measured in one run).

Run: ``.venv/bin/python benchmarks/bench_sweep.py`` (``--replications N`` for another size).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

from _timing import command, load

ROOT = Path(__file__).resolve().parents[1]
SWEEP = ROOT / "data" / "sweeps" / "tiny_escorts.yaml"
REFUGE = Path(sys.executable).with_name("refuge")
MODES = {
    "serial": ["--serial"],
    "1 worker": ["--workers", "1"],
    "2 workers": ["--workers", "2"],
    "default": [],
}
#: The command's own line: "N runs in X s (Y runs/s) after Z s of start-up".
TIMING = re.compile(r"(\d+) runs in ([\d.]+) s \(([\d.]+) runs/s\) after ([\d.]+) s of start-up")


def sweep_file(folder: Path, replications: int) -> Path:
    """The benchmark's sweep: tiny_escorts with 2 delay samples and `replications`."""
    spec = yaml.safe_load(SWEEP.read_text(encoding="utf-8"))
    spec["axes"]["samples"] = 2
    spec["replications"] = replications
    spec["name"] = "bench-sweep"
    path = folder / "bench_sweep.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def timed_command(sweep: Path, out: Path, options: list[str]) -> dict[str, float]:
    """Run ``refuge sweep run`` once: wall and CPU seconds of the whole command, and the
    sweep and start-up seconds it printed."""
    done, (wall, cpu) = command(
        [str(REFUGE), "sweep", "run", str(sweep), "--out", str(out), *options], check=False
    )
    if done.returncode != 0:
        sys.exit(f"refuge sweep run {' '.join(options)} failed:\n{done.stderr}")
    found = TIMING.search(done.stderr)
    if found is None:
        sys.exit(f"no timing line in the command's output:\n{done.stderr}")
    runs, sweep_s, _, startup_s = (float(g) for g in found.groups())
    return {"runs": runs, "wall": wall, "cpu": cpu, "sweep": sweep_s, "startup": startup_s}


def main() -> None:
    """Run the sweep in each mode and print runs per second with start-up included and
    excluded, CPU beside wall, and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=8)
    args = parser.parse_args()
    print(f"{load()} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        sweep = sweep_file(Path(tmp), args.replications)
        figures = {}
        for mode, options in MODES.items():
            figures[mode] = timed_command(sweep, Path(tmp) / mode.replace(" ", "_"), options)
            print(f"  after {mode}: {load()}")
        tables = [
            pd.read_parquet(Path(tmp) / m.replace(" ", "_") / "runs.parquet").drop(columns="part")
            for m in MODES
        ]  # `part` follows the batches, measured per mode
        for table in tables[1:]:
            pd.testing.assert_frame_equal(tables[0], table)
    for mode, f in figures.items():
        n = f["runs"]
        print(
            f"{mode:>9}: {n:.0f} runs; start-up included {f['wall']:.2f} s wall "
            f"({n / f['wall']:.1f} runs/s), CPU {f['cpu']:.2f} s; start-up excluded "
            f"{f['sweep']:.2f} s ({n / f['sweep']:.1f} runs/s); start-up {f['startup']:.2f} s"
        )
    one, two = figures["1 worker"], figures["2 workers"]
    print(
        f"2 workers / 1 worker: {one['wall'] / two['wall']:.2f}x start-up included, "
        f"{one['sweep'] / two['sweep']:.2f}x excluded"
    )
    best = min(("serial", "2 workers"), key=lambda mode: figures[mode]["wall"])
    print(
        f"default / the faster of serial and 2 workers ({best}): "
        f"{figures['default']['wall'] / figures[best]['wall']:.2f}x the wall, start-up included"
    )
    print(load())


if __name__ == "__main__":
    main()
