"""`refuge run data/scenarios/default.yaml` end to end, split and not, and phase by phase.

Each repetition runs in a fresh Python process, as a user's command does (nothing cached from
the one before): the command itself, timed from outside (wall clock, and the CPU time of it
and of the child it forks: `_timing.command`), as a user runs it (it shares the replications
with a child where a core is spare: `refuge_map._aside.spare_core`), then told a core is spare
(split) and that none is (not split), then a process that does what the command does one phase
at a time, all in itself, and reports each phase's wall and CPU seconds:

- import: ``import refuge_map.cli`` and the modules `refuge run` loads when it runs (the CLI
  imports them lazily: `COMMAND_MODULES`), with everything they load, numba's modules and
  every kernel its disk cache holds (`_walk.compiled`), as the command loads them
  (`load_as_the_command`: the collector held, then frozen);
- world: the scenario read and made concrete for every replication (`build_world` of each
  seed: the network once, the draws);
- flight: `fly_stacked`, the replications' flights and pursuits stepped as one (the first
  recorded and logged);
- exile: `live_in_exile` of the first run (Simulation II);
- tables: `make_run` of the first run (events, trajectories, summary);
- replications: the headline of replications 2..n (their exiles, lived as one per stack as
  `model.replicate` does, and summary) and the intervals across all of them
  (`replications.across`);
- writing: `write_run` and the printed summary tables.

What the command spends outside these phases (interpreter start-up and exit) is printed as
"start-up and exit": the command's own time (not split) minus the phases' sum, repetition by
repetition (the phased process's remainder would count this benchmark's own imports and
teardown instead).

The phases are those of the command not split. Split (`model.replicate`, `split.child_share`),
the command does the import, the network and the first run's world (the compiled kernels
loaded) here, then forks a child that builds, flies and lives the last `split.balanced`
replications (the world, flight and replications phases of those runs) while this process
does the same for the others and the exile, tables and files of the first (`replicate`'s
``beside``); the summary and the replications' table wait for the child's rows. Its wall is
then about the import, the network, numba's import and kernels, the larger of the two
processes' shares, and the last two files; its CPU is more than the unsplit command's (both
processes step a stack, and pages shared with the child are copied).
The split command also reports each process's CPU seconds after the fork to the end of
its share (how well `split.FIRST_RUN_EXTRA` and `split.FIRST_RUN_WRITING` balance them).

Figures are the median of `REPEATS` runs; the load average is printed beside them (the machine
may be shared: CPU time is the steadier figure then; a split command's wall rises most with
the load, as its two processes then wait for the cores).

Run: ``.venv/bin/python benchmarks/bench_run.py``.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from _timing import Seconds, clock, command, load, median

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "default.yaml"
REPEATS = 3
#: The command's time outside the phases: the interpreter's start-up and exit.
OUTSIDE = "start-up and exit"
PHASES = ("import", "world", "flight", "exile", "tables", "replications", "writing")
#: `refuge run` told whether a core is spare (`{spare}`: split or not), then on stderr, as JSON,
#: the CPU seconds of this process from the fork of its child to the end of `replicate`, and
#: the child's (none: 0, 0).
TOLD = """\
import atexit, json, resource, sys, time
import refuge_map.simulation as simulation
from refuge_map import _aside
from refuge_map.console import script
_aside.spare_core = lambda: {spare}
forked, replicated = [], []
start, replicate = _aside.Aside.start, simulation.replicate
def start_timed(self):
    forked.append(time.process_time())
    start(self)
def replicate_timed(*args, **kwargs):
    run = replicate(*args, **kwargs)
    replicated.append(time.process_time())
    return run
_aside.Aside.start, simulation.replicate = start_timed, replicate_timed
def told():
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    after = replicated[0] - forked[0] if forked else 0.0
    sys.stderr.write(json.dumps([after, child.ru_utime + child.ru_stime]) + "\\n")
