"""The model: one run of a scenario = build the world -> the flight -> the exile -> a `Run`.

The orchestrator, apart from the steps it orchestrates (the flight in `engine`, the exile in
`exile`, the result in `run`); nothing below imports it.
"""

from __future__ import annotations

from refuge_map.simulation._setup import build_world
from refuge_map.simulation.engine import Progress, fly
from refuge_map.simulation.exile import live_in_exile
from refuge_map.simulation.run import Run, make_run
from refuge_map.simulation.scenario import Scenario
from refuge_map.simulation.seeds import spawn_seeds


def simulate(
    scenario: Scenario, seed: int | None = None, *, progress: Progress | None = None
) -> Run:
    """Run one scenario with one seed: a pure function of its arguments.

    Parameters
    ----------
    scenario
        A validated `Scenario`.
    seed
        Root seed of every draw (default: ``scenario.seed``).
    progress
        Called as ``progress(step, n_steps)`` after each step.

    Returns
    -------
    Run
        Events, trajectories, summary and the opinions used.

    Raises
    ------
    GeoError
        If the network cannot be built with the scenario's options.
    """
    seed = scenario.seed if seed is None else seed
    flight = fly(scenario, build_world(scenario, seed), progress=progress)
    life = None if scenario.exile is None else live_in_exile(flight, scenario.exile, seed)
    return make_run(scenario, seed, flight, life)


def replication_seeds(scenario: Scenario) -> list[int]:
    """The seeds of the scenario's replications, spawned from its root seed (`spawn_seeds`)."""
    return spawn_seeds(scenario.seed, scenario.replications)


def simulate_replications(scenario: Scenario) -> list[Run]:
    """`scenario.replications` runs, one per seed of `replication_seeds`, in order."""
    return [simulate(scenario, seed) for seed in replication_seeds(scenario)]