atexit.register(told)
sys.argv = ["refuge", "run", *sys.argv[1:]]
script()
"""
#: What `refuge run` imports: the CLI, then (lazily, when the command runs) the simulation.
COMMAND_MODULES = (
    "refuge_map.cli",
    "refuge_map.simulation.model",
    "refuge_map.simulation.io",
    "refuge_map.simulation.report",
    "rich.console",
)


def load_as_the_command() -> None:
    """Import what `refuge run` imports, as its console script does (`refuge_map.cli.script`
    and `run_command`): the collector held meanwhile, numba's modules (`_walk.compiled`) among
    them, and all of it frozen for the collector after (`_app.freeze_loaded`). (The console
    script's environment is this process's already: `main` starts it with it.)"""
    from refuge_map.cli import _app

    _app.own_process = True
    _app.hold_collections()
    for name in COMMAND_MODULES:
        __import__(name)
    from refuge_map.simulation._walk import compiled

    compiled()
    _app.freeze_loaded()


def phases(out: Path) -> dict[str, Seconds]:
    """Do what `refuge run` does, phase by phase, in this (fresh) process."""
    times: dict[str, Seconds] = {}
    _, times["import"] = clock(load_as_the_command)
    # the command's modules, loaded by now (imported here, not at the top: the import is timed)

    from rich.console import Console

    from refuge_map.simulation import live_in_exile, load_scenario, make_run, write_run
    from refuge_map.simulation._setup import build_world
    from refuge_map.simulation.model import replication_headlines, with_replications
    from refuge_map.simulation.replications import headline, replication_seeds
    from refuge_map.simulation.report import report_tables
    from refuge_map.simulation.stack import chunks, fly_stacked

    def world() -> Any:
        scenario = load_scenario(SCENARIO)
        seeds = replication_seeds(scenario)
        return scenario, seeds, [build_world(scenario, seed) for seed in seeds]

    (scenario, seeds, worlds), times["world"] = clock(world)

    groups = chunks([w.n for w in worlds])

    def flight() -> list[Any]:  # as `model.replicate` steps them: stacks of whole runs
        flights = []
        for group in groups:
            stack = [worlds[i] for i in group]
            flights += fly_stacked(scenario, stack, recorded=[i == 0 for i in group])
        return flights

    flights, times["flight"] = clock(flight)
    first = flights[0]
    life, times["exile"] = clock(live_in_exile, first, scenario.exile, scenario.seed)
    run, times["tables"] = clock(make_run, scenario, scenario.seed, first, life)

    def replications() -> Any:
        rows = [headline(run)]
        for group in groups:  # as `model.replicate`: each stack's runs after the first as one
            rest = [i for i in group if i != 0]
            if rest:
                rows += replication_headlines(
                    scenario, [seeds[i] for i in rest], [flights[i] for i in rest]
                )
        done = with_replications(run, seeds, rows)
        worlds.clear()  # as `model.replicate` lets them go when it returns, before writing
        flights.clear()
        return done

    run, times["replications"] = clock(replications)

    def writing() -> None:
        write_run(run, out)
        console = Console(file=io.StringIO())
        for table in report_tables(run.summary):
            console.print(table)

    _, times["writing"] = clock(writing)
    return times


def told(spare: bool, out: str) -> tuple[Seconds, Seconds]:
    """The command told whether a core is spare (`TOLD`): its wall and CPU seconds, and the
    CPU seconds after the fork of this process and of its child."""
    probe = TOLD.format(spare=spare)
    done, seconds = command([sys.executable, "-c", probe, str(SCENARIO), "--out", out])
    after, child = json.loads(done.stderr.strip().splitlines()[-1])
    return seconds, (after, child)


def main() -> None:
    """Time the command and its phases, each in fresh processes, and print the medians.

    The processes run with the environment the console script sets for itself
    (`refuge_map.console.set_process_defaults`): the phased one, which is no console script,
    then loads numpy and pyarrow as the command does, before any phase is timed."""
    from refuge_map.console import set_process_defaults

    set_process_defaults()
    refuge = str(Path(sys.executable).with_name("refuge"))
    whole: list[Seconds] = []
    split: dict[bool, list[Seconds]] = {True: [], False: []}
    shares: list[Seconds] = []
    phased: dict[str, list[Seconds]] = {name: [] for name in (*PHASES, OUTSIDE)}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(REPEATS):
            _, seconds = command([refuge, "run", str(SCENARIO), "--out", f"{tmp}/cli{i}"])
            whole.append(seconds)
            for spare in (True, False):
                seconds, after = told(spare, f"{tmp}/told{i}{spare}")
                split[spare].append(seconds)
                shares += [after] if spare else []
            done, _ = command([sys.executable, __file__, "--phases", f"{tmp}/phased{i}"])
            times = {k: tuple(v) for k, v in json.loads(done.stdout).items()}
            for name in PHASES:
                phased[name].append(times[name])
            inside = [sum(times[name][k] for name in PHASES) for k in (0, 1)]
            here = split[False][-1]  # the command not split, as the phases are
            phased[OUTSIDE].append((here[0] - inside[0], here[1] - inside[1]))
            loads.append(load())
    wall, cpu = median(whole)
    print(f"refuge run {SCENARIO.name}: median of {REPEATS} fresh processes")
    print(
        f"  the command, end to end: {wall:.2f} s wall, {cpu:.2f} s CPU (split if a core is spare)"
    )
    (split_wall, split_cpu), (here_wall, here_cpu) = median(split[True]), median(split[False])
    print(f"    split:     {split_wall:.2f} s wall, {split_cpu:.2f} s CPU")
    print(f"    not split: {here_wall:.2f} s wall, {here_cpu:.2f} s CPU")
    ratio = f"wall {split_wall / here_wall:.2f}x, CPU {split_cpu / here_cpu:.2f}x"
    print(f"    split / not split: {ratio}")
    parent, child = median(shares)
    print(f"    CPU after the fork: this process {parent:.2f} s, the child {child:.2f} s")
    print("  phase by phase (a process doing the command's work one phase at a time):")
    for name, values in phased.items():
        w, c = median(values)
        print(f"    {name:<17} {w:6.3f} s wall  {c:6.3f} s CPU")
    print("  " + "; ".join(loads))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--phases"]:
        print(json.dumps(phases(Path(sys.argv[2]))), flush=True)
        os._exit(0)  # as `refuge` leaves (`refuge_map.cli._leave`): no finalization
    else:
        main()
